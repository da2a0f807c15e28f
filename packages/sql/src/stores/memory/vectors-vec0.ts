// The sqlite-vec index of the SQL memory store's embeddings: each vector is also kept in a vec0 table (one
// per kind and dimension, cosine distance) keyed by its `memory_vectors` rowid, and a search is a k-nearest
// query inside SQLite.
//
// The table is partitioned. A brain's vectors start in the partition named by its id, which a search reads
// whole (exact). Once the brain holds `trainAt` vectors of a kind it gets cells (vectors-cells.ts):
// its vectors move, in small transactions, to one partition per nearest centroid (`brain \u001f cell`), new
// ones are placed there directly, and a search reads its `probes` nearest cells plus whatever is still in
// the brain's own partition (rows not moved yet, or written by a process that did not know the cells yet).
// Searches join the record on rowid and brain, so a partition name can never answer for another brain.
import type { SearchHit } from "@mountkit/memory";
import { type Kysely, sql } from "kysely";
import { sqlCount } from "../../limits.js";
import {
  CELL_DEFAULTS,
  type Centroids,
  cellStore,
  floats,
  nearestCell,
  nearestCells,
  pause,
  SLICE_WORK,
  sampleSize,
  sampleVectors,
  trainCentroids,
  unit,
  type VectorCellOptions,
} from "./vectors-cells.js";
import { indexable, type VectorIndex, type VectorItem, type VectorKind } from "./vectors-shared.js";

/** The vec0 table holding `kind` vectors of `dims` dimensions (cosine distance, partitioned by brain and cell). */
const vecTableName = (kind: VectorKind, dims: number) => `memory_vec_${kind}_${dims}`;
/** The partition of one of a brain's cells. */
const cellPartition = (brainId: string, cell: number) => `${brainId}\u001f${cell}`;
/** Rows moved from a brain's own partition to their cells per transaction: about SLICE_WORK multiply-adds. */
const moveBatch = (c: Centroids) => Math.max(20, Math.min(2000, Math.floor(SLICE_WORK / (c.count * c.dims))));
/** How long a failed check waits before it runs again. */
const RETRY_MS = 60_000;

const cellKey = (brainId: string, kind: VectorKind, dims: number) => `${brainId}\u001f${kind}\u001f${dims}`;

/**
 * The cells of the brains of one vec0 index: their centroids, and the background check that trains a
 * brain's cells once it is large enough and moves its rows out of its own partition.
 */
