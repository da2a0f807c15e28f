// Entities and edges of the SQL memory store: reads by id, key and entity, pages, full-text search, and
// an edge's invalidation. Edges are read bi-temporally (`visible` in rows.ts); their insertion
// order is the `ord` column on PostgreSQL, the rowid on SQLite.
import type { EdgeRecord, EntityRecord, MemoryStore } from "@mountkit/memory";
import { type RawBuilder, sql } from "kysely";
import { sqlCount } from "../../limits.js";
import { insertJob } from "../kit/jobs.js";
import { touchPlaybooks } from "./commit.js";
import { both, edgeFilterSql, scopeSql } from "./filters.js";
import { page, rowsById } from "./reads.js";
import { type At, cols, EDGE_COLS, ENTITY_COLS, type MemoryStoreContext, type Row, toEdge, toEntity, visible } from "./rows.js";
import { searchMemory } from "./search.js";

type EntityMethods = Pick<MemoryStore, "getEntity" | "getEntities" | "listEntities" | "findEntitiesByKeys" | "searchEntities">;
type EdgeMethods = Pick<
  MemoryStore,
  "getEdge" | "getEdges" | "listEdges" | "findCurrentEdges" | "edgesOfEntities" | "edgesOfEpisodes" | "searchEdges" | "invalidateEdge"
>;

export function entityMethods(ctx: MemoryStoreContext): EntityMethods {
  const { db } = ctx;
  const entities = rowsById(db, "memory_entities", ENTITY_COLS, toEntity);
  return {
    async getEntity({ brainId, id }) {
      return entities.one(brainId, id);
    },
    async getEntities({ brainId, ids }) {
      return entities.many(brainId, ids);
    },
    async listEntities({ brainId, limit, after, scope }) {
      // an entity is the brain's; a scope sees those its facts touch (each side's index: brain_id, source|target, ...)
      const s = scopeSql(scope, "x");
      const touched = s
        ? sql`(exists (select 1 from memory_edges x where x.brain_id = t.brain_id and x.source = t.id and ${s})
            or exists (select 1 from memory_edges x where x.brain_id = t.brain_id and x.target = t.id and ${s}))`
        : undefined;
      return page(db, "memory_entities", "created_at", "id", brainId, limit, after, toEntity, touched);
    },
    async findEntitiesByKeys({ brainId, keys, limit }) {
      if (!keys.length || limit <= 0) return [];
      // one statement: every asked key that names an entity, with the entity's row (once per key it holds)
      const rows = (await db
        .selectFrom("memory_entity_keys as k")
        .innerJoin("memory_entities as e", (j) => j.onRef("e.brain_id", "=", "k.brain_id").onRef("e.id", "=", "k.entity_id"))
        .select(["k.key as key_", ...ENTITY_COLS.map((c) => `e.${c}` as const)])
        .where("k.brain_id", "=", brainId)
        .where("k.key", "in", [...new Set(keys)])
        .orderBy("e.created_at")
        .orderBy("e.id")
        .execute()) as Array<Row & { key_: string; id: string }>;
      // the order the keys were asked in, then the entities' age: the most specific key's entity first
      // (one pass over the rows: a prefetch asks thousands of keys, and a scan per key was quadratic)
      const byKey = new Map<string, Row[]>();
      for (const r of rows) {
        const same = byKey.get(r.key_);
        if (same) same.push(r);
        else byKey.set(r.key_, [r]);
      }
      const out = new Map<string, EntityRecord>();
      for (const key of keys)
        for (const r of byKey.get(key) ?? []) if (out.size < limit && !out.has(r.id as string)) out.set(r.id as string, toEntity(r));
      return [...out.values()];
    },
    async searchEntities({ brainId, query, limit }) {
      return searchMemory(ctx.search, "entities", brainId, query, limit, null, toEntity);
    },
  };
}

