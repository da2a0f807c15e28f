// The SQL memory store's vectors: sqlite-vec k-nearest where loaded and the scan fallback (vectorIndex
// "off", and PostgreSQL) must rank the same items the same way; the conformance suite runs on both paths.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeMemoryStore } from "@mountkit/memory/testing";
import { coreMigrations, memoryMigrations, openDatabase, type SqlDatabase, sqlMemoryStore } from "@mountkit/sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forEachDatabase, useMigratedDatabase } from "../../../test/sql-targets.js";

const migrations = [coreMigrations, memoryMigrations];

describe("sqlMemoryStore vectors [sqlite, scan fallback]", () => {
  let dir: string;
  let db: SqlDatabase;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mountkit-vec-off-"));
    db = await openDatabase({ dataDir: dir, migrations, vectorIndex: "off" });
  });
  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  it("keeps the scan when the index is off", () => expect(db.vectorIndex).toBeNull());
  describeMemoryStore("sqlite (vectors scanned)", async () => ({ store: sqlMemoryStore(db) }));
});

/** Deterministic pseudo-random vectors. */
function vectors(n: number, dims: number, seed: number): number[][] {
  let s = seed >>> 0;
  const r = () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
  return Array.from({ length: n }, () => Array.from({ length: dims }, r));
}

describe("sqlMemoryStore vectors: sqlite-vec and the scan agree", () => {
  const dirs: string[] = [];
  const dbs: SqlDatabase[] = [];
  const open = async (vectorIndex: "auto" | "off") => {
    const dir = mkdtempSync(join(tmpdir(), "mountkit-vec-"));
    dirs.push(dir);
    const db = await openDatabase({ dataDir: dir, migrations, vectorIndex });
    dbs.push(db);
    return db;
  };
  afterAll(async () => {
    for (const db of dbs) await db.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("loads sqlite-vec by default on SQLite", async () => {
    expect((await open("auto")).vectorIndex).toBe("sqlite-vec");
  });

  it("gives the same top 20 with close scores, over 2,000 vectors of 48 dimensions in two brains", async () => {
    const [indexed, scanned] = [sqlMemoryStore(await open("auto")), sqlMemoryStore(await open("off"))];
    const data = vectors(2000, 48, 11);
    for (const store of [indexed, scanned])
      for (let i = 0; i < data.length; i += 250)
        await store.putEmbeddings!({
          brainId: i % 500 === 0 ? "b1" : "b2",
          items: data.slice(i, i + 250).map((vector, k) => ({ kind: "edge" as const, id: `e${i + k}`, vector })),
        });
    for (const q of vectors(10, 48, 99))
      for (const brainId of ["b1", "b2"]) {
        const a = await indexed.searchVectors!({ brainId, kind: "edge", vector: q, limit: 20 });
        const b = await scanned.searchVectors!({ brainId, kind: "edge", vector: q, limit: 20 });
        expect(a.map((h) => h.item)).toEqual(b.map((h) => h.item));
        for (const [i, h] of a.entries()) expect(h.score).toBeCloseTo(b[i]!.score, 4);
      }
  });

  it("finds a vector after its dimension changes (another embedder), only in the new dimension", async () => {
    const store = sqlMemoryStore(await open("auto"));
    await store.putEmbeddings!({ brainId: "b", items: [{ kind: "episode", id: "x", vector: [1, 0, 0] }] });
    await store.putEmbeddings!({ brainId: "b", items: [{ kind: "episode", id: "x", vector: [0, 1, 0, 0] }] });
    expect(await store.searchVectors!({ brainId: "b", kind: "episode", vector: [1, 0, 0], limit: 5 })).toEqual([]);
    expect((await store.searchVectors!({ brainId: "b", kind: "episode", vector: [0, 1, 0, 0], limit: 5 })).map((h) => h.item)).toEqual([
      "x",
    ]);
  });
});

// PostgreSQL without pgvector scans: the conformance suite covers it through memory-store.test.ts; this
// checks the scan and the SQLite index give the same ranking across engines too
forEachDatabase(
  "sqlMemoryStore vectors across engines",
  (dialect) => {
    const use = useMigratedDatabase(dialect, migrations);
    it("ranks like the sqlite-vec index", async () => {
      const dir = mkdtempSync(join(tmpdir(), "mountkit-vec-x-"));
      const ref = await openDatabase({ dataDir: dir, migrations });
      try {
        const stores = [sqlMemoryStore(use.db), sqlMemoryStore(ref)];
        const data = vectors(300, 24, 5);
        for (const s of stores)
          await s.putEmbeddings!({ brainId: "x", items: data.map((vector, i) => ({ kind: "edge" as const, id: `e${i}`, vector })) });
        for (const q of vectors(5, 24, 6)) {
          const [a, b] = await Promise.all(stores.map((s) => s.searchVectors!({ brainId: "x", kind: "edge", vector: q, limit: 10 })));
          expect(a!.map((h) => h.item)).toEqual(b!.map((h) => h.item));
        }
      } finally {
        await ref.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
  ["postgres"],
);