function vec0Cells(db: Kysely<any>, options: VectorCellOptions, exists: (name: string) => Promise<boolean>) {
  const trainAt = Math.max(1, options.trainAt ?? CELL_DEFAULTS.trainAt);
  const cellCount = Math.max(1, options.cells ?? CELL_DEFAULTS.cells);
  /** How many vectors this process puts in a brain's own partition between two counts of the brain. */
  const checkEvery = Math.max(1, Math.min(4096, Math.floor(trainAt / 8)));
  const cells = cellStore(db);
  /** Centroids by brain, kind and dimension once known (they never change). */
  const trained = new Map<string, Centroids>();
  /** Vectors put in a brain's own partition since its last check, by brain and kind. */
  const pending = new Map<string, number>();
  /** Checks running (train, then move), by brain, kind and dimension. */
  const working = new Map<string, Promise<unknown>>();

  async function centroidsOf(trx: Kysely<any>, brainId: string, kind: VectorKind, dims: number) {
    const key = cellKey(brainId, kind, dims);
    const hit = trained.get(key);
    if (hit) return hit;
    const c = await cells.load(trx, brainId, kind, dims);
    if (c) trained.set(key, c);
    return c;
  }

  /** Moves the rows still in the brain's own partition to their cells, a small transaction at a time. */
  async function move(brainId: string, kind: VectorKind, c: Centroids) {
    const name = vecTableName(kind, c.dims);
    if (!(await exists(name))) return;
    const batch = moveBatch(c);
    for (;;) {
      const moved = await db.transaction().execute(async (trx) => {
        const r = await sql<{ rowid: number; embedding: Uint8Array }>`
          select rowid, embedding from ${sql.table(name)} where brain_id = ${brainId} limit ${sqlCount(batch)}`.execute(trx);
        if (!r.rows.length) return 0;
        // one delete per rowid: vec0 looks each up, where `rowid in (...)` scans the table
        for (const row of r.rows) await sql`delete from ${sql.table(name)} where rowid = cast(${row.rowid} as integer)`.execute(trx);
        const values = r.rows.map((row) => {
          // a vector float32 rounds to zero has no direction: any cell holds it
          const u = unit(floats(row.embedding));
          const cell = u ? nearestCell(c, u) : 0;
          return sql`(cast(${row.rowid} as integer), ${cellPartition(brainId, cell)}, ${row.embedding})`;
        });
        for (let i = 0; i < values.length; i += 200)
          await sql`insert into ${sql.table(name)} (rowid, brain_id, embedding) values ${sql.join(values.slice(i, i + 200))}`.execute(trx);
        return r.rows.length;
      });
      if (moved < batch) return;
      await pause();
    }
  }

  /**
   * In the background: trains the brain's cells for `kind` and `dims` once it holds `trainAt` vectors of the
   * kind, then moves what is left in its own partition. One at a time per brain, kind and dimension; a
   * failure is dropped and the next check tries again.
   */
  function check(brainId: string, kind: VectorKind, dims: number) {
    const key = cellKey(brainId, kind, dims);
    // an id holding the separator could name another brain's cell: such a brain stays in one partition
    if (working.has(key) || brainId.includes("\u001f")) return;
    const run = (async () => {
      let c = await centroidsOf(db, brainId, kind, dims);
      if (!c) {
        const r = await sql<{ n: number }>`select count(*) as n from memory_vectors where brain_id = ${brainId} and kind = ${kind}`.execute(
          db,
        );
        if (Number(r.rows[0]?.n) < trainAt) return;
        // the count is the kind's, every dimension together: only a full sample of this one trains cells
        const size = Math.min(sampleSize(cellCount), trainAt);
        const sample = await sampleVectors(db, brainId, kind, dims, size);
        if (sample.length < size) return;
        await cells.ensure();
        c = await cells.save(brainId, kind, await trainCentroids(sample, cellCount));
        trained.set(key, c);
      }
      await move(brainId, kind, c);
    })().then(
      () => working.delete(key),
      (e: unknown) => {
        // busy past the timeout: try again later (the timer never keeps a process up); a closed database
        // ends the checks
        working.delete(key);
        if (!/destroyed/.test(String((e as Error)?.message))) setTimeout(() => check(brainId, kind, dims), RETRY_MS).unref();
      },
    );
    working.set(key, run);
  }

  return {
    ensure: () => cells.ensure(),
    centroidsOf,
    check,
    /** Counts a vector put in the brain's own partition; every `checkEvery` of them the brain is checked. */
    unplaced(brainId: string, kind: VectorKind, dims: number) {
      const counter = `${brainId}\u001f${kind}`;
      const n = (pending.get(counter) ?? 0) + 1;
      pending.set(counter, n >= checkEvery ? 0 : n);
      if (n >= checkEvery) check(brainId, kind, dims);
    },
  };
}

/** The rowids of `items` already recorded (by the primary key: one kind at a time, ids in chunks). */
async function recorded(trx: Kysely<any>, brainId: string, items: VectorItem[]) {
  const out: Array<{ rowid: number; kind: string; id: string }> = [];
  for (const kind of ["edge", "episode"] as const) {
    const ids = [...new Set(items.filter((it) => it.kind === kind).map((it) => it.id))];
    for (let i = 0; i < ids.length; i += 500) {
      const r = await sql<{ rowid: number; kind: string; id: string }>`
        select rowid, kind, id from memory_vectors where brain_id = ${brainId} and kind = ${kind} and id in (${sql.join(ids.slice(i, i + 500))})`.execute(
        trx,
      );
      out.push(...r.rows);
    }
  }
  return out;
}

