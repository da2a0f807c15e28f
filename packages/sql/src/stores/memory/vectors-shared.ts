// What the SQL memory store's vector indexes share: the item shape, which vectors an index can hold, and
// the interface vectors.ts drives (sqlite-vec in vectors-vec0.ts, pgvector in
// vectors-pg.ts).
import type { SearchHit } from "@mountkit/memory";
import type { Kysely } from "kysely";

export type VectorKind = "edge" | "episode";
export type VectorItem = { kind: VectorKind; id: string; vector: number[] };

export const norm = (v: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  return Math.sqrt(s);
};

/** Cosine is undefined for a zero (or non-finite) vector: it stays out of an index, and the scan scores it 0. */
export const indexable = (v: number[]) => v.length > 0 && v.every(Number.isFinite) && norm(v) > 0;

export interface VectorIndex {
  /**
   * Outside the write's transaction, before it (pgvector: the column, and the HNSW index each dimension
   * needs). When it fails the record is still written, and searches scan until the index is back.
   */
  prepare?(items: VectorItem[]): Promise<void>;
  /** In the write's transaction, before the records are written: the keys (`kind:id`) already recorded. */
  beforeWrite?(trx: Kysely<any>, brainId: string, items: VectorItem[]): Promise<Set<string>>;
  /** In the write's transaction, after the records are written (`replaced`: what beforeWrite answered). */
  afterWrite?(trx: Kysely<any>, brainId: string, items: VectorItem[], replaced: Set<string>): Promise<void>;
  /** The `limit` nearest `kind` vectors of the brain by cosine, for a query vector that is indexable. */
  search(brainId: string, kind: VectorKind, vector: number[], limit: number): Promise<Array<SearchHit<string>>>;
}
