// Embeddings of the SQL memory store. `memory_vectors` (JSON, every engine) is the record. Where a vector
// index is available each vector is also indexed in the record's transaction, and a search is a
// k-nearest query inside the database: sqlite-vec's vec0 tables on SQLite (vectors-vec0.ts),
// pgvector's HNSW on PostgreSQL (vectors-pg.ts). Elsewhere a search loads the brain's vectors and
// scores cosine in process: the fallback, exact and portable, linear in the brain's size.
import type { SearchHit } from "@mountkit/memory";
import type { Kysely } from "kysely";
import type { SqlDatabase } from "../../db.js";
import type { VectorCellOptions } from "./vectors-cells.js";
import { pgvectorIndex } from "./vectors-pg.js";
import { indexable, norm, type VectorIndex, type VectorItem, type VectorKind } from "./vectors-shared.js";
import { vec0Index } from "./vectors-vec0.js";

/** Cosine similarity over the common prefix (the fallback's score; 0 when either vector is zero). */
function cosine(q: Float64Array, qn: number, v: number[]): number {
  let dot = 0;
  let vn = 0;
  for (let i = 0; i < Math.min(v.length, q.length); i++) {
    dot += v[i]! * q[i]!;
    vn += v[i]! * v[i]!;
  }
  return qn && vn ? dot / (qn * Math.sqrt(vn)) : 0;
}

const byScore = (a: SearchHit<string>, b: SearchHit<string>) => b.score - a.score || (a.item < b.item ? -1 : 1);

function vectorIndex(database: SqlDatabase, cells: VectorCellOptions): VectorIndex | null {
  const db = database.kysely as Kysely<any>;
  if (database.vectorIndex === "sqlite-vec") return vec0Index(db, cells);
  if (database.vectorIndex === "pgvector") return pgvectorIndex(db);
  return null;
}

/** `cells`: when and how a large brain's sqlite-vec index is split into cells (vectors-cells.ts). */
export function sqlVectors(database: SqlDatabase, cells: VectorCellOptions = {}) {
  const db = database.kysely as Kysely<any>;
  const index = vectorIndex(database, cells);

  /** The fallback: every vector of the brain's kind, scored in process. */
  async function scan(brainId: string, kind: VectorKind, vector: number[], limit: number) {
    const q = Float64Array.from(vector);
    const qn = norm(q);
    const rows = await db
      .selectFrom("memory_vectors")
      .select(["id", "vector"])
      .where("brain_id", "=", brainId)
      .where("kind", "=", kind)
      .execute();
    return rows
      .map((r) => ({ item: r.id as string, score: cosine(q, qn, JSON.parse(r.vector)) }))
      .sort(byScore)
      .slice(0, limit);
  }

  return {
    async put(brainId: string, given: VectorItem[]) {
      // the last vector given for an item wins, as if put one after the other
      const items = [...new Map(given.map((it) => [`${it.kind}:${it.id}`, it])).values()];
      if (!items.length) return;
      // an index that cannot be prepared (pgvector: a role that may not alter the table) leaves the record
      // to be written alone; searches scan meanwhile
      const prepared = await (index?.prepare?.(items) ?? Promise.resolve()).then(
        () => true,
        () => false,
      );
      await db.transaction().execute(async (trx) => {
        const replaced = (prepared && (await index?.beforeWrite?.(trx, brainId, items))) || new Set<string>();
        await trx
          .insertInto("memory_vectors")
          .values(items.map((it) => ({ brain_id: brainId, kind: it.kind, id: it.id, vector: JSON.stringify(it.vector) })))
          .onConflict((oc) => oc.columns(["brain_id", "kind", "id"]).doUpdateSet((eb) => ({ vector: eb.ref("excluded.vector") })))
          .execute();
        if (prepared) await index?.afterWrite?.(trx, brainId, items, replaced);
      });
    },

    async search(brainId: string, kind: VectorKind, vector: number[], limit: number): Promise<Array<SearchHit<string>>> {
      if (limit <= 0) return [];
      if (index && indexable(vector)) {
        const hits = await index.search(brainId, kind, vector, limit).catch(() => null);
        if (hits) return hits.sort(byScore);
      }
      return scan(brainId, kind, vector, limit);
    },
  };
}
