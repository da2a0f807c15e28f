// createSupportService: interfaces A (/api/conversations), B (/care) and the agent side (/agent) on one store.
import {
  buildOpenApi,
  type Clock,
  type CorsOptions,
  defineService,
  type IdGenerator,
  iso,
  json,
  kitLogger,
  type Logger,
  memoryJobStore,
  memoryPubSub,
  memoryRateLimiter,
  type OpenApiDocument,
  type PubSub,
  pageRoutes,
  type RateLimiter,
  type Route,
  randomIds,
  route,
  type Service,
  systemClock,
} from "@mountkit/core";
import type { CustomerScope } from "./domain/backend.js";
import { type Conversations, createConversations } from "./domain/conversations.js";
import { withMetadata } from "./domain/metadata.js";
import { type ProductConfig, type ProductLimits, type ProductRegistry, productRegistry } from "./domain/products.js";
import { type CloseAction, closeMessage } from "./domain/status.js";
import { subjectOr } from "./domain/subject.js";
import { issueDetail } from "./domain/wire.js";
import { ErrorSchema, supportError } from "./errors.js";
import type { SupportContext } from "./http/context.js";
import { agentRoutes } from "./routes/agent.js";
import { publicRoutes } from "./routes/public.js";
import { spiRoutes } from "./routes/spi.js";
import { webhookRoutes } from "./routes/webhooks.js";
import { memorySupportStore } from "./store/memory.js";
import type { SupportStore } from "./store/types.js";
import { createStreamHub, type StreamHub } from "./stream/hub.js";

export interface SupportServiceOptions {
  /** Products served; a bare string is a built-in product with default limits. */
  products: ReadonlyArray<ProductConfig | string>;
  store?: SupportStore;
  /** Carries ids-only event notices; a cross-process bus makes every process's streams see every change. */
  bus?: PubSub;
  limiter?: RateLimiter;
  /** Defaults for every product's limits. */
  limits?: Partial<ProductLimits>;
  /** The product interface B serves; default the first product. */
  spiProduct?: string;
  /** Bearer token of /care; unset refuses every call with 401. */
  spiToken?: string;
  /** Bearer token of /agent; unset refuses every call with 401. */
  agentToken?: string;
  clock?: Clock;
  ids?: IdGenerator;
  logger?: Logger;
  basePath?: string;
  /** Request body limit; default 64 KiB. */
  bodyLimit?: number;
  /**
   * Origins allowed to call interface A and its stream from a browser page (a widget embedded on
   * another site): `"*"` or exact origins such as `https://shop.example`. Products can add their own
   * (`ProductConfig.corsOrigins`); a preflight carries no product, so the union of all is allowed.
   * Unset, with no product listing any: no CORS headers.
   */
  corsOrigins?: "*" | readonly string[];
  /**
   * The embeddable widget's browser bundle, served at `/api/conversations/widget.js` when given:
   * `supportWidgetScript` from `@mountkit/support-widget`, or the script text itself.
   */
  widgetScript?: string | (() => string | Promise<string>);
  /**
   * The agent inbox's browser bundle, served as a page at `/agent/inbox/` when given: `supportInboxScript`
   * from `@mountkit/support-inbox`, or the script text itself. The page signs in with the agent token.
   */
  inboxScript?: string | (() => string | Promise<string>);
  /** `: ping` interval on streams; default 15 s. */
  heartbeatMs?: number;
  /** How long events stay replayable for `Last-Event-ID`; default (and minimum) 1 hour. */
  eventRetentionMs?: number;
  /** How often old events are pruned; default 1 minute, 0 disables. */
  pruneIntervalMs?: number;
}

export interface SupportApi {
  createConversation(
    input: CustomerScope & { message: string; subject?: string; clientMessageId?: string },
  ): Promise<{ conversationId: string; createdAt: string }>;
  listConversations(
    input: CustomerScope,
  ): Promise<{ conversations: Awaited<ReturnType<SupportContext["conversations"]["backend"]["listConversations"]>> }>;
  getConversation(input: CustomerScope & { conversationId: string }): Promise<ReturnType<typeof issueDetail>>;
  postMessage(
    input: CustomerScope & { conversationId: string; message: string; clientMessageId?: string },
  ): Promise<{ id: string; createdAt: string }>;
  closeConversation(input: CustomerScope & { conversationId: string; action: CloseAction }): Promise<{ success: true; message: string }>;
  /** Agent operations (no HTTP auth in-process). */
  agent: Omit<Conversations, "backend">;
}

