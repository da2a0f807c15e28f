// An extraction's commit on the SQL memory store: all-or-nothing in one transaction, idempotent (the
// episode row is locked and checked first, so a re-run job writes nothing twice) and optimistic on the
// brain's version (a commit that expected an older version rolls back as a conflict).
import type { CommitResult, EntityRecord, ExtractionCommit } from "@mountkit/memory";
import { sql } from "kysely";
import { type BatchItem, executeBatch, expecting } from "../../batch.js";
import { CheckFailed } from "../../check.js";
import { jobInsert } from "../kit/jobs.js";
import { type Db, EDGE_COLS, EPISODE_COLS, type MemoryStoreContext, toEdge, toEpisode } from "./rows.js";
import { edgeInserts, indexedInserts, indexTextQueries } from "./search-index.js";

type Refusal = Extract<CommitResult, { committed: false }>["reason"];

/** The checks whose failure is answered as the commit's refusal (the others are errors: a commit the brain cannot hold). */
const REFUSALS: ReadonlySet<string> = new Set<Refusal>(["episode_not_found", "already_done", "conflict"]);
const isRefusal = (reason: string): reason is Refusal => REFUSALS.has(reason);

const entityText = (e: Pick<EntityRecord, "name" | "aliases">) => [e.name, ...e.aliases].join(" \n ");

/** MemoryStore.commitExtraction: one transaction; a refusal or a version conflict rolls it back and is answered. */
export async function commitExtraction(ctx: MemoryStoreContext, c: ExtractionCommit): Promise<CommitResult> {
  return ctx.ftsByBrain
    .writing(c.brainId, () => ctx.db.transaction().execute(async (trx) => commitIn(ctx, trx, c)))
    .catch((e) => {
      if (e instanceof CheckFailed && isRefusal(e.reason)) return { committed: false, reason: e.reason };
      throw e;
    });
}

/**
 * One extraction commit inside `trx` (see MemoryStore.commitExtraction). Its checks go first in the same batch as every
 * write (one round trip on SQLite, where the connection thread checks them and a failed one stops the batch). When
 * nothing else depends on the writes' answers (no edge closed, no playbook, no event), the batch also carries the
 * COMMIT, so the transaction is one message; otherwise a second batch follows with what does. The transaction holds the
 * SQLite writer until its COMMIT and every other write of the process waits meanwhile: so every statement is built (its
 * text analysed) before the first goes, and nothing avoidable runs between the two.
 */
async function commitIn(ctx: MemoryStoreContext, trx: Db, c: ExtractionCommit): Promise<CommitResult> {
  const writes = await commitWrites(ctx, trx, c);
  const checks = commitChecks(ctx, trx, c);
  const whole = !c.playbook && c.invalidate.length === 0 && !c.enqueue;
  const answers = (await executeBatch(trx, ctx.pg, [...checks, ...writes.items], { commits: whole })).slice(checks.length);
  if (whole) return { committed: true } as const;
  // the invalidations' answers: the edges they closed (one already closed answers no row)
  const closed = answers
    .slice(writes.head, writes.head + c.invalidate.length)
    .flatMap((a) => (a.rows[0] ? [toEdge(a.rows[0] as never)] : []));
  const episode = answers[writes.items.length - 1]!.rows[0];
  if (!episode) throw new Error(`episode ${c.episodeId} vanished during its commit`);
  if (c.playbook) await addToPlaybook(ctx, trx, c, c.playbook);
  const after: BatchItem[] = [
    // a playbook holding a closed edge's episode changed too
    ...touchPlaybooksQueries(
      ctx,
      trx,
      c.brainId,
      closed.map((e) => e.episodeId),
      c.now,
    ),
    // the commit's events, in its transaction: a committed extraction always has them
    ...(c.enqueue?.({ episode: toEpisode(episode as never), closed }) ?? []).map((j) => jobInsert(trx, j)),
  ];
  // the transaction's last statements: on SQLite its COMMIT goes with them
  await executeBatch(trx, ctx.pg, after, { commits: true });
  return { committed: true } as const;
}

/**
 * A commit's writes, in order: the version bump and its check against `expectVersion`, the entities (`head` statements
 * in all), the invalidations (one each, answering the edge it closed), the edges, and the episode marked done
 * (answering its row).
 */
