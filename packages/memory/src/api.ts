// The service's operations as typed in-process calls, scoped by brain. Routes are thin wrappers
// around them; hosts and tests can call them without HTTP.
import type { Clock, IdGenerator } from "@mountkit/core";
import { iso } from "@mountkit/core";
import { erasureCalls } from "./api-erasure.js";
import type { MemoryEvents } from "./domain/events.js";
import { renderPlaybook } from "./domain/playbook.js";
import { edgeFilterOf, episodeFilterOf, type FilterInput, type ScopeFilter } from "./domain/scope.js";
import type { EdgeRecord } from "./domain/types.js";
import { edgeVisibleAt } from "./domain/types.js";
import { decodeCursor, edgeJson, encodeCursor, entityJson, episodeJson, playbookSummaryJson, scopeJson } from "./domain/wire.js";
import type { Embedder } from "./embeddings.js";
import { memoryError } from "./errors.js";
import { type CreateEpisodeInput, ingestCalls } from "./ingest.js";
import { type RecallWeights, recall } from "./retrieval/recall.js";
import type { MemoryStore } from "./store/types.js";

export interface MemoryApiDeps {
  store: MemoryStore;
  clock: Clock;
  ids: IdGenerator;
  embedder?: Embedder;
  recallWeights?: Partial<RecallWeights>;
  /** Called after an episode is stored so the worker picks its job at once. */
  onEnqueued?: () => void;
  maxAttempts?: number;
  /** Outbound events of changes (the manual invalidation's); none when absent. */
  events?: MemoryEvents;
  /** How long an idempotency key answers its first episode (docs/memory.md#idempotent-and-batch-ingest); default 24 h. */
  idempotencyTtlMs?: number;
}

export type { CreateEpisodeInput } from "./ingest.js";

export interface PageInput {
  cursor?: string;
  limit?: number;
}

/** Lines per section of a playbook's content, and its most recent episodes read to write it. */
const PLAYBOOK_LINES = 200;

/** What every group of calls shares. */
interface ApiContext {
  deps: MemoryApiDeps;
  store: MemoryStore;
  clock: Clock;
  ids: IdGenerator;
}

export function createMemoryApi(deps: MemoryApiDeps) {
  const ctx: ApiContext = { deps, store: deps.store, clock: deps.clock, ids: deps.ids };
  return {
    ...episodeCalls(ctx),
    ...recallCalls(ctx),
    ...edgeCalls(ctx),
    ...entityCalls(ctx),
    ...playbookCalls(ctx),
    ...erasureCalls({
      store: deps.store,
      clock: deps.clock,
      ids: deps.ids,
      maxAttempts: deps.maxAttempts,
      onEnqueued: deps.onEnqueued,
      events: deps.events,
    }),
  };
}

export type MemoryApi = ReturnType<typeof createMemoryApi>;

const notFound = (what: string, id: string) => memoryError("not_found", { message: `${what} not found`, details: { id } });

async function listPage<T, J>(
  page: PageInput,
  fetchPage: (
    after: ReturnType<typeof decodeCursor>,
    limit: number,
  ) => Promise<{ items: T[]; next: { createdAt: number; id: string } | null }>,
  toJson: (t: T) => J,
) {
  const after = decodeCursor(page.cursor);
  const r = await fetchPage(after, page.limit ?? 20);
  return { items: r.items.map(toJson), next: encodeCursor(r.next) };
}

function episodeCalls({ deps, store }: ApiContext) {
  const ingest = ingestCalls(deps);
  return {
    ...ingest,
    /** Stores an episode; extraction is queued (`ingestEpisode` takes an idempotency key). */
    async createEpisode(brainId: string, input: CreateEpisodeInput) {
      return (await ingest.ingestEpisode(brainId, input)).episode;
    },

    async getEpisode(brainId: string, id: string) {
      const e = await store.getEpisode({ brainId, id });
      if (!e) throw notFound("episode", id);
      return episodeJson(e);
    },

    /** `filter`: scope and metadata equality (docs/memory.md#scopes-and-filters). */
    listEpisodes: (brainId: string, page: PageInput & FilterInput = {}) =>
      listPage(page, (after, limit) => store.listEpisodes({ brainId, limit, after, filter: episodeFilterOf(page) }), episodeJson),
  };
}

function recallCalls({ deps, store, clock }: ApiContext) {
  return {
    /** `asOf` (valid time) and `knownAt` (transaction time) default to now, independently (docs/memory.md#time-two-axes). */
    /** Filters (scope, relation, entity, tValid range, metadata): docs/memory.md#scopes-and-filters. */
    async recall(brainId: string, input: { query: string; asOf?: number; knownAt?: number; limit?: number } & FilterInput) {
      const now = clock.now();
      const asOf = input.asOf ?? now;
      const knownAt = input.knownAt ?? now;
      const r = await recall(
        { store, embedder: deps.embedder, weights: deps.recallWeights },
        { brainId, query: input.query, asOf, knownAt, limit: input.limit ?? 10, filter: edgeFilterOf(input) },
      );
      return {
        asOf: iso(asOf),
        knownAt: iso(knownAt),
        context: r.context,
        edges: r.edges.map((e) => edgeJson(e, e.score)),
        entities: [...r.entities.values()].map((e) => ({ id: e.id, name: e.name, kind: e.kind })),
        episodes: r.episodes.map((e) => ({
          id: e.id,
          content: e.content,
          metadata: e.metadata,
          occurredAt: iso(e.occurredAt),
          createdAt: iso(e.createdAt),
          ...scopeJson(e),
        })),
      };
    },
  };
}

