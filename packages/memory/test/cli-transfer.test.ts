// `mountkit-memory export|import|brains delete` on the in-memory store: an exported file imported into another
// brain exports the same records; a deleted brain exports nothing.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../src/cli.js";
import { createMemoryService } from "../src/index.js";

const body = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l && !l.startsWith('{"type":"header"'));

describe("mountkit-memory export / import / brains delete", () => {
  it("moves a brain through a file and deletes it", async () => {
    const s = createMemoryService({ worker: { pollMs: 10 } });
    try {
      await s.store.createBrain({ brain: { id: "a", name: "a", createdAt: 0 } });
      for (const content of ["Marta works at Acme.", "Marta lives in Lisbon."]) {
        const e = await s.api.createEpisode("a", { content });
        for (let i = 0; i < 500 && (await s.api.getEpisode("a", e.id)).status !== "done"; i++) await new Promise((r) => setTimeout(r, 10));
      }
      const dir = mkdtempSync(join(tmpdir(), "mk-cli-"));
      const out: string[] = [];
      const err: string[] = [];
      const io = { openStore: async () => ({ store: s.store }), out: (l: string) => out.push(l), err: (l: string) => err.push(l) };
      expect(await runCli(["export", "--brain", "a", "--out", join(dir, "a.jsonl")], io)).toBe(0);
      expect(await runCli(["import", "--brain", "b", "--in", join(dir, "a.jsonl")], io)).toBe(0);
      expect(out.at(-1)).toMatch(/^imported into brain b: 2 episodes, \d+ entities, [1-9]\d* edges/);
      expect(await runCli(["export", "--brain", "b", "--out", join(dir, "b.jsonl")], io)).toBe(0);
      expect(body(join(dir, "b.jsonl"))).toEqual(body(join(dir, "a.jsonl")));
      expect(await runCli(["import", "--brain", "b", "--in", join(dir, "a.jsonl")], io)).toBe(1);
      expect(err.at(-1)).toMatch(/no records/);
      expect(await runCli(["brains", "delete", "b"], io)).toBe(0);
      expect(out.at(-1)).toMatch(/^deleted brain b: 2 episodes/);
      expect(await runCli(["brains", "delete", "b"], io)).toBe(1);
    } finally {
      await s.dispose();
    }
  });
});