async function commitWrites(ctx: MemoryStoreContext, trx: Db, c: ExtractionCommit): Promise<{ items: BatchItem[]; head: number }> {
  const head = [
    // every commit of the brain bumps its version; the row lock serialises the brain's commits on PostgreSQL
    // (SQLite's write lock already does), so the version read after it is exact
    sql`
      insert into memory_brain_versions (brain_id, version) values (${c.brainId}, 1)
      on conflict (brain_id) do update set version = memory_brain_versions.version + 1`,
    ...(c.expectVersion === undefined
      ? []
      : [
          expecting(
            trx
              .selectFrom("memory_brain_versions")
              .select("version")
              .where("brain_id", "=", c.brainId)
              .where("version", "=", c.expectVersion + 1),
            { rows: "some", reason: "conflict" },
          ),
        ]),
    ...(await entityWrites(ctx, trx, c)),
  ];
  const writes: BatchItem[] = [
    ...head,
    ...c.invalidate.map((inv) => invalidation(trx, c.brainId, inv)),
    ...(await edgeInserts(ctx, trx, c.brainId, c.createEdges)),
    trx
      .updateTable("memory_episodes")
      .set({
        status: "done",
        error: null,
        entity_ids: JSON.stringify(c.entityIds),
        edge_ids: JSON.stringify(c.edgeIds),
        processed_at: c.now,
      })
      .where("brain_id", "=", c.brainId)
      .where("id", "=", c.episodeId)
      .returning(EPISODE_COLS),
  ];
  return { items: writes, head: head.length };
}

/**
 * The checks of a commit, each failing it with its reason: the episode, locked, must exist and not be done (a refusal),
 * and every entity it updates or links and every edge it invalidates must be the brain's (an error).
 */
function commitChecks(ctx: MemoryStoreContext, trx: Db, c: ExtractionCommit): BatchItem[] {
  const created = new Set(c.createEntities.map((e) => e.id));
  const referenced = [...new Set([...c.updateEntities.map((u) => u.id), ...c.createEdges.flatMap((e) => [e.source, e.target])])].filter(
    (id) => !created.has(id),
  );
  const invalidated = [...new Set(c.invalidate.map((i) => i.id))];
  const episode = () => trx.selectFrom("memory_episodes").select("status").where("brain_id", "=", c.brainId).where("id", "=", c.episodeId);
  // the lock makes a second run of the same job wait here and then see `done`
  const locked = ctx.pg ? episode().forUpdate() : episode();
  // every id of `list` is a row of the brain in `table`
  const held = (table: string, list: string[], reason: string) =>
    expecting(
      sql`select n from (select count(*) as n from ${sql.table(table)} where brain_id = ${c.brainId} and id in (${sql.join(list)})) held
        where n = ${list.length}`,
      { rows: "some", reason },
    );
  return [
    expecting(locked, { rows: "some", reason: "episode_not_found" }),
    expecting(episode().where("status", "=", "done"), { rows: "none", reason: "already_done" }),
    // an empty list asks nothing
    ...(referenced.length ? [held("memory_entities", referenced, "the commit updates or links an entity the brain does not hold")] : []),
    ...(invalidated.length ? [held("memory_edges", invalidated, "the commit invalidates an edge the brain does not hold")] : []),
  ];
}

/** An entity's row, as a commit and an import write it. */
export const entityRow = (e: EntityRecord) => ({
  brain_id: e.brainId,
  id: e.id,
  name: e.name,
  kind: e.kind,
  aliases: JSON.stringify(e.aliases),
  keys: JSON.stringify(e.keys),
  created_at: e.createdAt,
  updated_at: e.updatedAt,
});

/** The statements that insert the created entities and update the changed ones, with their index text and keys. */
async function entityWrites(ctx: MemoryStoreContext, trx: Db, c: ExtractionCommit): Promise<BatchItem[]> {
  const out: BatchItem[] = await indexedInserts(ctx, trx, "entities", c.brainId, c.createEntities, entityRow, entityText);
  for (const u of c.updateEntities) {
    out.push(
      trx
        .updateTable("memory_entities")
        .set({ name: u.name, kind: u.kind, aliases: JSON.stringify(u.aliases), keys: JSON.stringify(u.keys), updated_at: u.updatedAt })
        .where("brain_id", "=", c.brainId)
        .where("id", "=", u.id),
      ...(await indexTextQueries(ctx, trx, "entities", c.brainId, u.id, entityText(u), true)),
    );
  }
  out.push(...entityKeyInserts(trx, c.brainId, [...c.createEntities, ...c.updateEntities]));
  return out;
}

