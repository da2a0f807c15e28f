// The sqlite-vec index of the SQL memory store's embeddings: each vector is also kept in a vec0 table (one
// per kind and dimension, partitioned by brain, cosine distance) keyed by its `memory_vectors` rowid, and
// a search is a k-nearest query inside SQLite.
import type { SearchHit } from "@mountkit/memory";
import { type Kysely, sql } from "kysely";
import { indexable, type VectorIndex, type VectorItem, type VectorKind } from "./memory-vectors-shared.js";

/** The vec0 table holding `kind` vectors of `dims` dimensions (cosine distance, partitioned by brain). */
const vecTableName = (kind: VectorKind, dims: number) => `memory_vec_${kind}_${dims}`;

export function vec0Index(db: Kysely<any>): VectorIndex {
  const known = new Set<string>();

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

  /** The recorded rows of `items` (by the primary key: one kind at a time, ids in chunks). */
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

  return {
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
     * each dimension's new rows go in with one multi-row insert per chunk.
     */
    async afterWrite(trx, brainId, items, replaced) {
      const rowids = new Map<string, number>();
      for (const row of await recorded(trx, brainId, items)) rowids.set(`${row.kind}:${row.id}`, Number(row.rowid));
      const byTable = new Map<string, Array<{ rowid: number; vector: number[] }>>();
      for (const it of items) {
        const rowid = rowids.get(`${it.kind}:${it.id}`)!;
        if (replaced.has(`${it.kind}:${it.id}`))
          for (const name of [...known].filter((n) => n.startsWith(`memory_vec_${it.kind}_`)))
            await sql`delete from ${sql.table(name)} where rowid = cast(${rowid} as integer)`.execute(trx);
        if (!indexable(it.vector)) continue;
        const name = vecTableName(it.kind, it.vector.length);
        await ensure(trx, name, it.vector.length);
        const rows = byTable.get(name) ?? [];
        rows.push({ rowid, vector: it.vector });
        byTable.set(name, rows);
      }
      for (const [name, rows] of byTable)
        for (let i = 0; i < rows.length; i += 200) {
          const values = rows.slice(i, i + 200).map((r) => sql`(cast(${r.rowid} as integer), ${brainId}, ${JSON.stringify(r.vector)})`);
          await sql`insert into ${sql.table(name)} (rowid, brain_id, embedding) values ${sql.join(values)}`.execute(trx);
        }
    },

    async search(brainId, kind, vector, limit): Promise<Array<SearchHit<string>>> {
      const name = vecTableName(kind, vector.length);
      if (!(await exists(name))) return [];
      const r = await sql<{ id: string; distance: number }>`
        select v.id, k.distance
        from (select rowid, distance from ${sql.table(name)} where embedding match ${JSON.stringify(vector)} and k = ${limit} and brain_id = ${brainId}) k
        cross join memory_vectors v
        where v.rowid = k.rowid
        order by k.distance, v.id`.execute(db);
      return r.rows.map((row) => ({ item: row.id, score: 1 - Number(row.distance) }));
    },
  };
}
