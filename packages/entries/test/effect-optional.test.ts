// `effect` is an optional peer: importing @mountkit/entries must not load it; registering an Effect Schema
// type loads it then (validation and the type's OpenAPI document both work). Runs in a fresh Node process.
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../../..");

// Effect keeps its global store under this key from the moment any of its modules is evaluated.
const script = `
const effectLoaded = () => "effect/GlobalValue" in globalThis;
const entries = await import("@mountkit/entries");
const afterImport = effectLoaded();
const plain = entries.createEntriesService({ auth: entries.jwtVerifier({ secret: "effect-optional-test-secret-of-32-bytes" }) });
const afterPlainService = effectLoaded();
await plain.dispose();
const { Schema } = await import("effect");
const svc = entries.createEntriesService({
  auth: entries.jwtVerifier({ secret: "effect-optional-test-secret-of-32-bytes" }),
  types: [{ id: "planets", schema: Schema.Struct({ name: Schema.NonEmptyString }) }],
});
const ok = await svc.api.submit({ typeId: "planets", ownerId: "u", entry: { name: "M", description: "d", customData: { name: "Mars" } } });
const bad = await svc.api.submit({ typeId: "planets", ownerId: "u", entry: { name: "M", description: "d", customData: { name: "" } } }).catch((e) => e.details);
const doc = svc.api.typeDocument("planets");
const afterEffect = effectLoaded();
await svc.dispose();
process.stdout.write(JSON.stringify({ afterEffect, afterImport, afterPlainService, saved: ok.customData, bad, doc: JSON.stringify(doc) }));
`;

describe("effect as an optional peer", () => {
  it("is not loaded by importing entries, and works once an Effect Schema type is registered", () => {
    const out = execFileSync(process.execPath, ["--conditions=mountkit-source", "--import", "tsx", "--input-type=module", "-e", script], {
      cwd: root,
      encoding: "utf8",
      timeout: 90_000,
    });
    const r = JSON.parse(out) as {
      afterEffect: boolean;
      afterImport: boolean;
      afterPlainService: boolean;
      saved: unknown;
      bad: Array<{ path: string }>;
      doc: string;
    };
    expect(r.afterEffect).toBe(true); // the probe does see effect once it is loaded
    expect(r.afterImport).toBe(false);
    expect(r.afterPlainService).toBe(false);
    expect(r.saved).toEqual({ name: "Mars" });
    expect(r.bad.map((d) => d.path)).toEqual(["customData.name"]);
    expect(r.doc).toContain('"minLength":1');
  }, 120_000);
});
