// Cells of the sqlite-vec index (stores/memory/vectors-cells.ts): past `trainAt` vectors a brain's index is split
// by k-means, its vectors move to their nearest cell, and a search reads the nearest cells. Checked against
// the exact nearest (recall), each vector's own nearest cell (a stored vector always finds itself), another
// process, an index from before cells, and brains whose ids look like a cell's partition.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { coreMigrations, memoryMigrations, openDatabase, type SqlDatabase, sqlMemoryStore, type VectorCellOptions } from "@mountkit/sql";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { cosine } from "./vector-math.js";

const migrations = [coreMigrations, memoryMigrations];
const DIMS = 32;
const CELLS: VectorCellOptions = { trainAt: 1500, cells: 16, probes: 4 };

/** Deterministic vectors around `centers` random centres: text embeddings cluster by topic like this. */
function clustered(n: number, seed: number, centers = 40): number[][] {
  let s = seed >>> 0;
  const r = () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
  let c = 11;
  const rc = () => {
    c = (c * 1664525 + 1013904223) >>> 0;
    return c / 2 ** 32 - 0.5;
  };
  const middles = Array.from({ length: centers }, () => Array.from({ length: DIMS }, rc));
  return Array.from({ length: n }, () => middles[Math.floor((r() + 0.5) * centers)]!.map((x) => x + r() * 0.5));
}

const items = (data: number[][], prefix: string, from = 0) =>
  data.map((vector, i) => ({ kind: "edge" as const, id: `${prefix}${from + i}`, vector }));

/** Rows of the edge index per partition (the brain's own, or one of its cells). */
async function partitions(db: SqlDatabase) {
  const r = await sql<{ brain_id: string; n: number }>`
    select brain_id, count(*) as n from ${sql.table(`memory_vec_edge_${DIMS}`)} group by brain_id`.execute(db.kysely);
  return new Map(r.rows.map((row) => [row.brain_id, Number(row.n)]));
}

