// The pgvector index of the SQL memory store's embeddings (PostgreSQL with the `vector` extension).
//
// - `memory_vectors` gains an `embedding vector` column (no fixed dimension: each embedder has its own),
//   kept by a trigger from the JSON `vector` column, so every writer keeps it right: a process opened with
//   `vectorIndex: "off"`, an older release, a direct SQL fix. A vector pgvector cannot hold (zero, too many
//   dimensions, out of range) gets a null embedding and stays out of the index, as on SQLite. The column,
//   the trigger and the filling of existing rows are one transaction: all or nothing, retried by the next
//   process when it fails.
// - One HNSW index per kind and dimension: an expression index over `embedding::vector(d)` (`halfvec(d)`
//   from 2,001 to 4,000 dimensions; pgvector 0.7+), partial on the kind and the dimension, so vectors of
//   several embedders live side by side. It is built concurrently, in the background, when a dimension is
//   first written: writers are never blocked, and searches are exact until it is ready.
// - A search orders by cosine distance inside PostgreSQL. Filtered by brain, an HNSW scan may stop short of
//   `limit` rows of that brain; pgvector 0.8's iterative scan goes on until it has them (before 0.8 there is
//   no index: the order is exact), and a search that still comes back short is run again exactly.
import type { SearchHit } from "@mountkit/memory";
import { type Kysely, type RawBuilder, sql } from "kysely";
import { refreshStatistics } from "./pg-statistics.js";
import { indexable, type VectorIndex, type VectorItem, type VectorKind } from "./vectors-shared.js";

interface Version {
  major: number;
  minor: number;
}

interface Extension extends Version {
  schema: string;
}

const parseVersion = (text: string): Version => {
  const [major = 0, minor = 0] = text.split(".").map(Number);
  return { major, minor };
};

const atLeast = (v: Version, major: number, minor: number) => v.major > major || (v.major === major && v.minor >= minor);

/**
 * Whether the memory store may use pgvector (0.5+): installed in the database, or offered by the server
 * (the store creates it on its first vector when the role may, and scans otherwise). False when the
 * database cannot be asked: the memory store then scores vectors by a scan (the fallback).
 */
export async function detectPgvector(db: Kysely<any>): Promise<boolean> {
  try {
    const r = await sql<{ version: string | null }>`
      select coalesce((select extversion from pg_extension where extname = 'vector'),
                      (select default_version from pg_available_extensions where name = 'vector')) as version`.execute(db);
    return atLeast(parseVersion(r.rows[0]?.version ?? "0.0"), 0, 5);
  } catch {
    return false;
  }
}

/** The cast the index and an indexed search use for `dims` dimensions; null: no index (exact order). */
function castFor(ext: Extension, dims: number): RawBuilder<unknown> | null {
  if (!atLeast(ext, 0, 8)) return null;
  const s = sql.id(ext.schema);
  if (dims <= 2000) return sql`${s}.vector(${sql.lit(dims)})`;
  if (dims <= 4000) return sql`${s}.halfvec(${sql.lit(dims)})`;
  return null;
}

/** The HNSW index of `kind` vectors of `dims` dimensions. */
const hnswIndexName = (kind: VectorKind, dims: number) => `memory_vectors_${kind}_${dims}_hnsw`;

/** Candidates an HNSW search keeps (pgvector's default is 40): more finds more of the true nearest. */
const efSearch = (limit: number) => Math.min(1000, Math.max(100, limit * 2));

/** How long a failed setup or index build waits before it is tried again. */
const RETRY_BUILD_MS = 60_000;

/** Column, trigger and existing rows, in one transaction (`lock_timeout` keeps it from queueing every reader). */
async function addEmbeddingColumn(db: Kysely<any>, ext: Extension) {
  const s = sql.id(ext.schema);
  await db.transaction().execute(async (trx) => {
    await sql`set local lock_timeout = '5s'`.execute(trx);
    await sql`alter table memory_vectors add column if not exists embedding ${s}.vector`.execute(trx);
    // the JSON text of finite numbers is pgvector's text form; a vector it cannot hold gets no embedding
    await sql`create or replace function memory_vectors_embedding() returns trigger language plpgsql as $fn$
      declare e ${s}.vector;
      begin
        new.embedding := null;
        if new.vector ~ '^\\[[-+0-9.eE,]+\\]$' then
          begin
            e := cast(new.vector as ${s}.vector);
            if ${s}.vector_norm(e) > 0 then
              if ${s}.vector_dims(e) > 2000 then perform cast(e as ${s}.halfvec); end if;
              new.embedding := e;
            end if;
          exception when others then new.embedding := null;
          end;
        end if;
        return new;
      end $fn$`.execute(trx);
    await sql`drop trigger if exists memory_vectors_embedding on memory_vectors`.execute(trx);
    await sql`create trigger memory_vectors_embedding before insert or update of vector on memory_vectors
      for each row execute function memory_vectors_embedding()`.execute(trx);
    await sql`update memory_vectors set vector = vector`.execute(trx);
  });
}

