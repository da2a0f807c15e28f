// The spec diff against a corpus of document pairs with known changes (fixtures/diff/*.yaml: each pair's expected
// changes were written from what a client of the API sees, not taken from the code), plus the diff's own edges.
import { readdirSync, readFileSync } from "node:fs";
import { load } from "js-yaml";
import { describe, expect, it } from "vitest";
import { diffSpecs } from "../src/diff/compare.js";
import { deepEqual, pruneUnchanged } from "../src/diff/prune.js";
import { securityNarrowed } from "../src/diff/rules.js";
import { specPool } from "../src/openapi/pool.js";
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
