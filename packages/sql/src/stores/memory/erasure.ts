// Erasure, export and import on the SQL memory store (docs/memory.md#erasure). `planErasure` (@mountkit/memory)
// decides from reads made in the erasure's transaction; this file applies the plan there (rows, full-text rows,
// vectors, the conversation neighbours' index text, playbooks, the audit record). On SQLite the file is then
// scrubbed: deletes overwrite freed space (secure_delete), each of the brain's FTS5 tables is merged into one
// segment ('optimize', so no old segment keeps a deleted term), and the WAL is checkpointed and truncated.
// PostgreSQL keeps deleted row versions until VACUUM (docs/memory.md#erasure).
import {
  CONTEXT_TURNS,
  type EdgeRecord,
  type EpisodeJob,
  type EpisodeRecord,
  type ErasurePlan,
  type ErasureReads,
  type ErasureRecord,
  type ExportBatch,
  erasureRecord,
  type MemoryStore,
  type PageAfter,
  type PlaybookRecord,
  planErasure,
  searchableText,
} from "@mountkit/memory";
import { sql } from "kysely";
import { truncateWal } from "../../wal.js";
import { insertJob } from "../kit/jobs.js";
import { entityRow, insertEntityKeys } from "./commit.js";
import { storeEpisode } from "./episodes.js";
import { type FtsKind, ftsTableName } from "./fts.js";
import {
  type Db,
  EDGE_COLS,
  EPISODE_COLS,
  type Kind,
  type MemoryStoreContext,
  num,
  type Row,
  table,
  toEdge,
  toEntity,
  toEpisode,
  toPlaybook,
} from "./rows.js";
import { indexText, insertEdges, insertIndexed } from "./search-index.js";

type Methods = Required<Pick<MemoryStore, "eraseMemory" | "deleteBrain" | "listErasures" | "exportPage" | "importRecords">>;

const CHUNK = 500;
const chunks = <T>(xs: readonly T[]) =>
  Array.from({ length: Math.ceil(xs.length / CHUNK) }, (_, i) => xs.slice(i * CHUNK, (i + 1) * CHUNK));
const KINDS: FtsKind[] = ["episodes", "entities", "edges"];

/** The brain's episodes' id lists (entities mentioned, edges produced), read once per erasure. */
function episodeLinks(trx: Db, brainId: string) {
  let links: Promise<Array<{ id: string; entityIds: string[]; edgeIds: string[] }>> | null = null;
  return () =>
    (links ??= trx
      .selectFrom("memory_episodes")
      .select(["id", "entity_ids", "edge_ids"])
      .where("brain_id", "=", brainId)
      .execute()
      .then((rows) => rows.map((r: Row) => ({ id: r.id, entityIds: JSON.parse(r.entity_ids), edgeIds: JSON.parse(r.edge_ids) }))));
}