export interface SupportService extends Service {
  api: SupportApi;
  store: SupportStore;
  products: ProductRegistry;
  hub: StreamHub;
  /** Deletes events past the retention; the service also runs it on a timer. */
  pruneEvents(): Promise<number>;
}

export const SUPPORT_MOUNTS = ["/api/conversations", "/care", "/agent"];
/** The agent inbox page (inside the `/agent` mount). */
export const INBOX_PATH = "/agent/inbox/";

/** The widget's script, loaded once on first request. */
function widgetRoute(source: string | (() => string | Promise<string>)): Route {
  let script: Promise<string> | undefined;
  return route({
    method: "GET",
    path: "/api/conversations/widget.js",
    internal: true,
    async handler() {
      script ??= Promise.resolve(typeof source === "string" ? source : source());
      const text = await script.catch((error) => {
        script = undefined;
        throw error;
      });
      return { status: 200, text, contentType: "text/javascript; charset=utf-8", headers: { "cache-control": "public, max-age=300" } };
    },
  });
}

/** CORS for interface A: the service's origins plus every product's, or none at all. */
function publicCors(service: "*" | readonly string[] | undefined, products: readonly ProductConfig[]): CorsOptions | undefined {
  const perProduct = products.flatMap((p) => p.corsOrigins ?? []);
  if (service === "*" || perProduct.includes("*")) return { paths: ["/api/conversations"], origins: "*" };
  const origins = [...(service ?? []), ...perProduct];
  return origins.length ? { paths: ["/api/conversations"], origins } : undefined;
}
const HOUR = 3_600_000;

