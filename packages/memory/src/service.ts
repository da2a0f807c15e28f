// createMemoryService: the memory API as a mountable service plus its extraction worker.
import {
  type Clock,
  defineService,
  type IdGenerator,
  kitLogger,
  type Logger,
  pageRoutes,
  randomIds,
  type Service,
  systemClock,
} from "@mountkit/core";
import { createWorker, type QuotaCounter, type Worker } from "@mountkit/core/jobs";
import { startWebhooks, type WebhookDispatcher, type WebhookOptions, webhookRoutes } from "@mountkit/core/webhooks";
import { extractionRuntime } from "#extraction-runtime";
import { createMemoryApi, type MemoryApi } from "./api.js";
import type { erasureRecordJson } from "./api-erasure.js";
import { createApiKey, revokeApiKey } from "./auth/keys.js";
import { brainOf, requireApiKey } from "./auth/middleware.js";
import { brainScope, MEMORY_EVENTS, memoryEvents } from "./domain/events.js";
import { type RelationSpec, relationTable } from "./domain/relations.js";
import type { Embedder } from "./embeddings.js";
import type { Extractor } from "./extractors/types.js";
import { createPipeline, EXTRACTION_QUEUE, type ExtractionPayload } from "./pipeline/run.js";
import { dailyQuota } from "./quota.js";
import type { RecallWeights } from "./retrieval/recall.js";
import { errors, SECURITY } from "./routes/common.js";
import { edgeRoutes } from "./routes/edges.js";
import { entityRoutes } from "./routes/entities.js";
import { episodeRoutes } from "./routes/episodes.js";
import { batchRoutes } from "./routes/ingest.js";
import { erasureRoutes } from "./routes/erasure.js";
import { type MemoryMcpHttp, mcpRoutes } from "./routes/mcp.js";
import { openapiRoutes } from "./routes/openapi.js";
import { playbookRoutes } from "./routes/playbooks.js";
import { recallRoutes } from "./routes/recall.js";
import type { ExtractionThreadsOptions } from "./runtime/types.js";
import { inMemoryMemoryStore } from "./store/in-memory.js";
import type { MemoryStore } from "./store/types.js";

export interface MemoryServiceOptions {
  store?: MemoryStore;
  /**
   * Default: the offline NLP extractor (`nlpExtractor()`, wink-nlp + chrono-node), on worker threads on Node
   * (see `extraction`) and in-process elsewhere. An extractor given here runs as given, on the event loop.
   */
  extractor?: Extractor;
  /** The default extractor's worker threads (Node only; ignored when `extractor` is given). */
  extraction?: ExtractionThreadsOptions;
  /**
   * Relations and verb patterns of the host's own, added to the built-in table (docs/memory.md#relations-and-cardinality):
   * `{ name: "mentors", verbs: ["mentor"], starts: ["start mentoring"], ends: ["stop mentoring"], cardinality: "object" }`.
   * The default extractor names them from their verbs; every extractor's output goes through the table, whose
   * cardinality decides what a newer fact supersedes.
   */
  relations?: readonly RelationSpec[];
  embedder?: Embedder;
  /** Successful calls per brain per UTC day; default 1000. */
  dailyQuota?: number;
  /**
   * Default: the store's quota holds (only successful calls consume it, exact across every process on the
   * same database). A counter given here reserves a unit per call and refunds failures instead.
   */
  quota?: QuotaCounter;
  clock?: Clock;
  ids?: IdGenerator;
  logger?: Logger;
  basePath?: string;
  bodyLimit?: number;
  worker?: {
    /** Default true; false leaves extraction to another process (or to `service.worker.start()`). */
    start?: boolean;
    concurrency?: number;
    pollMs?: number;
    maxAttempts?: number;
  };
  recallWeights?: Partial<RecallWeights>;
  /**
   * How long an `Idempotency-Key` answers its first episode (docs/memory.md#idempotent-and-batch-ingest); default 24 hours.
   * After it, the key stores a new episode.
   */
  idempotencyTtlMs?: number;
  /**
   * The memory explorer's browser bundle (`memoryExplorerScript` from `@mountkit/memory-explorer`): when
   * set, the page is served at `/v1/explorer/` (its script at `/v1/explorer/app.js`), with no key; the
   * key is typed into the page and sent as the bearer of its API calls. Off by default.
   */
  explorerScript?: string | (() => string | Promise<string>);
  /**
   * Outbound events (`episode.done`, `episode.failed`, `edge.invalidated`, `edge.superseded`) to the subscriptions of
   * `/v1/webhooks`: receivers' address policy, time cap, retry schedule, concurrency (docs/webhooks.md).
   */
  webhooks?: WebhookOptions;
  /** Largest body `POST /v1/import` reads (default 256 MiB); the CLI's import streams a file of any size. */
  importBodyLimit?: number;
  /**
   * The MCP server at `/v1/mcp` (Streamable HTTP, stateless, the API key as bearer): `mcpHttp()` from
   * `@mountkit/memory/mcp`, which needs `@modelcontextprotocol/sdk` installed (docs/memory.md#mcp). Off by default.
   */
  mcp?: MemoryMcpHttp;
}

/** Where the explorer page lives, under the service's basePath. */
export const EXPLORER_PATH = "/v1/explorer/";

