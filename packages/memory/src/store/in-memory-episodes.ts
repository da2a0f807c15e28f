// The in-memory store's episodes: each stored with its extraction job, indexed for full-text search
// with its conversation's neighbouring turns, the conversation named by metadata or inferred
// (domain/conversation.ts).
import { CONTEXT_TURNS, episodeConversation, isInferredConversation, searchableText } from "../domain/conversation.js";
import { episodeMatches } from "../domain/scope.js";
import { type EpisodeRecord, episodeVisibleAt } from "../domain/types.js";
import { newEpisodeJob } from "./episode-job.js";
import { type BrainData, brainData, cloneEpisode, type MemoryState, one, paginate, some } from "./in-memory-data.js";
import type { MemoryStore } from "./types.js";

type EpisodeMethods = Pick<
  MemoryStore,
  "createEpisode" | "getEpisode" | "getEpisodes" | "listEpisodes" | "setEpisodeStatus" | "searchEpisodes"
>;

/**
 * The episode's conversation, named or inferred from the brain's newest episode (domain/conversation.ts;
 * null: indexed alone), which it then becomes unless an episode was stored later. An inferred conversation nothing can join
 * any more (the newest episode left it) drops its tail.
 */
function conversationOf(d: BrainData, episode: EpisodeRecord): string | null {
  const previous = d.newest;
  const conversation = episodeConversation(episode, previous);
  if (previous === null || episode.createdAt >= previous.createdAt) {
    const left = previous?.conversation;
    if (left && left !== conversation && isInferredConversation(left)) d.conversationTail.delete(left);
    d.newest = { createdAt: episode.createdAt, occurredAt: episode.occurredAt, conversation };
  }
  return conversation;
}

/** Indexes a new turn with the turns before it, and the turn before it again with this one after it. */
function indexEpisode(d: BrainData, episode: EpisodeRecord): void {
  // turns of one conversation are indexed with the turns before them (domain/conversation.ts)
  const conversation = conversationOf(d, episode);
  const tail = conversation === null ? [] : (d.conversationTail.get(conversation) ?? []);
  d.episodeText.add(
    episode.id,
    searchableText(
      episode.content,
      tail.slice(0, CONTEXT_TURNS).map((t) => t.content),
    ),
  );
  // the turn before this one is indexed again with this one after it (an answer completes its question)
  if (tail.length) {
    const prev = tail[0]!;
    d.episodeText.add(
      prev.id,
      searchableText(
        prev.content,
        tail.slice(1, CONTEXT_TURNS + 1).map((t) => t.content),
        [episode.content],
      ),
    );
  }
  if (conversation !== null)
    d.conversationTail.set(conversation, [{ id: episode.id, content: episode.content }, ...tail].slice(0, CONTEXT_TURNS + 1));
}

export function episodeMethods(state: MemoryState): EpisodeMethods {
  const { data, jobs } = state;
  return {
    async createEpisode({ episode, job, idempotency }) {
      const d = brainData(state, episode.brainId);
      if (idempotency) {
        const held = d.idempotency.get(idempotency.key);
        const first = held && held.expiresAt > episode.createdAt ? d.episodes.get(held.episodeId) : undefined;
        if (held && first) return { duplicate: cloneEpisode(first), fingerprint: held.fingerprint };
      }
      if (d.episodes.has(episode.id)) throw new Error(`duplicate episode ${episode.id}`);
      if (idempotency)
        d.idempotency.set(idempotency.key, {
          episodeId: episode.id,
          fingerprint: idempotency.fingerprint,
          expiresAt: idempotency.expiresAt,
        });
      d.episodes.set(episode.id, cloneEpisode(episode));
      indexEpisode(d, episode);
      await jobs.enqueue(newEpisodeJob(job, episode.createdAt));
    },
    async getEpisode({ brainId, id }) {
      return one(data.get(brainId)?.episodes, id, cloneEpisode);
    },
    async getEpisodes({ brainId, ids }) {
      return some(data.get(brainId)?.episodes, ids, cloneEpisode);
    },
    async listEpisodes({ brainId, limit, after, filter }) {
      const d = data.get(brainId);
      const all = [...(d?.episodes.values() ?? [])];
      return paginate(filter ? all.filter((e) => episodeMatches(e, filter)) : all, (e) => e, limit, after, cloneEpisode);
    },
    async setEpisodeStatus({ brainId, id, status, error, now, enqueue }) {
      const e = data.get(brainId)?.episodes.get(id);
      if (!e || e.status === "done") return;
      e.status = status;
      e.error = status === "failed" ? (error ?? "extraction failed") : null;
      if (status === "failed") e.processedAt = now;
      for (const j of enqueue?.(cloneEpisode(e)) ?? []) await jobs.enqueue(j);
    },
    async searchEpisodes({ brainId, query, limit, asOf, knownAt, filter }) {
      const d = data.get(brainId);
      if (!d) return [];
      const accept = (id: string) => {
        const e = d.episodes.get(id)!;
        return episodeVisibleAt(e, asOf, knownAt) && episodeMatches(e, filter);
      };
      return d.episodeText.search(query, { limit, accept }).map((h) => ({ item: cloneEpisode(d.episodes.get(h.item)!), score: h.score }));
    },
  };
}