export function createSupportService(options: SupportServiceOptions): SupportService {
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? randomIds;
  const logger = kitLogger(options.logger);
  const store = options.store ?? memorySupportStore();
  const bus = options.bus ?? memoryPubSub();
  const limiter = options.limiter ?? memoryRateLimiter();
  const retention = Math.max(HOUR, options.eventRetentionMs ?? HOUR);

  const conversations = createConversations({ store, bus, clock, ids, logger });
  const configs = options.products.map((p) => (typeof p === "string" ? { slug: p } : p));
  const products = productRegistry(configs, conversations.backend, options.limits);
  const jobs = store.jobs ?? memoryJobStore();
  for (const p of products.list()) if (!p.builtin) p.backend.attach?.({ productSlug: p.slug, store, bus, clock, ids, logger, jobs });
  const hub = createStreamHub({ store, bus, logger, clock });
  const basePath = (options.basePath ?? "").replace(/\/+$/, "");
  const cx: SupportContext = {
    basePath,
    store,
    conversations,
    products,
    hub,
    bus,
    limiter,
    clock,
    ids,
    logger,
    spiProduct: options.spiProduct ?? configs[0]?.slug,
    spiToken: options.spiToken || undefined,
    agentToken: options.agentToken || undefined,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    streamsByCustomer: new Map(),
  };
  if (options.spiProduct !== undefined && !products.get(options.spiProduct))
    throw new Error(`spiProduct ${options.spiProduct} is not a configured product`);

  const a = publicRoutes(cx);
  const b = spiRoutes(cx);
  const agent = [...agentRoutes(cx), ...webhookRoutes(cx)];
  const securitySchemes = {
    spiBearer: { type: "http", scheme: "bearer", description: "SUPPORT_SPI_TOKEN" },
    agentBearer: { type: "http", scheme: "bearer", description: "SUPPORT_AGENT_TOKEN" },
  };
  const docs = new Map<string, OpenApiDocument>();
  const docRoute = (path: string, title: string, routes: Route[]) =>
    route({
      method: "GET",
      path,
      internal: true,
      handler: (ctx) => {
        let doc = docs.get(path);
        if (!doc) {
          doc = buildOpenApi({ title, version: "1.0.0", routes, basePath, errorSchema: ErrorSchema, securitySchemes });
          docs.set(path, doc);
        }
        // paths carry the basePath; `servers` is where the host mounted the service
        return json(200, { ...doc, servers: [{ url: ctx.mountPath || "/" }] });
      },
    });

  const pruneEvents = () => store.pruneEvents({ before: iso(clock.now() - retention) });
  // a delivery id is remembered for a week: GitHub's UI can redeliver an old delivery by hand
  const pruneDeliveries = () => store.pruneDeliveries({ before: iso(clock.now() - 7 * 24 * HOUR) });
  const pruneEvery = options.pruneIntervalMs ?? 60_000;
  const timer =
    pruneEvery > 0
      ? setInterval(() => {
          pruneEvents().catch((error) => logger.warn("support: pruning events failed", { error }));
          pruneDeliveries().catch((error) => logger.warn("support: pruning webhook deliveries failed", { error }));
        }, pruneEvery)
      : undefined;
  (timer as { unref?: () => void } | undefined)?.unref?.();

  const service = defineService({
    name: "support",
    title: "mountkit support",
    version: "1.0.0",
    description: "Customer-support conversations: public API (A), Support SPI (B), agent side.",
    mounts: SUPPORT_MOUNTS,
    routes: [
      ...a,
      ...b,
      ...agent,
      docRoute("/api/conversations/openapi.json", "Support conversations: public API", a),
      docRoute("/care/openapi.json", "Support SPI", b),
      docRoute("/agent/openapi.json", "Support agent API", agent),
      ...(options.widgetScript === undefined ? [] : [widgetRoute(options.widgetScript)]),
      ...(options.inboxScript === undefined
        ? []
        : pageRoutes({ path: INBOX_PATH, title: "Support inbox", element: "mountkit-inbox", script: options.inboxScript })),
    ],
    securitySchemes,
    basePath,
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    cors: publicCors(options.corsOrigins, configs),
    clock,
    logger,
    ids,
    async dispose() {
      if (timer) clearInterval(timer);
      hub.close();
      for (const p of products.list()) if (!p.builtin) await p.backend.dispose?.();
    },
  });

  const api: SupportApi = {
    async createConversation(input) {
      const p = products.require(input.productSlug);
      return p.backend.createConversation({
        productSlug: p.slug,
        customerId: input.customerId,
        subject: subjectOr(input.subject, input.message),
        body: withMetadata(
          input.message,
          input.clientMessageId
            ? { customerId: input.customerId, clientMessageId: input.clientMessageId }
            : { customerId: input.customerId },
        ),
        clientMessageId: input.clientMessageId ?? null,
      });
    },
    async listConversations(input) {
      const p = products.get(input.productSlug);
      return { conversations: p ? await p.backend.listConversations({ productSlug: p.slug, customerId: input.customerId }) : [] };
    },
    async getConversation(input) {
      const p = products.require(input.productSlug);
      const v = await p.backend.getConversation({
        productSlug: p.slug,
        customerId: input.customerId,
        conversationId: input.conversationId,
      });
      if (!v) throw supportError("conversation_not_found");
      return issueDetail(v);
    },
    async postMessage(input) {
      const p = products.require(input.productSlug);
      const r = await p.backend.postMessage({
        productSlug: p.slug,
        customerId: input.customerId,
        conversationId: input.conversationId,
        body: withMetadata(
          input.message,
          input.clientMessageId
            ? { customerId: input.customerId, clientMessageId: input.clientMessageId }
            : { customerId: input.customerId },
        ),
        clientMessageId: input.clientMessageId ?? null,
      });
      return { id: r.id, createdAt: r.createdAt };
    },
    async closeConversation(input) {
      const p = products.require(input.productSlug);
      const { status } = await p.backend.closeConversation({
        productSlug: p.slug,
        customerId: input.customerId,
        conversationId: input.conversationId,
        action: input.action,
      });
      return { success: true, message: closeMessage(status) };
    },
    agent: {
      get: conversations.get,
      agentList: conversations.agentList,
      agentDetail: conversations.agentDetail,
      reply: conversations.reply,
      editMessage: conversations.editMessage,
      deleteMessage: conversations.deleteMessage,
      setLabels: conversations.setLabels,
      setAssignee: conversations.setAssignee,
      setStatus: conversations.setStatus,
      remove: conversations.remove,
    },
  };

  return Object.assign(service, { api, store, products, hub, pruneEvents });
}