function reads(trx: Db, brainId: string): ErasureReads {
  const links = episodeLinks(trx, brainId);
  const edgesWhere = async (where: (q: any) => any): Promise<EdgeRecord[]> =>
    (
      await where(
        trx
          .selectFrom("memory_edges")
          .select(EDGE_COLS as unknown as string[])
          .where("brain_id", "=", brainId),
      ).execute()
    ).map(toEdge);
  return {
    async episodes(ids) {
      const out: EpisodeRecord[] = [];
      for (const c of chunks(ids))
        out.push(
          ...(
            await trx
              .selectFrom("memory_episodes")
              .select(EPISODE_COLS as unknown as string[])
              .where("brain_id", "=", brainId)
              .where("id", "in", c)
              .execute()
          ).map(toEpisode),
        );
      return out;
    },
    async episodesNaming(entityId) {
      const ids = new Set((await this.edgesOfEntity(entityId)).map((e) => e.episodeId));
      for (const l of await links()) if (l.entityIds.includes(entityId)) ids.add(l.id);
      return [...ids];
    },
    async edgesOfEpisodes(episodeIds) {
      const out: EdgeRecord[] = [];
      for (const c of chunks(episodeIds)) out.push(...(await edgesWhere((q) => q.where("episode_id", "in", c))));
      return out;
    },
    edgesOfEntity: (entityId) => edgesWhere((q) => q.where((eb: any) => eb.or([eb("source", "=", entityId), eb("target", "=", entityId)]))),
    async otherSupport(edgeIds, exclude) {
      const wanted = new Set(edgeIds);
      const out = new Map<string, string>();
      for (const l of await links())
        if (!exclude.has(l.id)) for (const id of l.edgeIds) if (wanted.has(id) && !out.has(id)) out.set(id, l.id);
      return out;
    },
    async edgesCiting(edgeIds, episodeIds) {
      if (!edgeIds.length && !episodeIds.length) return [];
      const by = new Set(edgeIds);
      const cited = new Set([...edgeIds.map((id) => `edge ${id}:`), ...episodeIds.map((id) => `episode ${id}:`)]);
      const rows = await trx
        .selectFrom("memory_edges")
        .select(["id", "invalidated_by", "invalidation_reason"])
        .where("brain_id", "=", brainId)
        .where((eb: any) => eb.or([eb("invalidated_by", "is not", null), eb("invalidation_reason", "is not", null)]))
        .execute();
      const hit = rows
        .filter(
          (r: Row) =>
            (r.invalidated_by !== null && by.has(r.invalidated_by)) ||
            cited.has(/ by ((?:edge|episode) \S+:) /.exec(r.invalidation_reason ?? "")?.[1] ?? ""),
        )
        .map((r: Row) => r.id as string);
      const out: EdgeRecord[] = [];
      for (const c of chunks(hit)) out.push(...(await edgesWhere((q) => q.where("id", "in", c))));
      return out;
    },
    async supportedEntities(entityIds, goneEpisodes, goneEdges) {
      const kept = new Set<string>();
      for (const c of chunks(entityIds)) {
        const rows = await trx
          .selectFrom("memory_edges")
          .select(["id", "source", "target"])
          .where("brain_id", "=", brainId)
          .where((eb: any) => eb.or([eb("source", "in", c), eb("target", "in", c)]))
          .execute();
        for (const r of rows as Row[]) if (!goneEdges.has(r.id)) kept.add(r.source).add(r.target);
      }
      const rest = new Set(entityIds.filter((id) => !kept.has(id)));
      if (rest.size)
        for (const l of await links()) if (!goneEpisodes.has(l.id)) for (const id of l.entityIds) if (rest.has(id)) kept.add(id);
      return new Set(entityIds.filter((id) => kept.has(id)));
    },
    async playbooksHolding(episodeIds) {
      const set = new Set(episodeIds);
      const rows = await trx.selectFrom("memory_playbooks").selectAll().where("brain_id", "=", brainId).execute();
      return rows.map(toPlaybook).filter((p: PlaybookRecord) => p.episodeIds.some((id) => set.has(id)));
    },
  };
}

/** Deletes rows of `kind` by id with their full-text rows (SQLite's FTS5 rows share the row's rowid). */
async function deleteRows(ctx: MemoryStoreContext, trx: Db, kind: Kind, brainId: string, ids: string[]) {
  const fts = ctx.pg ? null : await ctx.ftsByBrain.find(kind, brainId);
  for (const c of chunks(ids)) {
    if (fts)
      await sql`delete from ${sql.table(fts)} where rowid in (select rowid from ${sql.table(table(kind))} where brain_id = ${brainId} and id in (${sql.join(c)}))`.execute(
        trx,
      );
    if (kind !== "entities")
      await trx
        .deleteFrom("memory_vectors")
        .where("brain_id", "=", brainId)
        .where("kind", "=", kind === "edges" ? "edge" : "episode")
        .where("id", "in", c)
        .execute();
    else await trx.deleteFrom("memory_entity_keys").where("brain_id", "=", brainId).where("entity_id", "in", c).execute();
    await trx.deleteFrom(table(kind)).where("brain_id", "=", brainId).where("id", "in", c).execute();
  }
}

/**
 * Indexes again the turns left whose index text held an erased turn: the one before it (indexed with it after)
 * and the CONTEXT_TURNS after it (indexed with it before), as `indexEpisodeInContext` would have with the turns left.
 */
async function reindexNeighbours(ctx: MemoryStoreContext, trx: Db, brainId: string, gone: ReadonlySet<string>) {
  const order = sql.raw(ctx.pg ? "ord" : "rowid");
  const convs = new Set<string>();
  for (const c of chunks([...gone])) {
    const r = await sql<{
      conversation: string | null;
    }>`select distinct conversation from memory_episodes where brain_id = ${brainId} and id in (${sql.join(c)})`.execute(trx);
    for (const row of r.rows) if (row.conversation !== null) convs.add(row.conversation);
  }
  const redo: Array<{ id: string; text: string }> = [];
  for (const conversation of convs) {
    const r = await sql<{ id: string; content: string }>`select id, content from memory_episodes
      where brain_id = ${brainId} and conversation = ${conversation} order by ${order}`.execute(trx);
    const all = r.rows;
    const touched = new Set<string>();
    all.forEach((t, i) => {
      if (!gone.has(t.id)) return;
      for (let k = Math.max(0, i - 1); k <= Math.min(all.length - 1, i + CONTEXT_TURNS); k++) touched.add(all[k]!.id);
    });
    const left = all.filter((t) => !gone.has(t.id));
    left.forEach((t, i) => {
      if (!touched.has(t.id)) return;
      const previous = left.slice(Math.max(0, i - CONTEXT_TURNS), i).reverse();
      const next = left[i + 1];
      redo.push({
        id: t.id,
        text: searchableText(
          t.content,
          previous.map((p) => p.content),
          next ? [next.content] : [],
        ),
      });
    });
  }
  return async () => {
    for (const x of redo) await indexText(ctx, trx, "episodes", brainId, x.id, x.text, true);
  };
}

