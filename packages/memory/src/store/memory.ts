// In-memory MemoryStore: maps per brain plus BM25 indexes. The reference implementation of the
// store contract (src/testing.ts) and the default store of tests, examples and benchmarks.
import { type JobStore, memoryJobStore, memoryQuotaCounter, type QuotaCounter } from "@mountkit/core";
import { CONTEXT_TURNS, conversationKey, searchableText } from "../domain/conversation.js";
import {
  type ApiKeyRecord,
  type BrainRecord,
  type EdgeRecord,
  type EntityRecord,
  type EpisodeRecord,
  edgeVisibleAt,
  episodeVisibleAt,
  type Page,
  type PageAfter,
  type PlaybookRecord,
} from "../domain/types.js";
import { type Bm25Index, bm25Index } from "../retrieval/bm25.js";
import { topK } from "../retrieval/topk.js";
import { memoryQuotaHolds } from "./memory-quota.js";
import type { MemoryStore, SearchHit } from "./types.js";

interface BrainData {
  episodes: Map<string, EpisodeRecord>;
  entities: Map<string, EntityRecord>;
  edges: Map<string, EdgeRecord>;
  playbooks: Map<string, PlaybookRecord>;
  episodeText: Bm25Index;
  /** Latest turns (newest first, at most CONTEXT_TURNS + 1) of each conversation, for the next turn's index text and the re-index of the turn before it. */
  conversationTail: Map<string, Array<{ id: string; content: string }>>;
  edgeText: Bm25Index;
  entityText: Bm25Index;
  entityKeys: Map<string, Set<string>>;
  edgesBySource: Map<string, Set<string>>;
  edgesByEntity: Map<string, Set<string>>;
  edgesByEpisode: Map<string, string[]>;
  vectors: { edge: Map<string, Float32Array>; episode: Map<string, Float32Array> };
}

const cloneEdge = (e: EdgeRecord): EdgeRecord => ({ ...e });
const cloneEntity = (e: EntityRecord): EntityRecord => ({ ...e, aliases: [...e.aliases], keys: [...e.keys] });
const cloneEpisode = (e: EpisodeRecord): EpisodeRecord => ({
  ...e,
  metadata: structuredClone(e.metadata),
  entityIds: [...e.entityIds],
  edgeIds: [...e.edgeIds],
});
const clonePlaybook = (p: PlaybookRecord): PlaybookRecord => ({ ...p, episodeIds: [...p.episodeIds] });

const newestFirst = (a: PageAfter, b: PageAfter) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
const isAfter = (pos: PageAfter, after: PageAfter) => newestFirst(after, pos) < 0;

