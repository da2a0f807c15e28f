// The in-memory store's erasure (domain/erasure.ts decides, this file applies: records, BM25 and vector
// indexes, the conversation neighbours' index text), whole-brain deletion, the erasure audit, and the
// ordered reads and raw writes of export and import.
import { CONTEXT_TURNS, episodeConversation, isInferredConversation, searchableText } from "../domain/conversation.js";
import { type ErasureReads, type ErasureRecord, erasureRecord, planErasure } from "../domain/erasure.js";
import { byAge, type EpisodeRecord, type PageAfter } from "../domain/types.js";
import type { ExportKind, ExportRecords, StoreErasure } from "./erasure-types.js";
import {
  addTo,
  type BrainData,
  brainData,
  cloneEdge,
  cloneEntity,
  cloneEpisode,
  clonePlaybook,
  type MemoryState,
} from "./in-memory-data.js";
import { episodeMethods } from "./in-memory-episodes.js";

/**
 * Each episode's conversation as indexing assigned it, replayed in insertion order (the in-memory store keeps
 * no per-episode column): the same inference from the brain's newest episode as `createEpisode` ran.
 */
function conversations(d: BrainData): Map<string, string | null> {
  const out = new Map<string, string | null>();
  let newest: { createdAt: number; occurredAt: number; conversation: string | null } | null = null;
  for (const e of d.episodes.values()) {
    const c = episodeConversation(e, newest);
    out.set(e.id, c);
    if (newest === null || e.createdAt >= newest.createdAt) newest = { createdAt: e.createdAt, occurredAt: e.occurredAt, conversation: c };
  }
  return out;
}

/** Indexes again every turn left in the conversations an erased episode belonged to, and their tails. */
function reindexConversations(d: BrainData, of: Map<string, string | null>, erased: ReadonlySet<string>): void {
  const touched = new Set<string>();
  for (const id of erased) {
    const c = of.get(id);
    if (c) touched.add(c);
  }
  for (const c of touched) {
    const turns = [...d.episodes.values()].filter((e) => of.get(e.id) === c && !erased.has(e.id));
    turns.forEach((e, i) => {
      const previous = turns.slice(Math.max(0, i - CONTEXT_TURNS), i).reverse();
      const next = turns[i + 1];
      d.episodeText.add(
        e.id,
        searchableText(
          e.content,
          previous.map((t) => t.content),
          next ? [next.content] : [],
        ),
      );
    });
    if (d.conversationTail.has(c)) d.conversationTail.set(c, tailOf(d, of, c, erased));
  }
  // the brain's newest episode again (the next one's conversation is inferred from it), with its conversation's tail
  let last: EpisodeRecord | null = null;
  for (const e of d.episodes.values()) if (!erased.has(e.id) && (last === null || e.createdAt >= last.createdAt)) last = e;
  const conversation = last ? (of.get(last.id) ?? null) : null;
  d.newest = last ? { createdAt: last.createdAt, occurredAt: last.occurredAt, conversation } : null;
  if (conversation && isInferredConversation(conversation) && !d.conversationTail.has(conversation))
    d.conversationTail.set(conversation, tailOf(d, of, conversation, erased));
}

/** The latest turns of a conversation, newest first, as `createEpisode` keeps them. */
function tailOf(d: BrainData, of: Map<string, string | null>, c: string, erased: ReadonlySet<string>) {
  return [...d.episodes.values()]
    .filter((e) => of.get(e.id) === c && !erased.has(e.id))
    .slice(-(CONTEXT_TURNS + 1))
    .reverse()
    .map((t) => ({ id: t.id, content: t.content }));
}

