// Episodes of the SQL memory store. An episode and its extraction job are inserted in one transaction, so
// an accepted episode is always extracted, even after a crash; a conversation's turn is indexed with its
// neighbours (context.ts).
import type { MemoryStore } from "@mountkit/memory";
import { insertJob } from "../kit/jobs.js";
import { indexEpisodeInContext, newEpisodeConversation } from "./context.js";
import { page, rowsById } from "./reads.js";
import { EPISODE_COLS, type MemoryStoreContext, toEpisode } from "./rows.js";
import { searchMemory } from "./search.js";
import { indexText, searchPlaceholder } from "./search-index.js";

type EpisodeMethods = Pick<
  MemoryStore,
  "createEpisode" | "getEpisode" | "getEpisodes" | "listEpisodes" | "setEpisodeStatus" | "searchEpisodes"
>;

export function episodeMethods(ctx: MemoryStoreContext): EpisodeMethods {
  const { db, pg } = ctx;
  const episodes = rowsById(db, "memory_episodes", EPISODE_COLS, toEpisode);
  return {
    async createEpisode({ episode, job }) {
      await db.transaction().execute(async (trx) => {
        const conversation = await newEpisodeConversation(trx, pg, episode);
        await trx
          .insertInto("memory_episodes")
          .values({
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
            ...searchPlaceholder(pg),
          })
          .execute();
        // a conversation's turn is indexed with its neighbours, as on the in-memory store (context.ts)
        await indexEpisodeInContext(trx, pg, episode, conversation, (t, brainId, id, text, replace) =>
          indexText(ctx, t, "episodes", brainId, id, text, replace),
        );
        await insertJob(trx, {
          id: job.id,
          queue: job.queue,
          payload: job.payload,
          maxAttempts: job.maxAttempts,
          groupKey: job.groupKey,
          now: episode.createdAt,
        });
      });
    },
    async getEpisode({ brainId, id }) {
      return episodes.one(brainId, id);
    },
    async getEpisodes({ brainId, ids }) {
      return episodes.many(brainId, ids);
    },
    async listEpisodes({ brainId, limit, after }) {
      return page(db, "memory_episodes", "created_at", "id", brainId, limit, after, toEpisode);
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
        if (row) for (const j of enqueue(toEpisode(row))) await insertJob(trx, j);
      });
    },
    async searchEpisodes({ brainId, query, limit, asOf, knownAt }) {
      return searchMemory(ctx.search, "episodes", brainId, query, limit, { asOf, knownAt }, toEpisode);
    },
  };
}