async function apply(ctx: MemoryStoreContext, trx: Db, brainId: string, plan: ErasurePlan, at: number) {
  const gone = new Set(plan.result.episodes);
  const reindex = await reindexNeighbours(ctx, trx, brainId, gone);
  await deleteRows(ctx, trx, "edges", brainId, plan.removeEdges);
  for (const r of plan.recite)
    await trx.updateTable("memory_edges").set({ episode_id: r.episodeId }).where("brain_id", "=", brainId).where("id", "=", r.id).execute();
  for (const u of plan.uncite)
    await trx
      .updateTable("memory_edges")
      .set({ invalidated_by: u.invalidatedBy, invalidation_reason: u.reason })
      .where("brain_id", "=", brainId)
      .where("id", "=", u.id)
      .execute();
  await deleteRows(ctx, trx, "entities", brainId, plan.removeEntities);
  for (const p of plan.playbooks) {
    if (!p.episodeIds.length) await trx.deleteFrom("memory_playbooks").where("brain_id", "=", brainId).where("slug", "=", p.slug).execute();
    else
      await trx
        .updateTable("memory_playbooks")
        .set({ episode_ids: JSON.stringify(p.episodeIds), updated_at: Math.max(p.updatedAt, at) })
        .where("brain_id", "=", brainId)
        .where("slug", "=", p.slug)
        .execute();
  }
  await deleteRows(ctx, trx, "episodes", brainId, [...gone]);
  await reindex();
}

async function insertAudit(trx: Db, r: ErasureRecord) {
  await trx
    .insertInto("memory_erasures")
    .values({ id: r.id, brain_id: r.brainId, kind: r.kind, target: r.target, at: r.at, counts: JSON.stringify(r.counts) })
    .execute();
}

/** SQLite: leaves none of what was deleted in the file (FTS5 segments merged, WAL truncated). */
async function scrub(ctx: MemoryStoreContext, brainId: string, dropped: boolean) {
  if (ctx.pg) return;
  if (!dropped)
    for (const kind of KINDS) {
      const name = await ctx.ftsByBrain.find(kind, brainId);
      if (name) await sql`insert into ${sql.table(name)} (${sql.table(name)}) values ('optimize')`.execute(ctx.db);
    }
  await truncateWal(ctx.db);
}

const secureDelete = async (ctx: MemoryStoreContext, trx: Db) => {
  if (!ctx.pg) await sql`pragma secure_delete = on`.execute(trx);
};