function reads(d: BrainData): ErasureReads {
  const edgesNaming = (id: string) => [...(d.edgesByEntity.get(id) ?? [])].map((x) => d.edges.get(x)!);
  return {
    async episodes(ids) {
      return ids.flatMap((id) => (d.episodes.has(id) ? [cloneEpisode(d.episodes.get(id)!)] : []));
    },
    async episodesNaming(entityId) {
      const ids = new Set(edgesNaming(entityId).map((e) => e.episodeId));
      for (const e of d.episodes.values()) if (e.entityIds.includes(entityId)) ids.add(e.id);
      return [...ids];
    },
    async edgesOfEpisodes(episodeIds) {
      const set = new Set(episodeIds);
      return [...d.edges.values()].filter((e) => set.has(e.episodeId)).map(cloneEdge);
    },
    async edgesOfEntity(entityId) {
      return edgesNaming(entityId).map(cloneEdge);
    },
    async otherSupport(edgeIds, exclude) {
      const wanted = new Set(edgeIds);
      const out = new Map<string, string>();
      for (const e of d.episodes.values())
        if (!exclude.has(e.id)) for (const id of e.edgeIds) if (wanted.has(id) && !out.has(id)) out.set(id, e.id);
      return out;
    },
    async edgesCiting(edgeIds, episodeIds) {
      const cited = new Set([...edgeIds.map((id) => `edge ${id}:`), ...episodeIds.map((id) => `episode ${id}:`)]);
      const by = new Set(edgeIds);
      const m = (r: string | null) => (r === null ? null : / by ((?:edge|episode) \S+:) /.exec(r)?.[1]);
      return [...d.edges.values()]
        .filter((e) => (e.invalidatedBy !== null && by.has(e.invalidatedBy)) || cited.has(m(e.invalidationReason) ?? ""))
        .map(cloneEdge);
    },
    async supportedEntities(entityIds, goneEpisodes, goneEdges) {
      const kept = new Set<string>();
      for (const id of entityIds) {
        if (edgesNaming(id).some((e) => !goneEdges.has(e.id))) kept.add(id);
        else for (const e of d.episodes.values()) if (!goneEpisodes.has(e.id) && e.entityIds.includes(id)) kept.add(id);
      }
      return kept;
    },
    async playbooksHolding(episodeIds) {
      const set = new Set(episodeIds);
      return [...d.playbooks.values()].filter((p) => p.episodeIds.some((id) => set.has(id))).map(clonePlaybook);
    },
  };
}

function dropEdge(d: BrainData, id: string): void {
  const e = d.edges.get(id);
  if (!e) return;
  d.edges.delete(id);
  d.edgeText.remove(id);
  d.vectors.edge.delete(id);
  d.edgesBySource.get(e.source)?.delete(id);
  d.edgesByEntity.get(e.source)?.delete(id);
  d.edgesByEntity.get(e.target)?.delete(id);
  const list = d.edgesByEpisode.get(e.episodeId);
  if (list)
    d.edgesByEpisode.set(
      e.episodeId,
      list.filter((x) => x !== id),
    );
}

function dropEntity(d: BrainData, id: string): void {
  const e = d.entities.get(id);
  if (!e) return;
  d.entities.delete(id);
  d.entityText.remove(id);
  for (const k of e.keys) d.entityKeys.get(k)?.delete(id);
  d.edgesBySource.delete(id);
  d.edgesByEntity.delete(id);
}

type Methods = Required<Pick<StoreErasure, "eraseMemory" | "deleteBrain" | "listErasures" | "exportPage" | "importRecords">>;

