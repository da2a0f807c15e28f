// Embeddings of the SQL memory store. `memory_vectors` (JSON, every engine) is the record; where sqlite-vec
// is loaded, each vector is also kept in a vec0 index (one per kind and dimension, partitioned by brain)
// and a search is a k-nearest query inside SQLite. Elsewhere a search loads the brain's vectors and scores
// cosine in process: the fallback, exact and portable, linear in the brain's size.
import type { SearchHit } from "@mountkit/memory";
import { type Kysely, sql } from "kysely";
import type { SqlDatabase } from "../db.js";

type VectorKind = "edge" | "episode";
type Item = { kind: VectorKind; id: string; vector: number[] };

/** The vec0 table holding `kind` vectors of `dims` dimensions (cosine distance, partitioned by brain). */
export const vecTableName = (kind: VectorKind, dims: number) => `memory_vec_${kind}_${dims}`;

const norm = (v: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  return Math.sqrt(s);
};

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

export function sqlVectors(database: SqlDatabase) {
  const db = database.kysely as Kysely<any>;
  const indexed = database.vectorIndex === "sqlite-vec";
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

  /**
   * The index rows of `items` (same transaction as the record), keyed by the record's rowid: a vector put
   * before leaves every index of its kind first (it may change dimension with another embedder), then
   * each dimension's new rows go in with one multi-row insert per chunk.
   */
  async function indexItems(trx: Kysely<any>, brainId: string, items: Item[], replaced: Set<string>) {
    const rowids = new Map<string, number>();
    for (const row of await recorded(trx, brainId, items)) rowids.set(`${row.kind}:${row.id}`, Number(row.rowid));
    const byTable = new Map<string, Array<{ rowid: number; vector: number[] }>>();
    for (const it of items) {
      const rowid = rowids.get(`${it.kind}:${it.id}`)!;
      if (replaced.has(`${it.kind}:${it.id}`))
        for (const name of [...known].filter((n) => n.startsWith(`memory_vec_${it.kind}_`)))
          await sql`delete from ${sql.table(name)} where rowid = cast(${rowid} as integer)`.execute(trx);
      // cosine is undefined for a zero vector: it stays out of the index (the scan scores it 0)
      if (!it.vector.length || norm(it.vector) === 0) continue;
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
  }

  /** The recorded rows of `items` (by the primary key: one kind at a time, ids in chunks). */
  async function recorded(trx: Kysely<any>, brainId: string, items: Item[]) {
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
    async put(brainId: string, given: Item[]) {
      // the last vector given for an item wins, as if put one after the other
      const items = [...new Map(given.map((it) => [`${it.kind}:${it.id}`, it])).values()];
      if (!items.length) return;
      await db.transaction().execute(async (trx) => {
        if (indexed) {
          // tables of other dimensions created by other processes: learn them so a re-put clears them
          const r = await sql<{
            name: string;
          }>`select name from sqlite_master where type = 'table' and name like 'memory_vec_%' and sql like '%vec0%'`.execute(trx);
          for (const row of r.rows) known.add(row.name);
        }
        const replaced = new Set(indexed ? (await recorded(trx, brainId, items)).map((r) => `${r.kind}:${r.id}`) : []);
        await trx
          .insertInto("memory_vectors")
          .values(items.map((it) => ({ brain_id: brainId, kind: it.kind, id: it.id, vector: JSON.stringify(it.vector) })))
          .onConflict((oc) => oc.columns(["brain_id", "kind", "id"]).doUpdateSet((eb) => ({ vector: eb.ref("excluded.vector") })))
          .execute();
        if (indexed) await indexItems(trx, brainId, items, replaced);
      });
    },

    async search(brainId: string, kind: VectorKind, vector: number[], limit: number): Promise<Array<SearchHit<string>>> {
      if (limit <= 0) return [];
      const q = Float64Array.from(vector);
      const qn = norm(q);
      if (indexed && qn > 0) {
        const name = vecTableName(kind, vector.length);
        if (!(await exists(name))) return [];
        const r = await sql<{ id: string; distance: number }>`
          select v.id, k.distance
          from (select rowid, distance from ${sql.table(name)} where embedding match ${JSON.stringify(vector)} and k = ${limit} and brain_id = ${brainId}) k
          cross join memory_vectors v
          where v.rowid = k.rowid
          order by k.distance, v.id`.execute(db);
        return r.rows.map((row) => ({ item: row.id, score: 1 - Number(row.distance) })).sort(byScore);
      }
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
    },
  };
}
