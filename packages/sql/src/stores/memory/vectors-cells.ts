// Cells for the sqlite-vec index of a large brain (an inverted-file index): once a brain holds `trainAt`
// vectors of a kind, spherical k-means on a sample of them gives `cells` centroids, stored once per brain,
// kind and dimension in `memory_vec_cells`. Each vector then lives in the vec0 partition of its nearest
// centroid, and a search reads the `probes` partitions nearest the query instead of all of them.
//
// The centroids are trained once and never change, so a vector's cell never moves after it is placed.
// The math runs in slices that yield to the event loop, so training never holds a request.
import { type Kysely, sql } from "kysely";
import { norm, type VectorKind } from "./vectors-shared.js";

export interface VectorCellOptions {
  /** Vectors of one kind in a brain from which its cells are trained (default 32,768). */
  trainAt?: number;
  /** Centroids per brain, kind and dimension (default 256). */
  cells?: number;
  /** Cells a search reads, nearest to the query first (default 24). */
  probes?: number;
}

export const CELL_DEFAULTS = { trainAt: 32_768, cells: 256, probes: 24 } as const;

/** Centroids of one brain, kind and dimension: `count` unit vectors of `dims`, row after row. */
export interface Centroids {
  count: number;
  dims: number;
  data: Float32Array;
}

const SAMPLE_PER_CELL = 32;
const ITERATIONS = 8;
/** Multiply-adds a slice of k-means does before it yields to the event loop (about 10-20 ms). */
export const SLICE_WORK = 20_000_000;

/** Lets the event loop run between slices of background work. */
export const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A float32 little-endian blob (how vec0 answers an embedding, and how centroids are stored) as numbers. */
export function floats(blob: Uint8Array): Float32Array {
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  return Float32Array.from({ length: blob.byteLength / 4 }, (_, i) => view.getFloat32(i * 4, true));
}

/** The unit vector of `v` as float32 (null for a zero or non-finite vector). */
export function unit(v: ArrayLike<number>): Float32Array | null {
  const n = norm(v);
  if (!Number.isFinite(n) || n === 0) return null;
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! / n;
  return out;
}

/** The `n` centroids nearest `v` (largest dot product first). */
export function nearestCells(c: Centroids, v: Float32Array, n: number): number[] {
  const scores = new Float64Array(c.count);
  for (let k = 0; k < c.count; k++) {
    let dot = 0;
    const o = k * c.dims;
    for (let i = 0; i < c.dims; i++) dot += c.data[o + i]! * v[i]!;
    scores[k] = dot;
  }
  return Array.from({ length: c.count }, (_, k) => k)
    .sort((a, b) => scores[b]! - scores[a]! || a - b)
    .slice(0, n);
}

/** The centroid nearest `v`, and its dot product with `v`. */
function nearest(c: Centroids, v: Float32Array): { cell: number; dot: number } {
  const { data, dims } = c;
  let cell = 0;
  let best = -Infinity;
  for (let k = 0, o = 0; k < c.count; k++, o += dims) {
    let dot = 0;
    for (let i = 0; i < dims; i++) dot += data[o + i]! * v[i]!;
    if (dot > best) {
      best = dot;
      cell = k;
    }
  }
  return { cell, dot: best };
}

/** The centroid nearest `v`. */
export const nearestCell = (c: Centroids, v: Float32Array) => nearest(c, v).cell;