/** Once per process: the extension (created when the server offers it and the role may) and the column. */
async function setup(db: Kysely<any>): Promise<Extension> {
  const read = () =>
    sql<{ schema: string; version: string }>`
      select n.nspname as schema, e.extversion as version
      from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'vector'`.execute(db);
  let row = (await read()).rows[0];
  if (!row) {
    // another process may create it at the same moment: its error is settled by reading again
    await sql`create extension if not exists vector`.execute(db).catch(() => {});
    row = (await read()).rows[0];
    if (!row) throw new Error("the pgvector extension is not installed in this database, and this role cannot create it");
  }
  const ext = { schema: row.schema, ...parseVersion(row.version) };
  const found = await sql<{ n: number }>`
    select count(*)::int as n from pg_trigger
    where tgrelid = to_regclass('memory_vectors') and tgname = 'memory_vectors_embedding'`.execute(db);
  if (!found.rows[0]?.n) await addEmbeddingColumn(db, ext);
  return ext;
}

export function pgvectorIndex(db: Kysely<any>): VectorIndex {
  let ready: Promise<Extension> | null = null;
  /** Index builds started by this process (name → done), and when a failed one may be tried again. */
  const builds = new Map<string, Promise<void>>();
  const retryAt = new Map<string, number>();

  /** After a failed setup, writes and searches go on without the index, and setup is tried again after a while. */
  let failedAt = Number.NEGATIVE_INFINITY;
  const extension = () => {
    if (!ready && Date.now() - failedAt < RETRY_BUILD_MS) return Promise.reject(new Error("pgvector setup failed recently"));
    ready ??= setup(db).catch((e) => {
      ready = null;
      failedAt = Date.now();
      throw e;
    });
    return ready;
  };

  /**
   * Builds the index of one kind and dimension, concurrently (writers go on) and in the background. Another
   * process may be building it too; a build that failed leaves an invalid index, dropped before the retry.
   */
  async function build(ext: Extension, name: string, cast: RawBuilder<unknown>, kind: VectorKind, dims: number) {
    const s = sql.id(ext.schema);
    const ops = dims <= 2000 ? sql`${s}.vector_cosine_ops` : sql`${s}.halfvec_cosine_ops`;
    const invalid = await sql<{ n: number }>`
      select count(*)::int as n from pg_index where indexrelid = to_regclass(${name}) and not indisvalid`.execute(db);
    if (invalid.rows[0]?.n) await sql`drop index concurrently if exists ${sql.id(name)}`.execute(db);
    await sql`create index concurrently if not exists ${sql.id(name)} on memory_vectors using hnsw ((embedding::${cast}) ${ops})
      where kind = ${sql.lit(kind)} and ${s}.vector_dims(embedding) = ${sql.lit(dims)}`.execute(db);
  }

  function ensureIndex(ext: Extension, kind: VectorKind, dims: number) {
    const cast = castFor(ext, dims);
    const name = hnswIndexName(kind, dims);
    if (!cast || builds.has(name) || (retryAt.get(name) ?? 0) > Date.now()) return;
    const done = build(ext, name, cast, kind, dims).catch(() => {
      builds.delete(name);
      retryAt.set(name, Date.now() + RETRY_BUILD_MS);
    });
    builds.set(name, done);
  }

  async function nearest(ext: Extension, brainId: string, kind: VectorKind, vector: number[], limit: number, exact: boolean) {
    const s = sql.id(ext.schema);
    const cast = exact ? null : castFor(ext, vector.length);
    // the uncast column matches no index: the brain's rows by primary key, then an exact sort
    const column = cast ? sql`(embedding::${cast})` : sql`embedding`;
    const distance = sql`${column} operator(${s}.<=>) cast(${JSON.stringify(vector)} as ${cast ?? sql`${s}.vector`})`;
    return db.transaction().execute(async (trx) => {
      if (cast)
        await sql`select set_config('hnsw.ef_search', ${String(efSearch(limit))}, true), set_config('hnsw.iterative_scan', 'relaxed_order', true)`.execute(
          trx,
        );
      const r = await sql<{ id: string; distance: number }>`
        select id, ${distance} as distance from memory_vectors
        where brain_id = ${brainId} and kind = ${sql.lit(kind)} and ${s}.vector_dims(embedding) = ${sql.lit(vector.length)}
        order by ${distance}
        limit ${limit}`.execute(trx);
      return r.rows.map((row) => ({ item: row.id, score: 1 - Number(row.distance) }));
    });
  }

  return {
    async prepare(items: VectorItem[]) {
      const ext = await extension();
      for (const it of items) if (indexable(it.vector)) ensureIndex(ext, it.kind, it.vector.length);
    },

    async search(brainId, kind, vector, limit): Promise<Array<SearchHit<string>>> {
      const ext = await extension();
      // with current statistics the planner reads a small brain's few rows exactly (primary key, then sort)
      // and a large brain's nearest from the HNSW index
      void refreshStatistics(db, "memory_vectors");
      const hits = await nearest(ext, brainId, kind, vector, limit, false);
      // short: the brain has fewer vectors, or the index scan gave up first (hnsw.max_scan_tuples)
      if (hits.length < limit && castFor(ext, vector.length)) return nearest(ext, brainId, kind, vector, limit, true);
      return hits;
    },
  };
}