export function vec0Index(db: Kysely<any>, options: VectorCellOptions = {}): VectorIndex {
  const known = new Set<string>();
  const probes = Math.max(1, options.probes ?? CELL_DEFAULTS.probes);
  const cells = vec0Cells(db, options, (name) => exists(name));
  /** Searches that already asked for a check, by brain, kind and dimension. */
  const asked = new Set<string>();

  async function ensure(trx: Kysely<any>, name: string, dims: number) {
    if (known.has(name)) return;
    await sql`create virtual table if not exists ${sql.table(name)} using vec0(brain_id text partition key, embedding float[${sql.raw(String(dims))}] distance_metric=cosine)`.execute(
      trx,
    );
    known.add(name);
  }

  async function exists(name: string): Promise<boolean> {
    if (known.has(name)) return true;
    const r = await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'table' and name = ${name}`.execute(db);
    if (!Number(r.rows[0]?.n)) return false;
    known.add(name);
    return true;
  }

  return {
    // outside the write's transaction: the table of centroids, so a write can read it; optional, a write goes
    // on without it (its vectors stay in the brain's own partition)
    prepare: () => cells.ensure().catch(() => undefined),

    async beforeWrite(trx, brainId, items) {
      // tables of other dimensions created by other processes: learn them so a re-put clears them
      const r = await sql<{
        name: string;
      }>`select name from sqlite_master where type = 'table' and name like 'memory_vec_%' and sql like '%vec0%'`.execute(trx);
      for (const row of r.rows) known.add(row.name);
      return new Set((await recorded(trx, brainId, items)).map((r) => `${r.kind}:${r.id}`));
    },

    /**
     * The index rows of `items` (same transaction as the record), keyed by the record's rowid: a vector put
     * before leaves every index of its kind first (it may change dimension with another embedder), then
     * each new row goes to its nearest cell when the brain has cells (else to the brain's own partition),
     * with one multi-row insert per table and chunk.
     */
    async afterWrite(trx, brainId, items, replaced) {
      const rowids = new Map<string, number>();
      for (const row of await recorded(trx, brainId, items)) rowids.set(`${row.kind}:${row.id}`, Number(row.rowid));
      const byTable = new Map<string, Array<{ rowid: number; partition: string; vector: number[] }>>();
      const centroids = new Map<string, Centroids | null>();
      for (const it of items) {
        const rowid = rowids.get(`${it.kind}:${it.id}`)!;
        if (replaced.has(`${it.kind}:${it.id}`))
          for (const name of [...known].filter((n) => n.startsWith(`memory_vec_${it.kind}_`)))
            await sql`delete from ${sql.table(name)} where rowid = cast(${rowid} as integer)`.execute(trx);
        if (!indexable(it.vector)) continue;
        const dims = it.vector.length;
        const name = vecTableName(it.kind, dims);
        await ensure(trx, name, dims);
        const key = cellKey(brainId, it.kind, dims);
        if (!centroids.has(key)) centroids.set(key, await cells.centroidsOf(trx, brainId, it.kind, dims));
        const c = centroids.get(key);
        let partition = brainId;
        if (c) partition = cellPartition(brainId, nearestCell(c, unit(it.vector) ?? new Float32Array(dims)));
        // counted toward the brain's next check, which runs after this transaction
        else cells.unplaced(brainId, it.kind, dims);
        const rows = byTable.get(name) ?? [];
        rows.push({ rowid, partition, vector: it.vector });
        byTable.set(name, rows);
      }
      for (const [name, rows] of byTable)
        for (let i = 0; i < rows.length; i += 200) {
          const values = rows.slice(i, i + 200).map((r) => sql`(cast(${r.rowid} as integer), ${r.partition}, ${JSON.stringify(r.vector)})`);
          await sql`insert into ${sql.table(name)} (rowid, brain_id, embedding) values ${sql.join(values)}`.execute(trx);
        }
    },

    async search(brainId, kind, vector, limit): Promise<Array<SearchHit<string>>> {
      const name = vecTableName(kind, vector.length);
      if (!(await exists(name))) return [];
      const key = cellKey(brainId, kind, vector.length);
      // the first search of a brain in this process checks it: an index from before cells, or rows a
      // move left behind
      if (!asked.has(key)) {
        asked.add(key);
        cells.check(brainId, kind, vector.length);
      }
      const c = await cells.centroidsOf(db, brainId, kind, vector.length);
      const partitions = [brainId];
      if (c) for (const cell of nearestCells(c, unit(vector)!, Math.min(probes, c.count))) partitions.push(cellPartition(brainId, cell));
      // k applies per partition: the union is ordered and cut here
      const r = await sql<{ id: string; distance: number }>`
        select v.id, k.distance
        from (select rowid, distance from ${sql.table(name)}
              where embedding match ${JSON.stringify(vector)} and k = ${limit} and brain_id in (${sql.join(partitions)})) k
        cross join memory_vectors v
        where v.rowid = k.rowid and v.brain_id = ${brainId} and v.kind = ${kind}
        order by k.distance, v.id
        limit ${sqlCount(limit)}`.execute(db);
      return r.rows.map((row) => ({ item: row.id, score: 1 - Number(row.distance) }));
    },
  };
}