/** Deterministic generator for the initial centroids, so one sample always trains the same cells. */
function generator(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

/**
 * Spherical k-means over `sample` (unit vectors of one dimension): `count` centroids, or fewer when the
 * sample is smaller. An empty cell takes the sample vector farthest from its own centroid.
 */
export async function trainCentroids(sample: Float32Array[], count: number): Promise<Centroids> {
  const dims = sample[0]!.length;
  const k = Math.max(1, Math.min(count, sample.length));
  const random = generator(sample.length * 31 + dims);
  const picked = new Set<number>();
  while (picked.size < k) picked.add(Math.floor(random() * sample.length));
  const data = new Float32Array(k * dims);
  let slot = 0;
  for (const s of picked) data.set(sample[s]!, slot++ * dims);
  const centroids: Centroids = { count: k, dims, data };
  const rows = Math.max(1, Math.floor(SLICE_WORK / (k * dims)));
  const assigned = new Int32Array(sample.length);
  const similarity = new Float64Array(sample.length);
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    for (let start = 0; start < sample.length; start += rows) {
      for (let s = start; s < Math.min(sample.length, start + rows); s++) {
        const { cell, dot } = nearest(centroids, sample[s]!);
        assigned[s] = cell;
        similarity[s] = dot;
      }
      await pause();
    }
    const sums = new Float64Array(k * dims);
    const sizes = new Int32Array(k);
    for (let s = 0; s < sample.length; s++) {
      const c = assigned[s]!;
      sizes[c] = sizes[c]! + 1;
      const v = sample[s]!;
      for (let i = 0; i < dims; i++) sums[c * dims + i] = sums[c * dims + i]! + v[i]!;
    }
    const farthest = [...similarity.keys()].sort((a, b) => similarity[a]! - similarity[b]!);
    let spare = 0;
    for (let c = 0; c < k; c++) {
      const mean = sizes[c] ? unit(sums.subarray(c * dims, (c + 1) * dims)) : null;
      data.set(mean ?? sample[farthest[spare++ % farthest.length]!]!, c * dims);
    }
  }
  return centroids;
}

/**
 * The sample k-means learns from: up to `size` vectors of the brain's kind and dimension, the first in id
 * order (ids are random by default, so that is a uniform sample), read through the primary key in pages
 * with a turn of the event loop between them. At most `size * 8` records are read, so a brain whose other
 * dimension fills its first rows gives a short sample, and no cells (the caller requires a full one).
 */
export async function sampleVectors(db: Kysely<any>, brainId: string, kind: VectorKind, dims: number, size: number) {
  const out: Float32Array[] = [];
  let after = "";
  for (let read = 0; out.length < size && read < size * 8; ) {
    const r = await sql<{ id: string; vector: string }>`
      select id, vector from memory_vectors where brain_id = ${brainId} and kind = ${kind} and id > ${after} order by id limit 500`.execute(
      db,
    );
    for (const row of r.rows) {
      const v = JSON.parse(row.vector) as number[];
      const u = v.length === dims ? unit(v) : null;
      if (u && out.length < size) out.push(u);
    }
    read += r.rows.length;
    if (r.rows.length < 500) break;
    after = r.rows[r.rows.length - 1]!.id;
    await pause();
  }
  return out;
}

export const sampleSize = (cells: number) => cells * SAMPLE_PER_CELL;

/** The stored centroids of each brain, kind and dimension (one row; float32 little-endian blob). */
export function cellStore(db: Kysely<any>) {
  let created: Promise<void> | null = null;
  const toBlob = (a: Float32Array) => {
    const b = Buffer.alloc(a.length * 4);
    for (let i = 0; i < a.length; i++) b.writeFloatLE(a[i]!, i * 4);
    return b;
  };
  const store = {
    /** The table, created once per process outside any transaction (a write's transaction only reads it). */
    ensure(): Promise<void> {
      created ??= sql`create table if not exists memory_vec_cells (
        brain_id text not null, kind text not null, dims integer not null, count integer not null,
        centroids blob not null, created_at text not null, primary key (brain_id, kind, dims))`
        .execute(db)
        .then(
          () => undefined,
          (e) => {
            created = null;
            throw e;
          },
        );
      return created;
    },
    /** The brain's centroids for `kind` and `dims`; null before they are trained (or before the table). */
    async load(trx: Kysely<any>, brainId: string, kind: VectorKind, dims: number): Promise<Centroids | null> {
      const r = await sql<{ count: number; centroids: Uint8Array }>`
        select count, centroids from memory_vec_cells where brain_id = ${brainId} and kind = ${kind} and dims = ${dims}`
        .execute(trx)
        .catch((e: Error) => {
          if (/no such table/.test(e.message)) return { rows: [] };
          throw e;
        });
      const row = r.rows[0];
      return row ? { count: Number(row.count), dims, data: floats(row.centroids) } : null;
    },
    /** Stores `c` unless another process stored its own first; answers the centroids that stand. */
    async save(brainId: string, kind: VectorKind, c: Centroids): Promise<Centroids> {
      await store.ensure();
      await sql`insert into memory_vec_cells (brain_id, kind, dims, count, centroids, created_at)
        values (${brainId}, ${kind}, ${c.dims}, ${c.count}, ${toBlob(c.data)}, ${new Date().toISOString()})
        on conflict do nothing`.execute(db);
      return (await store.load(db, brainId, kind, c.dims))!;
    },
  };
  return store;
}