export function erasureMethods(state: MemoryState): Methods {
  const audit: ErasureRecord[] = [];
  const position: { [K in ExportKind]: (r: ExportRecords[K]) => PageAfter } = {
    episodes: (e) => ({ createdAt: e.createdAt, id: e.id }),
    entities: (e) => ({ createdAt: e.createdAt, id: e.id }),
    edges: (e) => ({ createdAt: e.tIngested, id: e.id }),
    playbooks: (p) => ({ createdAt: p.createdAt, id: p.slug }),
  };
  const clones = { episodes: cloneEpisode, entities: cloneEntity, edges: cloneEdge, playbooks: clonePlaybook };
  return {
    async eraseMemory({ brainId, episodeIds, subjectId, audit: a }) {
      const d = brainData(state, brainId);
      const of = conversations(d);
      const plan = await planErasure(reads(d), { episodeIds, subjectId });
      const erased = new Set(plan.result.episodes);
      for (const id of plan.removeEdges) dropEdge(d, id);
      for (const r of plan.recite) {
        const e = d.edges.get(r.id)!;
        const list = d.edgesByEpisode.get(e.episodeId);
        if (list)
          d.edgesByEpisode.set(
            e.episodeId,
            list.filter((x) => x !== r.id),
          );
        e.episodeId = r.episodeId;
        d.edgesByEpisode.set(r.episodeId, [...(d.edgesByEpisode.get(r.episodeId) ?? []), r.id]);
      }
      for (const u of plan.uncite) Object.assign(d.edges.get(u.id)!, { invalidatedBy: u.invalidatedBy, invalidationReason: u.reason });
      for (const id of plan.removeEntities) dropEntity(d, id);
      for (const p of plan.playbooks) {
        if (!p.episodeIds.length) d.playbooks.delete(p.slug);
        else Object.assign(d.playbooks.get(p.slug)!, { episodeIds: p.episodeIds, updatedAt: Math.max(p.updatedAt, a.at) });
      }
      reindexConversations(d, of, erased);
      for (const id of erased) {
        d.episodes.delete(id);
        d.episodeText.remove(id);
        d.vectors.episode.delete(id);
        d.edgesByEpisode.delete(id);
      }
      audit.push(erasureRecord({ ...a, brainId }, plan.result));
      return plan.result;
    },
    async deleteBrain({ brainId, audit: a }) {
      const brain = state.brains.get(brainId);
      if (!brain) return null;
      const d = state.data.get(brainId);
      const counts = {
        episodes: d?.episodes.size ?? 0,
        edges: d?.edges.size ?? 0,
        entities: d?.entities.size ?? 0,
        playbooks: d?.playbooks.size ?? 0,
      };
      state.brains.delete(brainId);
      state.data.delete(brainId);
      state.versions.delete(brainId);
      for (const [hash, k] of state.keysByHash) if (k.brainId === brainId) state.keysByHash.delete(hash);
      const record: ErasureRecord = { id: a.id, brainId, kind: "brain", target: brainId, at: a.at, counts };
      audit.push(record);
      return { ...record, counts: { ...counts } };
    },
    async listErasures({ brainId }) {
      return audit.filter((r) => r.brainId === brainId).map((r) => ({ ...r, counts: { ...r.counts } }));
    },
    async exportPage({ brainId, kind, after, limit }) {
      const d = state.data.get(brainId);
      const all = d ? [...(d[kind] as Map<string, ExportRecords[typeof kind]>).values()] : [];
      return ascending(all, position[kind] as (r: ExportRecords[typeof kind]) => PageAfter, limit, after, clones[kind] as never) as never;
    },
    async importRecords({ brainId, batch, jobs }) {
      const d = brainData(state, brainId);
      const ids = batch.kind === "playbooks" ? batch.items.map((p) => p.slug) : batch.items.map((r) => r.id);
      const held = d[batch.kind] as Map<string, unknown>;
      for (const id of ids) if (held.has(id)) throw new Error(`duplicate ${batch.kind} ${id}`);
      await importBatch(state, d, brainId, batch);
      const createdAt = new Map(batch.kind === "episodes" ? batch.items.map((e) => [e.id, e.createdAt]) : []);
      for (const job of jobs ?? []) await state.jobs.enqueue({ ...job, now: createdAt.get(job.payload.episodeId) ?? 0 });
    },
  };
}

/** An oldest-first keyset page. */
function ascending<T>(all: T[], pos: (t: T) => PageAfter, limit: number, after: PageAfter | null, clone: (t: T) => T) {
  const sorted = all.filter((t) => !after || byAge(pos(t), after) > 0).sort((a, b) => byAge(pos(a), pos(b)));
  const items = sorted.slice(0, limit).map(clone);
  const last = items[items.length - 1];
  return { items, next: sorted.length > limit && last ? pos(last) : null };
}

async function importBatch(state: MemoryState, d: BrainData, brainId: string, batch: Parameters<Methods["importRecords"]>[0]["batch"]) {
  if (batch.kind === "episodes") {
    // indexed through createEpisode's own path, in the order given, so conversations pair turns as they did
    const noJobs = { ...state, jobs: { ...state.jobs, enqueue: async () => "" } } as unknown as MemoryState;
    const create = episodeMethods(noJobs).createEpisode;
    for (const e of batch.items) {
      await create({ episode: { ...e, brainId }, job: { id: "", queue: "", payload: { brainId, episodeId: e.id }, maxAttempts: 1 } });
      Object.assign(d.episodes.get(e.id)!, cloneEpisode({ ...e, brainId }));
    }
  } else if (batch.kind === "entities") {
    for (const e of batch.items) {
      d.entities.set(e.id, cloneEntity({ ...e, brainId }));
      for (const k of e.keys) addTo(d.entityKeys, k, e.id);
      d.entityText.add(e.id, [e.name, ...e.aliases].join(" \n "));
    }
  } else if (batch.kind === "edges") {
    for (const e of batch.items) {
      d.edges.set(e.id, cloneEdge({ ...e, brainId }));
      d.edgeText.add(e.id, e.fact);
      addTo(d.edgesBySource, e.source, e.id);
      addTo(d.edgesByEntity, e.source, e.id);
      addTo(d.edgesByEntity, e.target, e.id);
      d.edgesByEpisode.set(e.episodeId, [...(d.edgesByEpisode.get(e.episodeId) ?? []), e.id]);
    }
  } else for (const p of batch.items) d.playbooks.set(p.slug, clonePlaybook({ ...p, brainId }));
}
