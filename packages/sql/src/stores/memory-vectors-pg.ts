// The pgvector index of the SQL memory store's embeddings (PostgreSQL with the `vector` extension).
// `memory_vectors` gains an `embedding vector` column (no fixed dimension: each embedder has its own),
// filled in the same transaction as the JSON record, and one HNSW index per kind and dimension: an
// expression index over `embedding::vector(d)` (`halfvec(d)` past 2,000 dimensions, pgvector's limit for
// `vector`), partial on the kind and the dimension, so vectors of several embedders live side by side.
// A search orders by cosine distance inside PostgreSQL. Filtered by brain, an HNSW scan may stop short of
// `limit` rows of that brain; pgvector 0.8's iterative scan goes on until it has them. Past 4,000
// dimensions there is no index and the order is an exact scan, still inside PostgreSQL.
import type { SearchHit } from "@mountkit/memory";
import { type Kysely, type RawBuilder, sql } from "kysely";
import { indexable, type VectorIndex, type VectorItem, type VectorKind } from "./memory-vectors-shared.js";

/** The cast an index and a search use for `dims` dimensions; null: too many to index. */
function castFor(schema: string, dims: number): { type: RawBuilder<unknown>; ops: RawBuilder<unknown> } | null {
  const s = sql.id(schema);
  if (dims <= 2000) return { type: sql`${s}.vector(${sql.lit(dims)})`, ops: sql`${s}.vector_cosine_ops` };
  if (dims <= 4000) return { type: sql`${s}.halfvec(${sql.lit(dims)})`, ops: sql`${s}.halfvec_cosine_ops` };
  return null;
}

/** The HNSW index of `kind` vectors of `dims` dimensions. */
export const hnswIndexName = (kind: VectorKind, dims: number) => `memory_vectors_${kind}_${dims}_hnsw`;

/** Candidates an HNSW search keeps (pgvector's default is 40): more finds more of the true nearest. */
const efSearch = (limit: number) => Math.min(1000, Math.max(100, limit * 2));

interface Extension {
  schema: string;
  /** pgvector 0.8+: iterative index scans. */
  iterative: boolean;
}

export function pgvectorIndex(db: Kysely<any>): VectorIndex {
  let ready: Promise<Extension> | null = null;
  const indexed = new Set<string>();

  /** Once per process: where the extension lives, and the column (added and filled when missing). */
  async function setup(): Promise<Extension> {
    const ext = await sql<{ schema: string; version: string }>`
      select n.nspname as schema, e.extversion as version
      from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'vector'`.execute(db);
    const row = ext.rows[0];
    if (!row) throw new Error("the pgvector extension is no longer installed");
    const [major = 0, minor = 0] = row.version.split(".").map(Number);
    const found = await sql<{ n: number }>`
      select count(*)::int as n from information_schema.columns
      where table_schema = current_schema() and table_name = 'memory_vectors' and column_name = 'embedding'`.execute(db);
    if (!found.rows[0]?.n) {
      await sql`alter table memory_vectors add column if not exists embedding ${sql.id(row.schema)}.vector`.execute(db);
      // vectors recorded before pgvector was there: their JSON is the vector's text form
      await sql`update memory_vectors set embedding = cast(vector as ${sql.id(row.schema)}.vector)
        where embedding is null and vector ~ '^\\[[-+0-9.eE,]+\\]$'`.execute(db);
      await sql`update memory_vectors set embedding = null where ${sql.id(row.schema)}.vector_norm(embedding) = 0`.execute(db);
    }
    return { schema: row.schema, iterative: major > 0 || minor >= 8 };
  }

  const extension = () => {
    ready ??= setup().catch((e) => {
      ready = null;
      throw e;
    });
    return ready;
  };

  /** Creates the index of one kind and dimension once (another process may be creating it too). */
  async function ensureIndex(ext: Extension, kind: VectorKind, dims: number) {
    const name = hnswIndexName(kind, dims);
    if (indexed.has(name)) return;
    const cast = castFor(ext.schema, dims);
    if (cast) {
      const create = sql`create index if not exists ${sql.id(name)} on memory_vectors using hnsw ((embedding::${cast.type}) ${cast.ops})
        where kind = ${sql.lit(kind)} and ${sql.id(ext.schema)}.vector_dims(embedding) = ${sql.lit(dims)}`;
      try {
        await create.execute(db);
      } catch (e) {
        const r = await sql<{ oid: unknown }>`select to_regclass(${name}) as oid`.execute(db);
        if (!r.rows[0]?.oid) throw e;
      }
    }
    indexed.add(name);
  }

  return {
    async prepare(items: VectorItem[]) {
      const ext = await extension();
      for (const it of items) if (indexable(it.vector)) await ensureIndex(ext, it.kind, it.vector.length);
    },

    async afterWrite(trx, brainId, items) {
      const ext = await extension();
      for (const kind of ["edge", "episode"] as const) {
        const all = items.filter((it) => it.kind === kind);
        if (!all.length) continue;
        const ok = all.filter((it) => indexable(it.vector)).map((it) => it.id);
        await sql`update memory_vectors
          set embedding = case when id = any(${ok}::text[]) then cast(vector as ${sql.id(ext.schema)}.vector) end
          where brain_id = ${brainId} and kind = ${kind} and id = any(${all.map((it) => it.id)}::text[])`.execute(trx);
      }
    },

    async search(brainId, kind, vector, limit): Promise<Array<SearchHit<string>>> {
      const ext = await extension();
      const s = sql.id(ext.schema);
      const cast = castFor(ext.schema, vector.length);
      const column = cast ? sql`(embedding::${cast.type})` : sql`embedding`;
      const query = sql`cast(${JSON.stringify(vector)} as ${cast ? cast.type : sql`${s}.vector`})`;
      const distance = sql`${column} operator(${s}.<=>) ${query}`;
      return db.transaction().execute(async (trx) => {
        await sql`select set_config('hnsw.ef_search', ${String(efSearch(limit))}, true)`.execute(trx);
        if (ext.iterative) await sql`select set_config('hnsw.iterative_scan', 'relaxed_order', true)`.execute(trx);
        const r = await sql<{ id: string; distance: number }>`
          select id, ${distance} as distance from memory_vectors
          where brain_id = ${brainId} and kind = ${sql.lit(kind)} and ${s}.vector_dims(embedding) = ${sql.lit(vector.length)}
          order by ${distance}
          limit ${limit}`.execute(trx);
        return r.rows.map((row) => ({ item: row.id, score: 1 - Number(row.distance) }));
      });
    },
  };
}
