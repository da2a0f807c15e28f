// The in-memory store's graph reads: entities by id, key and words; edges by id, entity, episode and
// words, each filtered to a bi-temporal point where asked; and the one edge write outside a commit.
import { edgeMatches, matchesScope } from "../domain/scope.js";
import { byAge, type EdgeRecord, edgeVisibleAt } from "../domain/types.js";
import { topK } from "../retrieval/topk.js";
import { cloneEdge, cloneEntity, type MemoryState, one, paginate, some, touchPlaybooks } from "./in-memory-data.js";
import type { MemoryStore, SearchHit } from "./types.js";

type EntityMethods = Pick<MemoryStore, "getEntity" | "getEntities" | "listEntities" | "findEntitiesByKeys" | "searchEntities">;
type EdgeMethods = Pick<
  MemoryStore,
  "getEdge" | "getEdges" | "listEdges" | "findCurrentEdges" | "edgesOfEntities" | "edgesOfEpisodes" | "searchEdges" | "invalidateEdge"
>;

export function entityMethods({ data }: MemoryState): EntityMethods {
  return {
    async getEntity({ brainId, id }) {
      return one(data.get(brainId)?.entities, id, cloneEntity);
    },
    async getEntities({ brainId, ids }) {
      return some(data.get(brainId)?.entities, ids, cloneEntity);
    },
    async listEntities({ brainId, limit, after, scope }) {
      const d = data.get(brainId);
      const all = [...(d?.entities.values() ?? [])];
      // an entity is the brain's; a scope sees those its facts touch
      const touched = (id: string) => [...(d!.edgesByEntity.get(id) ?? [])].some((e) => matchesScope(d!.edges.get(e)!, scope));
      return paginate(scope ? all.filter((e) => touched(e.id)) : all, (e) => e, limit, after, cloneEntity);
    },
    async findEntitiesByKeys({ brainId, keys, limit }) {
      const d = data.get(brainId);
      if (!d) return [];
      const ids = new Set<string>();
      for (const k of keys) {
        const same = [...(d.entityKeys.get(k) ?? [])].map((id) => d.entities.get(id)!);
        for (const e of same.sort(byAge)) ids.add(e.id);
      }
      return [...ids].slice(0, limit).map((id) => cloneEntity(d.entities.get(id)!));
    },
    async searchEntities({ brainId, query, limit }) {
      const d = data.get(brainId);
      if (!d) return [];
      return d.entityText.search(query, { limit }).map((h) => ({ item: cloneEntity(d.entities.get(h.item)!), score: h.score }));
    },
  };
}

export function edgeMethods({ data, jobs }: MemoryState): EdgeMethods {
  /** `edgeMatches` in brain `d`, its metadata filter reading the edges' episodes. */
  const matcher = (d: NonNullable<ReturnType<typeof data.get>>, filter: Parameters<typeof edgeMatches>[1]) =>
    filter ? (e: EdgeRecord) => edgeMatches(e, filter, (id) => d.episodes.get(id)) : () => true;
  return {
    async getEdge({ brainId, id }) {
      return one(data.get(brainId)?.edges, id, cloneEdge);
    },
    async getEdges({ brainId, ids }) {
      return some(data.get(brainId)?.edges, ids, cloneEdge);
    },
    async listEdges({ brainId, limit, after, entityId, at, filter }) {
      const d = data.get(brainId);
      if (!d) return { items: [], next: null };
      const all = entityId ? [...(d.edgesByEntity.get(entityId) ?? [])].map((id) => d.edges.get(id)!) : [...d.edges.values()];
      const matches = matcher(d, filter);
      const pool = all.filter((e) => (!at || edgeVisibleAt(e, at.asOf, at.knownAt ?? at.asOf)) && matches(e));
      return paginate(pool, (e) => ({ createdAt: e.tIngested, id: e.id }), limit, after, cloneEdge);
    },
    async findCurrentEdges({ brainId, source, relation, scope }) {
      const d = data.get(brainId);
      if (!d) return [];
      return (typeof source === "string" ? [source] : [...new Set(source)])
        .flatMap((s) => [...(d.edgesBySource.get(s) ?? [])])
        .map((id) => d.edges.get(id)!)
        .filter((e) => e.tExpired === null && (!relation || e.relation === relation) && matchesScope(e, scope))
        .map(cloneEdge);
    },
    async edgesOfEntities({ brainId, entityIds, asOf, knownAt, limit, filter }) {
      const d = data.get(brainId);
      if (!d) return [];
      const matches = matcher(d, filter);
      const seen = new Set<string>();
      const out: Array<SearchHit<EdgeRecord>> = [];
      for (const entityId of entityIds) {
        for (const id of d.edgesByEntity.get(entityId) ?? []) {
          if (seen.has(id)) continue;
          seen.add(id);
          const e = d.edges.get(id)!;
          if (edgeVisibleAt(e, asOf, knownAt) && matches(e)) out.push({ item: e, score: e.tValid ?? e.tIngested });
        }
      }
      return topK(out, limit).map((h) => cloneEdge(h.item));
    },
    async edgesOfEpisodes({ brainId, episodeIds }) {
      const d = data.get(brainId);
      if (!d) return [];
      return episodeIds.flatMap((ep) => (d.edgesByEpisode.get(ep) ?? []).map((id) => cloneEdge(d.edges.get(id)!)));
    },
    async searchEdges({ brainId, query, limit, asOf, knownAt, filter }) {
      const d = data.get(brainId);
      if (!d) return [];
      const matches = matcher(d, filter);
      const accept = (id: string) => {
        const e = d.edges.get(id)!;
        return edgeVisibleAt(e, asOf, knownAt) && matches(e);
      };
      return d.edgeText.search(query, { limit, accept }).map((h) => ({ item: cloneEdge(d.edges.get(h.item)!), score: h.score }));
    },
    async invalidateEdge({ brainId, id, tInvalid, now, tExpired, reason, invalidatedBy, enqueue }) {
      const d = data.get(brainId);
      const e = d?.edges.get(id);
      if (!d || !e) return { ok: false, reason: "not_found" };
      if ((e.tInvalid !== null && e.tInvalid <= tInvalid) || e.tExpired !== null) return { ok: false, reason: "already_invalid" };
      e.tInvalid = tInvalid;
      e.tExpired = tExpired;
      e.invalidationReason = reason;
      e.invalidatedBy = invalidatedBy;
      touchPlaybooks(d, new Set([e.episodeId]), now ?? tInvalid);
      for (const j of enqueue?.(cloneEdge(e)) ?? []) await jobs.enqueue(j);
      return { ok: true, edge: cloneEdge(e) };
    },
  };
}