/** Each entity's keys, in multi-row statements (a 50 KB episode creates some 600 entities). */
export async function insertEntityKeys(trx: Db, brainId: string, entities: readonly Pick<EntityRecord, "id" | "keys">[]) {
  for (const q of entityKeyInserts(trx, brainId, entities)) await q.execute();
}

function entityKeyInserts(trx: Db, brainId: string, entities: readonly Pick<EntityRecord, "id" | "keys">[]) {
  const rows = entities.flatMap((e) => [...new Set(e.keys)].map((key) => ({ brain_id: brainId, key, entity_id: e.id })));
  // 3 parameters a row
  const CHUNK = 1000;
  const out = [];
  for (let i = 0; i < rows.length; i += CHUNK)
    out.push(
      trx
        .insertInto("memory_entity_keys")
        .values(rows.slice(i, i + CHUNK))
        .onConflict((oc) => oc.columns(["brain_id", "key", "entity_id"]).doNothing()),
    );
  return out;
}

/** Closes an invalidated edge (an earlier `t_invalid` already set is kept); answers the edge when it closed it. */
function invalidation(trx: Db, brainId: string, inv: ExtractionCommit["invalidate"][number]) {
  return trx
    .updateTable("memory_edges")
    .set({
      t_invalid:
        inv.tInvalid === null
          ? sql`t_invalid`
          : sql`case when t_invalid is null or t_invalid > ${inv.tInvalid} then ${inv.tInvalid} else t_invalid end`,
      t_expired: inv.tExpired,
      invalidation_reason: inv.reason,
      invalidated_by: inv.invalidatedBy,
    })
    .where("brain_id", "=", brainId)
    .where("id", "=", inv.id)
    .where("t_expired", "is", null)
    .returning(EDGE_COLS);
}

/**
 * Moves `updated_at` of the brain's playbooks holding any of these episodes to `now`, never back (one of
 * their facts was invalidated), as the in-memory store does.
 */
export async function touchPlaybooks(ctx: Pick<MemoryStoreContext, "pg">, trx: Db, brainId: string, episodeIds: string[], now: number) {
  for (const q of touchPlaybooksQueries(ctx, trx, brainId, episodeIds, now)) await q.execute();
}

function touchPlaybooksQueries(ctx: Pick<MemoryStoreContext, "pg">, trx: Db, brainId: string, episodeIds: string[], now: number) {
  const ids = [...new Set(episodeIds)];
  if (!ids.length) return [];
  const holds = ctx.pg
    ? sql<boolean>`jsonb_exists_any(episode_ids::jsonb, ${ids}::text[])`
    : sql<boolean>`exists (select 1 from json_each(memory_playbooks.episode_ids) where json_each.value in (${sql.join(ids)}))`;
  return [
    trx.updateTable("memory_playbooks").set({ updated_at: now }).where("brain_id", "=", brainId).where("updated_at", "<", now).where(holds),
  ];
}

/** Adds the episode to the playbook, creating it first when new (the row is locked on PostgreSQL). */
async function addToPlaybook(
  ctx: MemoryStoreContext,
  trx: Db,
  c: ExtractionCommit,
  playbook: NonNullable<ExtractionCommit["playbook"]>,
): Promise<void> {
  await trx
    .insertInto("memory_playbooks")
    .values({
      brain_id: c.brainId,
      slug: playbook.slug,
      title: playbook.title,
      episode_ids: "[]",
      created_at: c.now,
      updated_at: c.now,
    })
    .onConflict((oc) => oc.columns(["brain_id", "slug"]).doNothing())
    .execute();
  let pq = trx.selectFrom("memory_playbooks").select("episode_ids").where("brain_id", "=", c.brainId).where("slug", "=", playbook.slug);
  if (ctx.pg) pq = pq.forUpdate();
  const p = await pq.executeTakeFirstOrThrow();
  const episodeIds: string[] = JSON.parse(p.episode_ids);
  if (!episodeIds.includes(c.episodeId)) episodeIds.push(c.episodeId);
  await trx
    .updateTable("memory_playbooks")
    .set({ episode_ids: JSON.stringify(episodeIds), updated_at: c.now })
    .where("brain_id", "=", c.brainId)
    .where("slug", "=", playbook.slug)
    .execute();
}