/** Waits until `brainId` has cells and nothing left in its own partition (the move runs in the background). */
async function split(db: SqlDatabase, brainId: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const cells = await sql<{ n: number }>`select count(*) as n from memory_vec_cells where brain_id = ${brainId}`
      .execute(db.kysely)
      .catch(() => ({ rows: [{ n: 0 }] }));
    const own = (await partitions(db)).get(brainId) ?? 0;
    if (Number(cells.rows[0]?.n) && own === 0) return;
    if (Date.now() > deadline) throw new Error(`${brainId} not split after 30 s (own partition: ${own})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("sqlMemoryStore vectors: sqlite-vec cells", () => {
  const dirs: string[] = [];
  const dbs: SqlDatabase[] = [];
  const open = async (dir?: string) => {
    const d = dir ?? mkdtempSync(join(tmpdir(), "mountkit-cells-"));
    if (!dir) dirs.push(d);
    const db = await openDatabase({ dataDir: d, migrations });
    dbs.push(db);
    return { db, dir: d };
  };
  afterAll(async () => {
    for (const db of dbs) await db.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("splits a large brain into cells, keeps a small one whole, and finds the true nearest (recall@20 >= 0.95)", async () => {
    const { db } = await open();
    const store = sqlMemoryStore(db, { vectorCells: CELLS });
    const large = clustered(2400, 1);
    const small = clustered(300, 2);
    for (let i = 0; i < large.length; i += 200)
      await store.putEmbeddings!({ brainId: "big", items: items(large.slice(i, i + 200), "e", i) });
    await store.putEmbeddings!({ brainId: "small", items: items(small, "s") });
    await split(db, "big");

    const parts = await partitions(db);
    expect(parts.get("small")).toBe(300);
    const cells = [...parts.keys()].filter((k) => k.startsWith("big\u001f"));
    expect(cells.length).toBeGreaterThan(8);
    expect(cells.reduce((n, k) => n + parts.get(k)!, 0)).toBe(2400);

    let found = 0;
    const queries = clustered(30, 3);
    for (const q of queries) {
      const hits = await store.searchVectors!({ brainId: "big", kind: "edge", vector: q, limit: 20 });
      const exact = large
        .map((v, i) => ({ id: `e${i}`, score: cosine(v, q) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 20);
      const got = new Set(hits.map((h) => h.item));
      found += exact.filter((e) => got.has(e.id)).length;
      for (const h of hits) {
        expect(h.item.startsWith("e")).toBe(true);
        expect(h.score).toBeCloseTo(cosine(large[Number(h.item.slice(1))]!, q), 4);
      }
    }
    expect(found / (queries.length * 20)).toBeGreaterThanOrEqual(0.95);
    // every stored vector lives in its own nearest cell, so it finds itself first
    for (let i = 0; i < large.length; i += 97)
      expect((await store.searchVectors!({ brainId: "big", kind: "edge", vector: large[i]!, limit: 1 }))[0]?.item).toBe(`e${i}`);
  });

  it("places later vectors in their cells directly, moves a re-put vector, and serves another process with the same cells", async () => {
    const { db, dir } = await open();
    const store = sqlMemoryStore(db, { vectorCells: CELLS });
    const data = clustered(2000, 4);
    await store.putEmbeddings!({ brainId: "b", items: items(data, "e") });
    await store.searchVectors!({ brainId: "b", kind: "edge", vector: data[0]!, limit: 1 });
    await split(db, "b");

    const more = clustered(300, 5);
    await store.putEmbeddings!({ brainId: "b", items: items(more, "e", 2000) });
    expect((await partitions(db)).get("b") ?? 0).toBe(0);
    // a vector put again elsewhere leaves its old cell and is found at its new place
    await store.putEmbeddings!({ brainId: "b", items: [{ kind: "edge", id: "e5", vector: more[0]!.map((x) => -x) }] });
    const total = [...(await partitions(db)).values()].reduce((a, b) => a + b, 0);
    expect(total).toBe(2300);
    expect((await store.searchVectors!({ brainId: "b", kind: "edge", vector: more[0]!.map((x) => -x), limit: 1 }))[0]?.item).toBe("e5");

    // a second process reads the stored cells: its writes go to them and its searches find the first's
    const second = await open(dir);
    const other = sqlMemoryStore(second.db, { vectorCells: CELLS });
    const late = clustered(50, 6);
    await other.putEmbeddings!({ brainId: "b", items: items(late, "late") });
    expect((await partitions(db)).get("b") ?? 0).toBe(0);
    for (const [i, v] of [...late.entries()].slice(0, 10))
      expect((await store.searchVectors!({ brainId: "b", kind: "edge", vector: v, limit: 1 }))[0]?.item).toBe(`late${i}`);
    for (let i = 0; i < 2000; i += 211)
      if (i !== 5) expect((await other.searchVectors!({ brainId: "b", kind: "edge", vector: data[i]!, limit: 1 }))[0]?.item).toBe(`e${i}`);
  });

  it("splits an index written before cells on its first search, and finds everything while it moves", async () => {
    const { db, dir } = await open();
    const data = clustered(2000, 7);
    // written by a store that never splits (as a release before cells did)
    await sqlMemoryStore(db, { vectorCells: { trainAt: 1e9 } }).putEmbeddings!({ brainId: "old", items: items(data, "e") });
    expect((await partitions(db)).get("old")).toBe(2000);

    const later = await open(dir);
    const store = sqlMemoryStore(later.db, { vectorCells: CELLS });
    for (let i = 0; i < 2000; i += 157)
      expect((await store.searchVectors!({ brainId: "old", kind: "edge", vector: data[i]!, limit: 1 }))[0]?.item).toBe(`e${i}`);
    await split(later.db, "old");
    for (let i = 0; i < 2000; i += 157)
      expect((await store.searchVectors!({ brainId: "old", kind: "edge", vector: data[i]!, limit: 1 }))[0]?.item).toBe(`e${i}`);
  });

  it("never answers with another brain's vectors, even for a brain id that names one of its cells", async () => {
    const { db } = await open();
    const store = sqlMemoryStore(db, { vectorCells: CELLS });
    const data = clustered(2000, 8);
    await store.putEmbeddings!({ brainId: "b", items: items(data, "own") });
    await store.searchVectors!({ brainId: "b", kind: "edge", vector: data[0]!, limit: 1 });
    await split(db, "b");
    // brains named like b's cells hold their own vectors in a partition b's search reads: the record's brain
    // decides, so neither side ever sees the other's (such an id may get fewer than `limit` answers)
    const lookalikes = Array.from({ length: 16 }, (_, c) => `b\u001f${c}`);
    for (const [c, id] of lookalikes.entries()) await store.putEmbeddings!({ brainId: id, items: items(clustered(5, 9), `x${c}:`) });
    for (const q of clustered(10, 10)) {
      const hits = await store.searchVectors!({ brainId: "b", kind: "edge", vector: q, limit: 50 });
      expect(hits).toHaveLength(50);
      for (const hit of hits) expect(hit.item.startsWith("own")).toBe(true);
      for (const [c, id] of lookalikes.entries())
        for (const hit of await store.searchVectors!({ brainId: id, kind: "edge", vector: q, limit: 50 }))
          expect(hit.item.startsWith(`x${c}:`)).toBe(true);
    }
    // a look-alike brain large enough for cells keeps one partition: b's cell it shares is never moved away
    const big = "b\u001f3";
    await store.putEmbeddings!({ brainId: big, items: items(clustered(1600, 12), "x3:big") });
    await store.searchVectors!({ brainId: big, kind: "edge", vector: data[0]!, limit: 1 });
    await new Promise((r) => setTimeout(r, 300));
    const cellsOf = await sql<{ brain_id: string }>`select brain_id from memory_vec_cells`.execute(db.kysely);
    expect(cellsOf.rows.map((r) => r.brain_id)).toEqual(["b"]);
    for (let i = 0; i < 2000; i += 101)
      expect((await store.searchVectors!({ brainId: "b", kind: "edge", vector: data[i]!, limit: 1 }))[0]?.item).toBe(`own${i}`);
    // and a plain other brain is untouched by b's cells
    await store.putEmbeddings!({ brainId: "c", items: items(clustered(5, 11), "c") });
    expect((await store.searchVectors!({ brainId: "c", kind: "edge", vector: data[0]!, limit: 50 })).map((h) => h.item).sort()).toEqual([
      "c0",
      "c1",
      "c2",
      "c3",
      "c4",
    ]);
  });

  it("trains no cells for a dimension with too few vectors of its own (another embedder), and finds them exactly", async () => {
    const { db } = await open();
    const store = sqlMemoryStore(db, { vectorCells: CELLS });
    await store.putEmbeddings!({ brainId: "m", items: items(clustered(2000, 13), "old") });
    await store.searchVectors!({ brainId: "m", kind: "edge", vector: clustered(1, 14)[0]!, limit: 1 });
    await split(db, "m");
    // 300 vectors of 48 dimensions: the kind holds 2,300, but this dimension's sample is not full
    let seed = 5;
    const random = () => {
      seed = (seed * 1664525 + 1013904223) >>> 0;
      return seed / 2 ** 32 - 0.5;
    };
    const wide = Array.from({ length: 300 }, () => Array.from({ length: 48 }, random));
    await store.putEmbeddings!({ brainId: "m", items: wide.map((vector, i) => ({ kind: "edge" as const, id: `new${i}`, vector })) });
    await store.searchVectors!({ brainId: "m", kind: "edge", vector: wide[0]!, limit: 1 });
    await new Promise((r) => setTimeout(r, 300));
    const dims = await sql<{ dims: number }>`select dims from memory_vec_cells where brain_id = 'm'`.execute(db.kysely);
    expect(dims.rows.map((r) => Number(r.dims))).toEqual([DIMS]);
    for (let i = 0; i < 300; i += 23)
      expect((await store.searchVectors!({ brainId: "m", kind: "edge", vector: wide[i]!, limit: 1 }))[0]?.item).toBe(`new${i}`);
  });
});
