// Episodes of the SQL memory store. An episode and its extraction job are inserted in one transaction, so
// an accepted episode is always extracted, even after a crash; a conversation's turn is indexed with its
// neighbours (context.ts).
import { type CreateEpisodeOutcome, type EpisodeRecord, type IdempotencyClaim, type MemoryStore, newEpisodeJob } from "@mountkit/memory";
import { sql } from "kysely";
import { type BatchItem, executeBatch } from "../../batch.js";
import { jobInsert } from "../kit/jobs.js";
import { contextIndexTexts, neighboursQuery, newEpisodeConversation } from "./context.js";
import { episodeFilterSql, scopeRow } from "./filters.js";
import { page, rowsById } from "./reads.js";
import { type Db, EPISODE_COLS, type MemoryStoreContext, toEpisode } from "./rows.js";
import { searchMemory } from "./search.js";
import { indexTextQueries, searchPlaceholder } from "./search-index.js";

type EpisodeMethods = Pick<
  MemoryStore,
  "createEpisode" | "getEpisode" | "getEpisodes" | "listEpisodes" | "setEpisodeStatus" | "searchEpisodes" | "beginExtraction"
>;

/**
 * Inserts an episode (inside its transaction) in its conversation, indexed with its neighbours as on the in-memory store
 * (context.ts), with `extra` statements in the last batch (`commits`: the transaction's last step, see executeBatch): two
 * or three round trips on SQLite.
 */
export async function storeEpisode(
  ctx: MemoryStoreContext,
  trx: Db,
  episode: EpisodeRecord,
  extra: BatchItem[] = [],
  options: { commits?: boolean } = {},
) {
  const { pg } = ctx;
  const conversation = await newEpisodeConversation(trx, pg, episode);
  const [, neighbours] = await executeBatch(trx, pg, [
    trx.insertInto("memory_episodes").values(episodeRow(episode, conversation, pg)),
    ...(conversation === null ? [] : [neighboursQuery(pg, episode, conversation)]),
  ]);
  const texts = contextIndexTexts(episode, neighbours ? (neighbours.rows as Array<{ id: string; content: string }>) : null);
  const index: BatchItem[] = [];
  for (const t of texts) index.push(...(await indexTextQueries(ctx, trx, "episodes", episode.brainId, t.id, t.text, t.replace)));
  await executeBatch(trx, pg, [...index, ...extra], options);
}

export function episodeMethods(ctx: MemoryStoreContext): EpisodeMethods {
  const { db, pg } = ctx;
  const episodes = rowsById(db, "memory_episodes", EPISODE_COLS, toEpisode);
  return {
    async createEpisode({ episode, job, idempotency }) {
      return ctx.ftsByBrain.writing(episode.brainId, () =>
        db.transaction().execute(async (trx) => {
          if (idempotency) {
            const taken = await claimKey(trx, episode.brainId, episode.id, idempotency, episode.createdAt);
            if (taken) return taken;
          }
          const extraction = jobInsert(trx, newEpisodeJob(job, episode.createdAt));
          await storeEpisode(ctx, trx, episode, [extraction], { commits: true });
          return undefined;
        }),
      );
    },
    async getEpisode({ brainId, id }) {
      return episodes.one(brainId, id);
    },
    async getEpisodes({ brainId, ids }) {
      return episodes.many(brainId, ids);
    },
    async listEpisodes({ brainId, limit, after, filter }) {
      return page(db, "memory_episodes", "created_at", "id", brainId, limit, after, toEpisode, episodeFilterSql(pg, filter));
    },
    async setEpisodeStatus({ brainId, id, status, error, now, enqueue }) {
      const change = (trx: typeof db) =>
        trx
          .updateTable("memory_episodes")
          .set(status === "failed" ? { status, error: error ?? "extraction failed", processed_at: now } : { status, error: null })
          .where("brain_id", "=", brainId)
          .where("id", "=", id)
          .where("status", "<>", "done");
      if (!enqueue) {
        await change(db).execute();
        return;
      }
      // the change's events in its own transaction: a failed episode always has its episode.failed
      await db.transaction().execute(async (trx) => {
        const row = await change(trx).returning(EPISODE_COLS).executeTakeFirst();
        if (row)
          await executeBatch(
            trx,
            pg,
            enqueue(toEpisode(row)).map((j) => jobInsert(trx, j)),
          );
      });
    },
    async beginExtraction({ brainId, id, ahead = 0 }) {
      // one message to the SQLite writer: the episode as it moves to processing (none when done or gone), the version,
      // and the queued episodes after it (the memory_episodes_newest index, read from the episode's time on)
      const [moved, version, next] = await executeBatch(db, pg, [
        db
          .updateTable("memory_episodes")
          .set({ status: "processing", error: null })
          .where("brain_id", "=", brainId)
          .where("id", "=", id)
          .where("status", "<>", "done")
          .returning(EPISODE_COLS),
        db.selectFrom("memory_brain_versions").select("version").where("brain_id", "=", brainId),
        ...(ahead > 0
          ? [
              db
                .selectFrom("memory_episodes")
                .select(EPISODE_COLS)
                .where("brain_id", "=", brainId)
                .where(
                  "created_at",
                  ">=",
                  db.selectFrom("memory_episodes as e").select("e.created_at").where("e.brain_id", "=", brainId).where("e.id", "=", id),
                )
                .where("id", "<>", id)
                .where("status", "=", "queued")
                .orderBy("created_at")
                .orderBy("id")
                .limit(ahead),
            ]
          : []),
      ]);
      const row = moved!.rows[0] as Parameters<typeof toEpisode>[0] | undefined;
      if (!row) return null;
      const v = version!.rows[0] as { version: unknown } | undefined;
      return {
        episode: toEpisode(row),
        version: v ? Number(v.version) : 0,
        ...(next ? { ahead: (next.rows as Array<Parameters<typeof toEpisode>[0]>).map(toEpisode) } : {}),
      };
    },
    async searchEpisodes({ brainId, query, limit, asOf, knownAt, filter }) {
      const where = episodeFilterSql(pg, filter);
      return searchMemory(ctx.search, "episodes", brainId, query, limit, { asOf, knownAt, ...(where ? { where } : {}) }, toEpisode);
    },
  };
}