export function edgeMethods(ctx: MemoryStoreContext): EdgeMethods {
  const { db } = ctx;
  /** Insertion order of edges. */
  const edgeOrder = ctx.pg ? "ord" : "rowid";
  const edgesById = rowsById(db, "memory_edges", EDGE_COLS, toEdge);
  const selectEdges = (brainId: string) =>
    db
      .selectFrom("memory_edges as t")
      .select(EDGE_COLS.map((c) => `t.${c}` as const))
      .where("t.brain_id", "=", brainId);
  return {
    async getEdge({ brainId, id }) {
      return edgesById.one(brainId, id);
    },
    async getEdges({ brainId, ids }) {
      return edgesById.many(brainId, ids);
    },
    async listEdges({ brainId, limit, after, entityId, at, filter }) {
      const where = both(edgeListFilter(entityId, at), edgeFilterSql(ctx.pg, filter));
      return page(db, "memory_edges", "t_ingested", "id", brainId, limit, after, toEdge, where);
    },
    async findCurrentEdges({ brainId, source, relation, scope }) {
      const inScope = scopeSql(scope);
      const sources = typeof source === "string" ? [source] : [...new Set(source)];
      const out: EdgeRecord[] = [];
      // a run's prefetch asks for hundreds of sources: a few hundred parameters a statement
      for (let i = 0; i < sources.length; i += 500) {
        const chunk = sources.slice(i, i + 500);
        let q = selectEdges(brainId).where("t.t_expired", "is", null);
        q = chunk.length === 1 ? q.where("t.source", "=", chunk[0]!) : q.where("t.source", "in", chunk);
        if (relation) q = q.where("t.relation", "=", relation);
        if (inScope) q = q.where(inScope as RawBuilder<boolean>);
        for (const r of await q.orderBy(`t.${edgeOrder}`).execute()) out.push(toEdge(r));
      }
      return out;
    },
    async edgesOfEntities(input) {
      return edgesOfEntities(ctx, input);
    },
    async edgesOfEpisodes({ brainId, episodeIds }) {
      if (!episodeIds.length) return [];
      const rows = await selectEdges(brainId)
        .where("t.episode_id", "in", [...new Set(episodeIds)])
        .orderBy(`t.${edgeOrder}`)
        .execute();
      const rank = new Map(episodeIds.map((id, i) => [id, i] as const));
      const edges = rows.map(toEdge);
      // stable sort: episodes in the order asked, each episode's edges in insertion order
      return edges.sort((a, b) => rank.get(a.episodeId)! - rank.get(b.episodeId)!);
    },
    async searchEdges({ brainId, query, limit, asOf, knownAt, filter }) {
      const where = edgeFilterSql(ctx.pg, filter);
      return searchMemory(ctx.search, "edges", brainId, query, limit, { asOf, knownAt, ...(where ? { where } : {}) }, toEdge);
    },
    async invalidateEdge({ brainId, id, tInvalid, now, tExpired, reason, invalidatedBy, enqueue }) {
      const change = (trx: typeof db) =>
        trx
          .updateTable("memory_edges")
          .set({ t_invalid: tInvalid, t_expired: tExpired, invalidation_reason: reason, invalidated_by: invalidatedBy })
          .where("brain_id", "=", brainId)
          .where("id", "=", id)
          .where((eb) => eb.or([eb("t_invalid", "is", null), eb("t_invalid", ">", tInvalid)]))
          .where("t_expired", "is", null)
          .returning(EDGE_COLS)
          .executeTakeFirst();
      // the playbooks holding the edge's episode and the edge's events are written in the change's transaction
      const row = await db.transaction().execute(async (trx) => {
        const changed = await change(trx);
        if (!changed) return changed;
        await touchPlaybooks(ctx, trx, brainId, [changed.episode_id], now ?? tInvalid);
        for (const j of enqueue?.(toEdge(changed)) ?? []) await insertJob(trx, j);
        return changed;
      });
      if (row) return { ok: true, edge: toEdge(row) };
      const exists = await db
        .selectFrom("memory_edges")
        .select("id")
        .where("brain_id", "=", brainId)
        .where("id", "=", id)
        .executeTakeFirst();
      return { ok: false, reason: exists ? "already_invalid" : "not_found" };
    },
  };
}

/** MemoryStore.edgesOfEntities: the newest `limit` edges touching any of the entities, visible at the point. */
async function edgesOfEntities(
  ctx: MemoryStoreContext,
  { brainId, entityIds, asOf, knownAt, limit, filter }: Parameters<MemoryStore["edgesOfEntities"]>[0],
) {
  if (!entityIds.length || limit <= 0) return [];
  const ids = [...new Set(entityIds)];
  // Each entity's newest `limit` visible edges, per side, come from an index in that order (migration
  // 10: brain_id, source|target, coalesce(t_valid, t_ingested) desc, id), so a scan stops after `limit`
  // visible rows instead of sorting every edge of a popular entity; the merged lists hold the overall
  // newest `limit`. An edge between two of the entities comes once, from its source side. SQLite is
  // told the index: without statistics its planner took memory_edges_newest for the t_ingested bound
  // and sorted the brain's edges (EXPLAIN QUERY PLAN: SEARCH t USING INDEX memory_edges_newest
  // (brain_id=? AND t_ingested<?), USE TEMP B-TREE FOR ORDER BY).
  const list = sql.join(ids);
  const where = edgeFilterSql(ctx.pg, filter);
  const newest = (side: "source" | "target", id: string) => sql`
    select * from (
      select t.id, coalesce(t.t_valid, t.t_ingested) as at from memory_edges t${ctx.pg ? sql`` : sql` indexed by ${sql.raw(`memory_edges_${side}_recent`)}`}
      where t.brain_id = ${brainId} and t.${sql.raw(side)} = ${id} and ${visible.edges({ asOf, knownAt, ...(where ? { where } : {}) })}
      ${side === "target" ? sql`and t.source not in (${list})` : sql``}
      order by coalesce(t.t_valid, t.t_ingested) desc, t.id
      limit ${sqlCount(limit)}
    ) x`;
  const lists = ids.flatMap((id) => [newest("source", id), newest("target", id)]);
  const r = await sql<Row>`
    select ${cols("edges")}
    from (${sql.join(lists, sql` union all `)}) h cross join memory_edges t
    where t.brain_id = ${brainId} and t.id = h.id
    order by h.at desc, t.id
    limit ${sqlCount(limit)}`.execute(ctx.db);
  const rows = r.rows;
  return rows.map(toEdge);
}

/** The filters of `listEdges` on alias `t`: edges touching `entityId`, visible at `at` (both optional). */
function edgeListFilter(entityId: string | undefined, at: At | undefined): RawBuilder<unknown> | undefined {
  const touching = entityId === undefined ? undefined : sql`(t.source = ${entityId} or t.target = ${entityId})`;
  if (!at) return touching;
  return touching ? sql`${touching} and ${visible.edges(at)}` : visible.edges(at);
}
