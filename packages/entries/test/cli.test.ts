// The `mountkit-entries` command: its names and forms, argument reading, batch submission against an in-process
// service, and the failure summary.
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEntriesService, jwtVerifier, signHs256 } from "@mountkit/entries";
import { describe, expect, it, vi } from "vitest";
import { collectItems, formatSummary, main, submitAll } from "../src/cli.js";
import { france } from "./fixtures/countries.js";

const SECRET = "cli-test-secret-cli-test-secret-0123456789";

/** Runs the command in process; what it wrote to stdout and to stderr. */
async function runMain(argv: string[]) {
  let out = "";
  let err = "";
  const stdout = {
    write: (s: string) => {
      out += s;
      return true;
    },
  } as unknown as NodeJS.WriteStream;
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((s: string | Uint8Array) => {
    err += String(s);
    return true;
  });
  try {
    return { code: await main(argv, {}, stdout), out, err };
  } finally {
    spy.mockRestore();
  }
}

describe("the mountkit-entries command", () => {
  it("is installed as mountkit-entries, and as mountkit (its earlier name), both the same file", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { bin: Record<string, string> };
    expect(Object.keys(pkg.bin).sort()).toEqual(["mountkit", "mountkit-entries"]);
    expect(pkg.bin.mountkit).toBe(pkg.bin["mountkit-entries"]);
    expect(existsSync(new URL(`../${pkg.bin["mountkit-entries"]}`, import.meta.url))).toBe(true);
  });

  it("answers --help on stdout under its name; `entries import`, the earlier form, still parses; a wrong form is a usage error", async () => {
    const help = await runMain(["--help"]);
    expect(help).toMatchObject({ code: 0, err: "" });
    expect(help.out).toMatch(/^usage: mountkit-entries import <file-or-url>\.\.\. \[options\]\n\s+mountkit-entries webhooks /);
    expect(await runMain(["import", "--help"])).toMatchObject({ code: 0, out: help.out });
    expect(await runMain(["entries", "import", "--help"])).toMatchObject({ code: 0, out: help.out });
    for (const argv of [[], ["import"], ["entries", "import"], ["entries"], ["export", "x.json"]]) {
      const r = await runMain(argv);
      expect(r, argv.join(" ")).toMatchObject({ code: 2, out: "" });
      expect(r.err).toContain("usage: mountkit-entries import");
    }
    const hooks = await runMain(["webhooks", "--help"]);
    expect(hooks.code).toBe(0);
    expect(hooks.err).toMatch(/^usage: mountkit-entries webhooks <command>/);
  });
});

describe("mountkit-entries import", () => {
  it("reads countries, entries, JSONL and spec files; reports unreadable ones", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mk-cli-"));
    await writeFile(join(dir, "countries.json"), JSON.stringify([france, { ...france, alpha2: "JP", emoji: "🇯🇵", name: "Japan" }]));
    await writeFile(join(dir, "entry.yaml"), "name: Books\ndescription: d\ncustomData:\n  isbn: '9780000000002'\n");
    await writeFile(
      join(dir, "lines.jsonl"),
      `${JSON.stringify({ name: "A", description: "d", customData: { specUrl: "https://example.com/a.json" } })}\n${JSON.stringify(france)}\n`,
    );
    await writeFile(join(dir, "petstore.yaml"), "openapi: 3.0.0\ninfo:\n  title: Petstore\n  version: '1'\npaths: {}\n");
    const args = ["countries.json", "entry.yaml", "lines.jsonl", "petstore.yaml", "missing.json"].map((f) => join(dir, f));
    const noBase = await collectItems(args, { tags: [] });
    expect(noBase.items.map((i) => `${i.typeId}:${i.body.name}`)).toEqual([
      "countries:France",
      "countries:Japan",
      "apis:A",
      "countries:France",
    ]);
    expect(noBase.failures.map((f) => f.error)).toEqual([
      "cannot tell the entry's type: pass --type",
      "a local spec file needs --spec-base-url (the server fetches specs by URL)",
      expect.stringMatching(/^cannot read: ENOENT/),
    ]);
    const withBase = await collectItems(args, { tags: ["batch"], type: "books", specBaseUrl: "https://specs.example.com/v1" });
    const spec = withBase.items.find((i) => i.typeId === "apis" && i.body.name === "Petstore")!;
    expect(spec.body.customData).toEqual({ specUrl: "https://specs.example.com/v1/petstore.yaml" });
    expect(spec.body.tags).toEqual(["batch"]);
    expect(withBase.items.find((i) => i.body.name === "Books")!.typeId).toBe("books");
  });

  it("submits a batch and summarises what failed and why", async () => {
    const service = createEntriesService({ auth: jwtVerifier({ secret: SECRET }) });
    const fetchVia = ((url: string, init: RequestInit) => service.fetch(new Request(url, init))) as typeof fetch;
    const token = await signHs256(SECRET, { sub: "ci-bot" });
    const items = [
      { source: "a", typeId: "countries", body: { name: "France", description: "d", customData: france } },
      { source: "b", typeId: "countries", body: { name: "Bad", description: "d", customData: { ...france, numeric: "1", alpha3: "x" } } },
      { source: "c", typeId: "nope", body: { name: "X", description: "d", customData: {} } },
    ];
    let ticks = 0;
    const r = await submitAll(items, { server: "http://kit.test", token, concurrency: 2, fetch: fetchVia, onResult: () => ticks++ });
    expect(ticks).toBe(3);
    expect(r.created.map((c) => c.source)).toEqual(["a"]);
    expect(r.failures.map((f) => [f.source, f.status]).sort()).toEqual([
      ["b", 422],
      ["c", 404],
    ]);
    const summary = formatSummary(3, r.created.length, r.failures);
    expect(summary).toMatch(/^imported 1 of 3; 2 failed:/);
    expect(summary).toContain("customData.numeric: must be three digits");
    const unauth = await submitAll(items.slice(0, 1), { server: "http://kit.test", concurrency: 1, fetch: fetchVia });
    expect(unauth.failures[0]).toMatchObject({ status: 401, error: "missing bearer token" });
    const list = await service.api.list({ typeId: "countries" });
    expect(list.items.map((e) => e.ownerId)).toEqual(["ci-bot"]);
  });
});