export interface MemoryService extends Service {
  readonly api: MemoryApi;
  readonly store: MemoryStore;
  readonly worker: Worker;
  /** The outbound events' dispatcher (fan-out and delivery workers; `idle()`, `wake()`). */
  readonly webhooks: WebhookDispatcher;
  /** The extractor the pipeline runs: `options.extractor`, or the default (on worker threads on Node). */
  readonly extractor: Extractor;
  readonly keys: {
    create(input: { brainId: string; key?: string; label?: string }): Promise<{ key: string; id: string; brainId: string }>;
    revoke(id: string): Promise<boolean>;
  };
  /** Admin side of brains (docs/memory.md#erasure): `delete` removes a brain with everything it holds and its keys. */
  readonly brains: {
    delete(brainId: string): Promise<ReturnType<typeof erasureRecordJson>>;
  };
}

export function createMemoryService(options: MemoryServiceOptions = {}): MemoryService {
  const store = options.store ?? inMemoryMemoryStore();
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? randomIds;
  const logger = kitLogger(options.logger);
  // the default extractor is the service's own: its threads end with dispose; a host's extractor is the host's
  const relations = relationTable(options.relations);
  const owned = options.extractor
    ? undefined
    : extractionRuntime.defaultExtractor(options.extraction, {
        logger,
        ...(options.relations?.length ? { relations: options.relations } : {}),
      });
  const extractor = options.extractor ?? owned!;
  const webhooks = startWebhooks({ service: "memory", store: store.webhooks, jobs: store.jobs, clock, logger, options: options.webhooks });
  const events = memoryEvents(webhooks, clock);
  const pipeline = createPipeline({
    store,
    extractor,
    embedder: options.embedder,
    clock,
    ids,
    logger,
    events,
    relations,
  });
  const worker = createWorker<ExtractionPayload>({
    store: store.jobs,
    queue: EXTRACTION_QUEUE,
    handler: (job) => pipeline.handle(job),
    onDead: (job, err) => pipeline.onDead(job, err),
    concurrency: options.worker?.concurrency ?? 2,
    pollMs: options.worker?.pollMs ?? 250,
    clock,
    logger,
  });
  const api = createMemoryApi({
    store,
    clock,
    ids,
    embedder: options.embedder,
    recallWeights: options.recallWeights,
    onEnqueued: () => worker.wake(),
    maxAttempts: options.worker?.maxAttempts,
    events,
    ...(options.idempotencyTtlMs === undefined ? {} : { idempotencyTtlMs: options.idempotencyTtlMs }),
  });
  // a host's own counter is used as given (reserve and refund); the store's holds otherwise
  const quota = options.quota
    ? { counter: options.quota }
    : { counter: store.quota, ...(store.quotaHolds ? { holds: store.quotaHolds } : {}) };
  const guard = [requireApiKey(store), dailyQuota({ ...quota, limit: options.dailyQuota ?? 1000, clock })];
  const deps = { api, guard, basePath: (options.basePath ?? "").replace(/\/+$/, "") };

  let service: Service;
  const routes = [
    ...episodeRoutes(deps),
    ...batchRoutes(deps),
    ...recallRoutes(deps),
    ...edgeRoutes(deps),
    ...entityRoutes(deps),
    ...playbookRoutes(deps),
    ...erasureRoutes(deps, { importBodyLimit: options.importBodyLimit }),
    ...webhookRoutes({
      webhooks,
      path: "/v1/webhooks",
      use: guard,
      security: SECURITY,
      scopeOf: (ctx) => brainScope(brainOf(ctx.state)),
      eventTypes: MEMORY_EVENTS,
      authErrors: errors(),
    }),
    ...(options.mcp ? mcpRoutes({ api, auth: guard[0]!, quota: guard[1]!, mcp: options.mcp }) : []),
    ...openapiRoutes((mountPath) => service.openapi({ mountPath })),
    ...(options.explorerScript === undefined
      ? []
      : pageRoutes({ path: EXPLORER_PATH, title: "Memory explorer", element: "mountkit-memory-explorer", script: options.explorerScript })),
  ];
  service = defineService({
    name: "memory",
    title: "mountkit memory",
    version: "1.0.0",
    description: "Agent memory: episodes, extraction into a bi-temporal knowledge graph, hybrid recall as of any date.",
    mounts: ["/v1", "/openapi.yaml"],
    routes,
    securitySchemes: { apiKey: { type: "http", scheme: "bearer", description: "API key of one brain" } },
    basePath: options.basePath,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    clock,
    logger,
    ids,
    dispose: async () => {
      // the threads end at once: an episode they held is retried later (its error is transient), not failed
      const stopping = worker.stop();
      await owned?.destroy();
      await stopping;
      // after extraction: a commit finishing meanwhile may still queue events
      await webhooks.stop();
    },
  });
  if (options.worker?.start ?? true) worker.start();

  return Object.assign(service, {
    api,
    store,
    worker,
    webhooks,
    extractor,
    ...adminCalls(store, api, { clock, ids }),
  });
}

/** The service's administration: API keys, and deleting a brain with its webhook subscriptions. */
function adminCalls(store: MemoryStore, api: MemoryApi, { clock, ids }: { clock: Clock; ids: IdGenerator }) {
  return {
    keys: {
      async create(input: { brainId: string; key?: string; label?: string }) {
        const r = await createApiKey(store, input, { clock, ids });
        return { key: r.key, id: r.record.id, brainId: r.record.brainId };
      },
      revoke: (id: string) => revokeApiKey(store, id, { clock }),
    },
    brains: {
      async delete(brainId: string) {
        const record = await api.deleteBrain(brainId);
        // its webhook subscriptions go with it (their delivery log holds events' payloads)
        const scope = brainScope(brainId);
        for (const s of await store.webhooks.listSubscriptions(scope)) await store.webhooks.deleteSubscription(scope, s.id);
        return record;
      },
    },
  };
}
