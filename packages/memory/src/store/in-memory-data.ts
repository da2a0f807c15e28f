// The in-memory store's state: per-brain maps and BM25 indexes, and the helpers every group of its
// methods shares (copies handed out, newest-first pages, lookups by id).
import type { JobStore } from "@mountkit/core/jobs";
import type {
  ApiKeyRecord,
  BrainRecord,
  EdgeRecord,
  EntityRecord,
  EpisodeRecord,
  Page,
  PageAfter,
  PlaybookRecord,
} from "../domain/types.js";
import { type Bm25Index, bm25Index } from "../retrieval/bm25.js";

export interface BrainData {
  episodes: Map<string, EpisodeRecord>;
  entities: Map<string, EntityRecord>;
  edges: Map<string, EdgeRecord>;
  playbooks: Map<string, PlaybookRecord>;
  episodeText: Bm25Index;
  /** Latest turns (newest first, at most CONTEXT_TURNS + 1) of each conversation, for the next turn's index text and the re-index of the turn before it. */
  conversationTail: Map<string, Array<{ id: string; content: string }>>;
  /** The brain's latest stored episode (greatest createdAt, then insertion order) and its conversation, for the next one's inference. */
  newest: { createdAt: number; occurredAt: number; conversation: string | null } | null;
  edgeText: Bm25Index;
  entityText: Bm25Index;
  entityKeys: Map<string, Set<string>>;
  edgesBySource: Map<string, Set<string>>;
  edgesByEntity: Map<string, Set<string>>;
  edgesByEpisode: Map<string, string[]>;
  vectors: { edge: Map<string, Float32Array>; episode: Map<string, Float32Array> };
  /** Idempotency keys claimed by episodes (MemoryStore.createEpisode `idempotency`). */
  idempotency: Map<string, { episodeId: string; fingerprint: string; expiresAt: number }>;
}

/** Everything one store instance holds. */
export interface MemoryState {
  brains: Map<string, BrainRecord>;
  keysByHash: Map<string, ApiKeyRecord>;
  data: Map<string, BrainData>;
  /** Committed extractions per brain (brainVersion). */
  versions: Map<string, number>;
  jobs: JobStore;
}

/** The brain's data, created empty on first write. */
export function brainData(state: MemoryState, brainId: string): BrainData {
  let d = state.data.get(brainId);
  if (!d) {
    d = {
      episodes: new Map(),
      entities: new Map(),
      edges: new Map(),
      playbooks: new Map(),
      episodeText: bm25Index(),
      conversationTail: new Map(),
      newest: null,
      edgeText: bm25Index(),
      entityText: bm25Index(),
      entityKeys: new Map(),
      edgesBySource: new Map(),
      edgesByEntity: new Map(),
      edgesByEpisode: new Map(),
      vectors: { edge: new Map(), episode: new Map() },
      idempotency: new Map(),
    };
    state.data.set(brainId, d);
  }
  return d;
}

export const cloneEdge = (e: EdgeRecord): EdgeRecord => ({ ...e });
export const cloneEntity = (e: EntityRecord): EntityRecord => ({ ...e, aliases: [...e.aliases], keys: [...e.keys] });
export const cloneEpisode = (e: EpisodeRecord): EpisodeRecord => ({
  ...e,
  metadata: structuredClone(e.metadata),
  entityIds: [...e.entityIds],
  edgeIds: [...e.edgeIds],
});
export const clonePlaybook = (p: PlaybookRecord): PlaybookRecord => ({ ...p, episodeIds: [...p.episodeIds] });

/** Moves `updatedAt` of every playbook of the brain holding one of these episodes to `now`, never back. */
export function touchPlaybooks(d: BrainData, episodeIds: ReadonlySet<string>, now: number): void {
  if (!episodeIds.size) return;
  for (const p of d.playbooks.values()) if (p.updatedAt < now && p.episodeIds.some((id) => episodeIds.has(id))) p.updatedAt = now;
}

/** A copy of the record with this id, or null. */
export function one<T>(records: Map<string, T> | undefined, id: string, clone: (t: T) => T): T | null {
  const r = records?.get(id);
  return r ? clone(r) : null;
}

/** Copies of the records with these ids, in the order asked, the missing ones left out. */
export function some<T>(records: Map<string, T> | undefined, ids: string[], clone: (t: T) => T): T[] {
  if (!records) return [];
  return ids.flatMap((id) => {
    const r = records.get(id);
    return r ? [clone(r)] : [];
  });
}

const newestFirst = (a: PageAfter, b: PageAfter) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
const isAfter = (pos: PageAfter, after: PageAfter) => newestFirst(after, pos) < 0;

export function paginate<T>(
  all: Iterable<T>,
  position: (t: T) => PageAfter,
  limit: number,
  after: PageAfter | null | undefined,
  clone: (t: T) => T,
): Page<T> {
  const sorted = [...all].filter((t) => !after || isAfter(position(t), after)).sort((a, b) => newestFirst(position(a), position(b)));
  const items = sorted.slice(0, limit).map(clone);
  const last = items[items.length - 1];
  return { items, next: sorted.length > limit && last ? position(last) : null };
}

export function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V) {
  let s = map.get(key);
  if (!s) map.set(key, (s = new Set()));
  s.add(value);
}