function edgeCalls({ deps, store, clock }: ApiContext) {
  return {
    async getEdge(brainId: string, id: string) {
      const e = await store.getEdge({ brainId, id });
      if (!e) throw notFound("edge", id);
      const episode = await store.getEpisode({ brainId, id: e.episodeId });
      return { ...edgeJson(e), episode: episode ? episodeJson(episode) : null };
    },

    /**
     * Every edge (history); with `asOf` or `knownAt` (epoch ms), only those visible then, the other axis now; the
     * filters of docs/memory.md#scopes-and-filters.
     */
    listEdges(brainId: string, page: PageInput & FilterInput & { asOf?: number; knownAt?: number } = {}) {
      const now = clock.now();
      const at =
        page.asOf === undefined && page.knownAt === undefined ? undefined : { asOf: page.asOf ?? now, knownAt: page.knownAt ?? now };
      return listPage(
        page,
        (after, limit) => store.listEdges({ brainId, limit, after, entityId: page.entityId, at, filter: edgeFilterOf(page) }),
        (e: EdgeRecord) => edgeJson(e),
      );
    },

    /** Ends validity now, also for an edge whose known end lies in the future; the record is not expired. */
    async invalidateEdge(brainId: string, id: string, input: { reason?: string } = {}) {
      const now = clock.now();
      const enqueue = await deps.events?.invalidated(brainId);
      const r = await store.invalidateEdge({
        brainId,
        id,
        tInvalid: now,
        now,
        tExpired: null,
        reason: input.reason?.trim() || "invalidated manually",
        invalidatedBy: null,
        ...(enqueue ? { enqueue } : {}),
      });
      if (r.ok && enqueue) deps.events?.committed();
      if (!r.ok && r.reason === "not_found") throw notFound("edge", id);
      if (!r.ok) {
        const current = await store.getEdge({ brainId, id });
        throw memoryError("already_invalidated", { details: { id, tInvalid: current?.tInvalid != null ? iso(current.tInvalid) : null } });
      }
      return edgeJson(r.edge);
    },
  };
}

function entityCalls({ store, clock }: ApiContext) {
  return {
    /** `scope`: only the entity's facts of that scope. */
    async getEntity(brainId: string, id: string, options: { edges?: number } & ScopeFilter = {}) {
      const e = await store.getEntity({ brainId, id });
      if (!e) throw notFound("entity", id);
      const now = clock.now();
      const filter = episodeFilterOf(options);
      const limit = options.edges ?? 20;
      const edges = await store.edgesOfEntities({
        brainId,
        entityIds: [id],
        asOf: now,
        knownAt: now,
        limit,
        ...(filter ? { filter } : {}),
      });
      return { ...entityJson(e), edges: edges.map((x) => edgeJson(x)) };
    },

    /** `scope`: only entities a fact of that scope touches. */
    listEntities: (brainId: string, page: PageInput & ScopeFilter = {}) =>
      listPage(page, (after, limit) => store.listEntities({ brainId, limit, after, scope: episodeFilterOf(page) }), entityJson),
  };
}

function playbookCalls({ store, clock }: ApiContext) {
  return {
    async getPlaybook(brainId: string, slug: string) {
      const p = await store.getPlaybook({ brainId, slug });
      if (!p) throw notFound("playbook", slug);
      const now = clock.now();
      const episodeIds = p.episodeIds.slice(-PLAYBOOK_LINES);
      const [all, episodes] = await Promise.all([
        store.edgesOfEpisodes({ brainId, episodeIds }),
        store.getEpisodes({ brainId, ids: episodeIds }),
      ]);
      const byStart = (a: EdgeRecord, b: EdgeRecord) => (a.tValid ?? a.tIngested) - (b.tValid ?? b.tIngested);
      const known = all.filter((e) => e.tIngested <= now && (e.tExpired === null || now < e.tExpired)).sort(byStart);
      const current = known.filter((e) => edgeVisibleAt(e, now, now)).slice(-PLAYBOOK_LINES);
      const content = renderPlaybook({
        title: p.title,
        current,
        past: known.filter((e) => !edgeVisibleAt(e, now, now)),
        episodes: episodes.map((episode) => ({ episode, edges: all.filter((e) => e.episodeId === episode.id) })),
        maxLines: PLAYBOOK_LINES,
      });
      return {
        slug: p.slug,
        title: p.title,
        content,
        edges: current.map((e) => e.id),
        episodes: p.episodeIds,
        updatedAt: iso(p.updatedAt),
      };
    },

    listPlaybooks: (brainId: string, page: PageInput = {}) =>
      listPage(page, (after, limit) => store.listPlaybooks({ brainId, limit, after }), playbookSummaryJson),
  };
}
