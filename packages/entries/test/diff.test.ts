// The spec diff against a corpus of document pairs with known changes (fixtures/diff/*.yaml: each pair's expected
// changes were written from what a client of the API sees, not taken from the code), plus the diff's own edges.
import { readdirSync, readFileSync } from "node:fs";
import { load } from "js-yaml";
import { describe, expect, it } from "vitest";
import { diffSpecs } from "../src/diff/compare.js";
import { deepEqual, pruneUnchanged } from "../src/diff/prune.js";
import { securityNarrowed } from "../src/diff/rules.js";
import { diffPool } from "../src/diff/pool.js";
import { generateSpec } from "./fixtures/spec-generator.js";

interface Pair {
  base: Record<string, unknown>;
  head: Record<string, unknown>;
  expect: { breaking: boolean; changes: Array<{ kind: string; action: string; path: string }> };
}

const dir = new URL("./fixtures/diff/", import.meta.url);
const corpus = readdirSync(dir)
  .filter((f) => f.endsWith(".yaml"))
  .sort()
  .map((f) => [f.replace(/\.yaml$/, ""), load(readFileSync(new URL(f, dir), "utf8")) as Pair] as const);

const key = (c: { kind: string; action: string; path: string }) => `${c.kind} ${c.action} ${c.path}`;

describe("spec diff: the corpus", () => {
  it("holds at least 20 pairs, breaking and not", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(20);
    expect(corpus.filter(([, p]) => p.expect.breaking).length).toBeGreaterThanOrEqual(10);
    expect(corpus.filter(([, p]) => !p.expect.breaking).length).toBeGreaterThanOrEqual(8);
  });

  it.each(corpus)("%s", (_name, pair) => {
    const out = diffSpecs(JSON.stringify(pair.base), JSON.stringify(pair.head));
    if (!out.ok) throw new Error(JSON.stringify(out.errors));
    expect(out.diff.changes.map(key).sort()).toEqual(pair.expect.changes.map(key).sort());
    expect(out.diff.breaking).toBe(pair.expect.breaking);
    expect(out.diff.changeCount).toBe(pair.expect.changes.length);
    // breaking first, and every change says what it is in words
    const kinds = out.diff.changes.map((c) => c.kind);
    if (kinds.includes("breaking")) expect(kinds.lastIndexOf("breaking")).toBe(kinds.filter((k) => k === "breaking").length - 1);
    for (const c of out.diff.changes) expect(c.message.length).toBeGreaterThan(3);
  });
});

describe("spec diff: parts", () => {
  it("security: a new scheme or scope narrows, fewer requirements or an added alternative do not", () => {
    expect(securityNarrowed(undefined, [{ key: [] }])).toBe(true);
    expect(securityNarrowed([{ key: [] }], [{ oauth: ["read"] }])).toBe(true);
    expect(securityNarrowed([{ oauth: ["read"] }], [{ oauth: ["read", "write"] }])).toBe(true);
    expect(securityNarrowed([{ key: [] }], [])).toBe(false);
    expect(securityNarrowed([{ key: [] }], [{ key: [] }, { oauth: [] }])).toBe(false);
    expect(securityNarrowed([{ oauth: ["read", "write"] }], [{ oauth: ["read"] }])).toBe(false);
  });

  it("pruning leaves only the path items a change reaches, through components that refer to changed ones", () => {
    const g = generateSpec({ endpoints: 40, version: "1", format: "3.0", propertiesPerSchema: 5, extraSchemas: 10 });
    const same = [structuredClone(g.document), structuredClone(g.document)] as const;
    expect(pruneUnchanged(same[0], same[1]).pruned).toBe(Object.keys(g.document.paths as object).length);
    expect(Object.keys(same[0].paths as object)).toEqual([]);
    const base = structuredClone(g.document) as { paths: Record<string, unknown> };
    const head = structuredClone(g.document) as { paths: Record<string, unknown> };
    const first = Object.keys(head.paths)[0]!;
    (head.paths[first] as Record<string, unknown>)["x-changed"] = true;
    pruneUnchanged(base, head);
    expect(Object.keys(head.paths)).toContain(first);
    expect(deepEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
    expect(deepEqual({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(deepEqual({ a: [1] }, { a: { 0: 1 } })).toBe(false);
  });

  it("runs in a diff process with the same answer as in process; a diff past the time limit answers the limit", async () => {
    const [, pair] = corpus.find(([n]) => n === "removed-response-field")!;
    const pool = diffPool({ maxThreads: 1 });
    try {
      const body = new TextEncoder().encode(JSON.stringify({ base: pair.base, head: pair.head }));
      const out = await pool.diff(body);
      expect(out).toEqual(diffSpecs(JSON.stringify(pair.base), JSON.stringify(pair.head)));
      expect((await pool.diff(new TextEncoder().encode("[1]"))).ok).toBe(false);
    } finally {
      await pool.destroy();
    }
    const slow = diffPool({ maxThreads: 1, timeoutMs: 1 });
    try {
      const g = generateSpec({ endpoints: 200, version: "1", format: "3.0" });
      const head = structuredClone(g.document) as Record<string, unknown>;
      head.paths = {};
      const out = await slow.diff(new TextEncoder().encode(JSON.stringify({ base: g.document, head })));
      expect(out).toMatchObject({ ok: false, errors: [{ message: expect.stringMatching(/too slow/) }] });
    } finally {
      await slow.destroy();
    }
  });
});