export function erasureMethods(ctx: MemoryStoreContext): Methods {
  const { db, pg } = ctx;
  return {
    async eraseMemory({ brainId, episodeIds, subjectId, audit }) {
      if (!pg) await sql`pragma secure_delete = on`.execute(db);
      const result = await ctx.ftsByBrain.writing(brainId, () =>
        db.transaction().execute(async (trx) => {
          await secureDelete(ctx, trx);
          const plan = await planErasure(reads(trx, brainId), { episodeIds, ...(subjectId ? { subjectId } : {}) });
          await apply(ctx, trx, brainId, plan, audit.at);
          await insertAudit(trx, erasureRecord({ ...audit, brainId }, plan.result));
          return plan.result;
        }),
      );
      await scrub(ctx, brainId, false);
      return result;
    },
    async deleteBrain({ brainId, audit }) {
      const record = await db.transaction().execute(async (trx) => {
        await secureDelete(ctx, trx);
        const brain = await trx.selectFrom("memory_brains").select("id").where("id", "=", brainId).executeTakeFirst();
        if (!brain) return null;
        const count = async (from: string) =>
          num((await trx.selectFrom(from).select(sql`count(*)`.as("n")).where("brain_id", "=", brainId).executeTakeFirstOrThrow()).n);
        const counts = {
          episodes: await count("memory_episodes"),
          edges: await count("memory_edges"),
          entities: await count("memory_entities"),
          playbooks: await count("memory_playbooks"),
        };
        for (const from of [
          "memory_episodes",
          "memory_edges",
          "memory_entities",
          "memory_entity_keys",
          "memory_playbooks",
          "memory_vectors",
          "memory_api_keys",
          "memory_brain_versions",
        ])
          await trx.deleteFrom(from).where("brain_id", "=", brainId).execute();
        await trx.deleteFrom("memory_brains").where("id", "=", brainId).execute();
        if (!pg) for (const kind of KINDS) await sql`drop table if exists ${sql.table(ftsTableName(kind, brainId))}`.execute(trx);
        const r: ErasureRecord = { id: audit.id, brainId, kind: "brain", target: brainId, at: audit.at, counts };
        await insertAudit(trx, r);
        return r;
      });
      if (!pg) ctx.ftsByBrain.forget(brainId);
      if (record) await scrub(ctx, brainId, true);
      return record;
    },
    async listErasures({ brainId }) {
      const rows = await db.selectFrom("memory_erasures").selectAll().where("brain_id", "=", brainId).orderBy("at").orderBy("id").execute();
      return rows.map((r: Row) => ({
        id: r.id,
        brainId: r.brain_id,
        kind: r.kind,
        target: r.target,
        at: num(r.at),
        counts: JSON.parse(r.counts),
      }));
    },
    async exportPage({ brainId, kind, after, limit }) {
      const [from, timeCol, idCol, map] = EXPORT_SHAPE[kind];
      let q = db.selectFrom(`${from} as t`).selectAll("t").where("t.brain_id", "=", brainId);
      if (after)
        q = q.where((eb: any) =>
          eb.or([
            eb(`t.${timeCol}`, ">", after.createdAt),
            eb.and([eb(`t.${timeCol}`, "=", after.createdAt), eb(`t.${idCol}`, ">", after.id)]),
          ]),
        );
      const rows = await q
        .orderBy(`t.${timeCol}`, "asc")
        .orderBy(`t.${idCol}`, "asc")
        .limit(limit + 1)
        .execute();
      const items = rows.slice(0, limit);
      const last = items[items.length - 1];
      const next: PageAfter | null = rows.length > limit && last ? { createdAt: num(last[timeCol]), id: last[idCol] } : null;
      return { items: items.map((r) => (map as (r: Row) => unknown)(r)), next } as never;
    },
    async importRecords({ brainId, batch, jobs }) {
      await ctx.ftsByBrain.writing(brainId, () => importIn(ctx, brainId, batch, jobs));
    },
  };
}

/** One batch of an import (`importRecords`), in its own transaction. */
async function importIn(ctx: MemoryStoreContext, brainId: string, batch: ExportBatch, jobs: EpisodeJob[] | undefined) {
  await ctx.db.transaction().execute(async (trx) => {
    if (batch.kind === "episodes") for (const e of batch.items) await importEpisode(ctx, trx, { ...e, brainId });
    else if (batch.kind === "entities") {
      const items = batch.items.map((e) => ({ ...e, brainId }));
      await insertIndexed(ctx, trx, "entities", brainId, items, entityRow, (e) => [e.name, ...e.aliases].join(" \n "));
      await insertEntityKeys(trx, brainId, items);
    } else if (batch.kind === "edges")
      await insertEdges(
        ctx,
        trx,
        brainId,
        batch.items.map((e) => ({ ...e, brainId })),
      );
    else
      for (const c of chunks(batch.items))
        await trx
          .insertInto("memory_playbooks")
          .values(
            c.map((p) => ({
              brain_id: brainId,
              slug: p.slug,
              title: p.title,
              episode_ids: JSON.stringify(p.episodeIds),
              created_at: p.createdAt,
              updated_at: p.updatedAt,
            })),
          )
          .execute();
    const created = new Map(batch.kind === "episodes" ? batch.items.map((e) => [e.id, e.createdAt]) : []);
    for (const job of jobs ?? []) await insertJob(trx, { ...job, now: created.get(job.payload.episodeId) ?? 0 });
  });
}

const EXPORT_SHAPE = {
  episodes: ["memory_episodes", "created_at", "id", toEpisode],
  entities: ["memory_entities", "created_at", "id", toEntity],
  edges: ["memory_edges", "t_ingested", "id", toEdge],
  playbooks: ["memory_playbooks", "created_at", "slug", toPlaybook],
} as const satisfies Record<string, readonly [string, string, string, (r: Row) => unknown]>;

/** An exported episode, stored as `createEpisode` stores one (its conversation, its neighbours' index text), without a job. */
async function importEpisode(ctx: MemoryStoreContext, trx: Db, episode: EpisodeRecord) {
  await storeEpisode(ctx, trx, episode);
}