function paginate<T>(
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

const entityText = (e: EntityRecord) => [e.name, ...e.aliases].join(" \n ");

function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V) {
  let s = map.get(key);
  if (!s) map.set(key, (s = new Set()));
  s.add(value);
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

export interface MemoryStoreOptions {
  jobs?: JobStore;
  quota?: QuotaCounter;
}

export function memoryMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const brains = new Map<string, BrainRecord>();
  const keysByHash = new Map<string, ApiKeyRecord>();
  const data = new Map<string, BrainData>();
  /** Committed extractions per brain (brainVersion). */
  const versions = new Map<string, number>();
  const jobs = options.jobs ?? memoryJobStore();

  const brain = (brainId: string): BrainData => {
    let d = data.get(brainId);
    if (!d) {
      d = {
        episodes: new Map(),
        entities: new Map(),
        edges: new Map(),
        playbooks: new Map(),
        episodeText: bm25Index(),
        conversationTail: new Map(),
        edgeText: bm25Index(),
        entityText: bm25Index(),
        entityKeys: new Map(),
        edgesBySource: new Map(),
        edgesByEntity: new Map(),
        edgesByEpisode: new Map(),
        vectors: { edge: new Map(), episode: new Map() },
      };
      data.set(brainId, d);
    }
    return d;
  };

  const indexEntity = (d: BrainData, e: EntityRecord) => {
    for (const k of e.keys) addTo(d.entityKeys, k, e.id);
    d.entityText.add(e.id, entityText(e));
  };

  return {
    jobs,
    quota: options.quota ?? memoryQuotaCounter(),
    ...(options.quota ? {} : { quotaHolds: memoryQuotaHolds() }),

    async createBrain({ brain: b }) {
      if (!brains.has(b.id)) brains.set(b.id, { ...b });
      return { ...brains.get(b.id)! };
    },
    async getBrain({ brainId }) {
      const b = brains.get(brainId);
      return b ? { ...b } : null;
    },
    async listBrains() {
      return [...brains.values()].map((b) => ({ ...b }));
    },
    async createApiKey({ key }) {
      if (keysByHash.has(key.hash)) throw new Error("duplicate api key");
      keysByHash.set(key.hash, { ...key });
    },
    async findApiKey({ hash }) {
      const k = keysByHash.get(hash);
      return k ? { ...k } : null;
    },
    async revokeApiKey({ id, now }) {
      for (const k of keysByHash.values()) {
        if (k.id === id && k.revokedAt === null) {
          k.revokedAt = now;
          return true;
        }
      }
      return false;
    },
    async listApiKeys({ brainId }) {
      return [...keysByHash.values()].filter((k) => !brainId || k.brainId === brainId).map((k) => ({ ...k }));
    },

    async createEpisode({ episode, job }) {
      const d = brain(episode.brainId);
      if (d.episodes.has(episode.id)) throw new Error(`duplicate episode ${episode.id}`);
      d.episodes.set(episode.id, cloneEpisode(episode));
      // turns of one conversation are indexed with the turns before them (domain/conversation.ts)
      const conversation = conversationKey(episode.metadata);
      const tail = conversation ? (d.conversationTail.get(conversation) ?? []) : [];
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
      if (conversation)
        d.conversationTail.set(conversation, [{ id: episode.id, content: episode.content }, ...tail].slice(0, CONTEXT_TURNS + 1));
      await jobs.enqueue({
        id: job.id,
        queue: job.queue,
        payload: job.payload,
        maxAttempts: job.maxAttempts,
        groupKey: job.groupKey,
        now: episode.createdAt,
      });
    },
    async getEpisode({ brainId, id }) {
      const e = data.get(brainId)?.episodes.get(id);
      return e ? cloneEpisode(e) : null;
    },
    async getEpisodes({ brainId, ids }) {
      const d = data.get(brainId);
      if (!d) return [];
      return ids.flatMap((id) => {
        const e = d.episodes.get(id);
        return e ? [cloneEpisode(e)] : [];
      });
    },
    async listEpisodes({ brainId, limit, after }) {
      const d = data.get(brainId);
      return paginate(d?.episodes.values() ?? [], (e) => e, limit, after, cloneEpisode);
    },
    async setEpisodeStatus({ brainId, id, status, error, now }) {
      const e = data.get(brainId)?.episodes.get(id);
      if (!e || e.status === "done") return;
      e.status = status;
      e.error = status === "failed" ? (error ?? "extraction failed") : null;
      if (status === "failed") e.processedAt = now;
    },
    async searchEpisodes({ brainId, query, limit, asOf, knownAt }) {
      const d = data.get(brainId);
      if (!d) return [];
      return d.episodeText
        .search(query, { limit, accept: (id) => episodeVisibleAt(d.episodes.get(id)!, asOf, knownAt) })
        .map((h) => ({ item: cloneEpisode(d.episodes.get(h.item)!), score: h.score }));
    },

    async getEntity({ brainId, id }) {
      const e = data.get(brainId)?.entities.get(id);
      return e ? cloneEntity(e) : null;
    },
    async getEntities({ brainId, ids }) {
      const d = data.get(brainId);
      if (!d) return [];
      return ids.flatMap((id) => {
        const e = d.entities.get(id);
        return e ? [cloneEntity(e)] : [];
      });
    },
    async listEntities({ brainId, limit, after }) {
      return paginate(data.get(brainId)?.entities.values() ?? [], (e) => e, limit, after, cloneEntity);
    },
    async findEntitiesByKeys({ brainId, keys, limit }) {
      const d = data.get(brainId);
      if (!d) return [];
      const ids = new Set<string>();
      for (const k of keys) for (const id of d.entityKeys.get(k) ?? []) ids.add(id);
      return [...ids].slice(0, limit).map((id) => cloneEntity(d.entities.get(id)!));
    },
    async searchEntities({ brainId, query, limit }) {
      const d = data.get(brainId);
      if (!d) return [];
      return d.entityText.search(query, { limit }).map((h) => ({ item: cloneEntity(d.entities.get(h.item)!), score: h.score }));
    },

    async getEdge({ brainId, id }) {
      const e = data.get(brainId)?.edges.get(id);
      return e ? cloneEdge(e) : null;
    },
    async getEdges({ brainId, ids }) {
      const d = data.get(brainId);
      if (!d) return [];
      return ids.flatMap((id) => {
        const e = d.edges.get(id);
        return e ? [cloneEdge(e)] : [];
      });
    },
    async listEdges({ brainId, limit, after, entityId, at }) {
      const d = data.get(brainId);
      if (!d) return { items: [], next: null };
      const all = entityId ? [...(d.edgesByEntity.get(entityId) ?? [])].map((id) => d.edges.get(id)!) : [...d.edges.values()];
      const pool = at ? all.filter((e) => edgeVisibleAt(e, at.asOf, at.knownAt ?? at.asOf)) : all;
      return paginate(pool, (e) => ({ createdAt: e.tIngested, id: e.id }), limit, after, cloneEdge);
    },
    async findCurrentEdges({ brainId, source, relation }) {
      const d = data.get(brainId);
      if (!d) return [];
      return [...(d.edgesBySource.get(source) ?? [])]
        .map((id) => d.edges.get(id)!)
        .filter((e) => e.tExpired === null && (!relation || e.relation === relation))
        .map(cloneEdge);
    },
    async edgesOfEntities({ brainId, entityIds, asOf, knownAt, limit }) {
      const d = data.get(brainId);
      if (!d) return [];
      const seen = new Set<string>();
      const out: Array<SearchHit<EdgeRecord>> = [];
      for (const entityId of entityIds) {
        for (const id of d.edgesByEntity.get(entityId) ?? []) {
          if (seen.has(id)) continue;
          seen.add(id);
          const e = d.edges.get(id)!;
          if (edgeVisibleAt(e, asOf, knownAt)) out.push({ item: e, score: e.tValid ?? e.tIngested });
        }
      }
      return topK(out, limit).map((h) => cloneEdge(h.item));
    },
    async edgesOfEpisodes({ brainId, episodeIds }) {
      const d = data.get(brainId);
      if (!d) return [];
      return episodeIds.flatMap((ep) => (d.edgesByEpisode.get(ep) ?? []).map((id) => cloneEdge(d.edges.get(id)!)));
    },
    async searchEdges({ brainId, query, limit, asOf, knownAt }) {
      const d = data.get(brainId);
      if (!d) return [];
      return d.edgeText
        .search(query, { limit, accept: (id) => edgeVisibleAt(d.edges.get(id)!, asOf, knownAt) })
        .map((h) => ({ item: cloneEdge(d.edges.get(h.item)!), score: h.score }));
    },
    async invalidateEdge({ brainId, id, tInvalid, tExpired, reason, invalidatedBy }) {
      const e = data.get(brainId)?.edges.get(id);
      if (!e) return { ok: false, reason: "not_found" };
      if ((e.tInvalid !== null && e.tInvalid <= tInvalid) || e.tExpired !== null) return { ok: false, reason: "already_invalid" };
      e.tInvalid = tInvalid;
      e.tExpired = tExpired;
      e.invalidationReason = reason;
      e.invalidatedBy = invalidatedBy;
      return { ok: true, edge: cloneEdge(e) };
    },

    async brainVersion({ brainId }) {
      return versions.get(brainId) ?? 0;
    },
    async commitExtraction(c) {
      const d = data.get(c.brainId);
      const episode = d?.episodes.get(c.episodeId);
      if (!d || !episode) return { committed: false, reason: "episode_not_found" };
      if (episode.status === "done") return { committed: false, reason: "already_done" };
      const version = versions.get(c.brainId) ?? 0;
      if (c.expectVersion !== undefined && c.expectVersion !== version) return { committed: false, reason: "conflict" };
      // Validate before writing anything so a bad commit leaves no partial state.
      for (const u of c.updateEntities) if (!d.entities.has(u.id)) throw new Error(`unknown entity ${u.id}`);
      for (const inv of c.invalidate) if (!d.edges.has(inv.id)) throw new Error(`unknown edge ${inv.id}`);
      for (const e of c.createEdges) {
        const known = (id: string) => d.entities.has(id) || c.createEntities.some((n) => n.id === id);
        if (!known(e.source) || !known(e.target)) throw new Error(`edge ${e.id} references an unknown entity`);
      }
      versions.set(c.brainId, version + 1);
      for (const e of c.createEntities) {
        d.entities.set(e.id, cloneEntity(e));
        indexEntity(d, e);
      }
      for (const u of c.updateEntities) {
        const e = d.entities.get(u.id)!;
        Object.assign(e, { name: u.name, kind: u.kind, aliases: [...u.aliases], keys: [...u.keys], updatedAt: u.updatedAt });
        indexEntity(d, e);
      }
      for (const inv of c.invalidate) {
        const e = d.edges.get(inv.id)!;
        if (e.tExpired !== null) continue;
        if (inv.tInvalid !== null) e.tInvalid = e.tInvalid === null ? inv.tInvalid : Math.min(e.tInvalid, inv.tInvalid);
        e.tExpired = inv.tExpired;
        e.invalidationReason = inv.reason;
        e.invalidatedBy = inv.invalidatedBy;
      }
      const edgeIds: string[] = [];
      for (const e of c.createEdges) {
        d.edges.set(e.id, cloneEdge(e));
        d.edgeText.add(e.id, e.fact);
        addTo(d.edgesBySource, e.source, e.id);
        addTo(d.edgesByEntity, e.source, e.id);
        addTo(d.edgesByEntity, e.target, e.id);
        edgeIds.push(e.id);
      }
      d.edgesByEpisode.set(c.episodeId, [...(d.edgesByEpisode.get(c.episodeId) ?? []), ...edgeIds]);
      if (c.playbook) {
        const p = d.playbooks.get(c.playbook.slug);
        if (p) {
          if (!p.episodeIds.includes(c.episodeId)) p.episodeIds.push(c.episodeId);
          p.updatedAt = c.now;
        } else {
          d.playbooks.set(c.playbook.slug, {
            brainId: c.brainId,
            slug: c.playbook.slug,
            title: c.playbook.title,
            episodeIds: [c.episodeId],
            createdAt: c.now,
            updatedAt: c.now,
          });
        }
      }
      episode.status = "done";
      episode.error = null;
      episode.entityIds = [...c.entityIds];
      episode.edgeIds = [...c.edgeIds];
      episode.processedAt = c.now;
      return { committed: true };
    },

    async getPlaybook({ brainId, slug }) {
      const p = data.get(brainId)?.playbooks.get(slug);
      return p ? clonePlaybook(p) : null;
    },
    async listPlaybooks({ brainId, limit, after }) {
      return paginate(
        data.get(brainId)?.playbooks.values() ?? [],
        (p) => ({ createdAt: p.updatedAt, id: p.slug }),
        limit,
        after,
        clonePlaybook,
      );
    },

    async putEmbeddings({ brainId, items }) {
      const d = brain(brainId);
      for (const it of items) d.vectors[it.kind].set(it.id, Float32Array.from(it.vector));
    },
    async searchVectors({ brainId, kind, vector, limit }) {
      const d = data.get(brainId);
      if (!d) return [];
      const q = Float32Array.from(vector);
      function* all() {
        for (const [id, v] of d!.vectors[kind]) yield { item: id, score: cosine(q, v) };
      }
      return topK(all(), limit);
    },
  };
}