/**
 * Claims an idempotency key for a new episode in its transaction; answers the episode already holding it, or
 * undefined when the key is now this episode's. The (brain_id, key) primary key decides between concurrent claims: on
 * PostgreSQL the later insert waits for the earlier transaction and then does nothing, on SQLite the write lock
 * orders them. A key past its expiry, or whose episode is gone (erased), is freed first.
 */
async function claimKey(trx: Db, brainId: string, episodeId: string, claim: IdempotencyClaim, now: number): Promise<CreateEpisodeOutcome> {
  await sql`
    delete from memory_idempotency_keys
    where brain_id = ${brainId} and key = ${claim.key}
      and (expires_at <= ${now} or not exists (
        select 1 from memory_episodes e where e.brain_id = memory_idempotency_keys.brain_id and e.id = memory_idempotency_keys.episode_id))`.execute(
    trx,
  );
  const inserted = await trx
    .insertInto("memory_idempotency_keys")
    .values({ brain_id: brainId, key: claim.key, episode_id: episodeId, fingerprint: claim.fingerprint, expires_at: claim.expiresAt })
    .onConflict((oc) => oc.columns(["brain_id", "key"]).doNothing())
    .returning("key")
    .executeTakeFirst();
  if (inserted) return undefined;
  const held = await trx
    .selectFrom("memory_idempotency_keys as k")
    .innerJoin("memory_episodes as t", (j) => j.onRef("t.brain_id", "=", "k.brain_id").onRef("t.id", "=", "k.episode_id"))
    .select(["k.fingerprint", ...EPISODE_COLS.map((c) => `t.${c}` as const)])
    .where("k.brain_id", "=", brainId)
    .where("k.key", "=", claim.key)
    .executeTakeFirst();
  // the holder was erased between the two statements: no episode to answer, the caller's retry claims the key
  if (!held) throw new Error(`idempotency key of brain ${brainId} held by an episode that is gone`);
  const { fingerprint, ...row } = held;
  return { duplicate: toEpisode(row), fingerprint: fingerprint as string };
}

/** An episode's row, its conversation and scope included, as `createEpisode` and an import write it. */
export const episodeRow = (episode: EpisodeRecord, conversation: string | null, pg: boolean) => ({
  brain_id: episode.brainId,
  id: episode.id,
  content: episode.content,
  metadata: JSON.stringify(episode.metadata),
  occurred_at: episode.occurredAt,
  created_at: episode.createdAt,
  status: episode.status,
  error: episode.error,
  entity_ids: JSON.stringify(episode.entityIds),
  edge_ids: JSON.stringify(episode.edgeIds),
  processed_at: episode.processedAt,
  conversation,
  ...scopeRow(episode),
  ...searchPlaceholder(pg),
});
