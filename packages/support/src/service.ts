// createSupportService: interfaces A (/api/conversations), B (/care) and the agent side (/agent) on one store.
// It only assembles: the typed api (`api.ts`), the route tables (`routes/*`), their documents and the pruning timer.
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
  type OpenApiDocument,
  type Principal,
  pageRoutes,
  type Route,
  randomIds,
  route,
  type Service,
  systemClock,
  type TokenVerifier,
} from "@mountkit/core";
import { inMemoryPubSub, inMemoryRateLimiter, type PubSub, type RateLimiter } from "@mountkit/core/jobs";
import { startWebhooks, type WebhookOptions } from "@mountkit/core/webhooks";
import { createSupportApi, type SupportApi } from "./api.js";
import { type AttachmentOptions, type Attachments, createAttachments } from "./attachments/attachments.js";
import { backendFiles } from "./attachments/backend-files.js";
import { withAttachments } from "./attachments/messages.js";
import { attachmentRoutes } from "./attachments/routes.js";
import { createConversations } from "./domain/conversations.js";
import { supportEvents } from "./domain/outbound.js";
import { type ProductConfig, type ProductLimits, type ProductRegistry, productRegistry } from "./domain/products.js";
import { ErrorSchema } from "./errors.js";
import type { SpiToken } from "./http/auth.js";
import { type ClientAddressOptions, clientAddressOf } from "./http/client-address.js";
import type { SupportContext } from "./http/context.js";
import { SIGNATURE_HEADER } from "./http/customer-signature.js";
import { agentRoutes } from "./routes/agent.js";
import { publicRoutes } from "./routes/public.js";
import { spiRoutes } from "./routes/spi.js";
import { subscriptionRoutes } from "./routes/subscriptions.js";
import { webhookRoutes } from "./routes/webhooks.js";
import { inMemorySupportStore } from "./store/in-memory.js";
import type { SupportStore } from "./store/types.js";
import { createStreamHub, type StreamHub } from "./stream/hub.js";

export type { SupportApi };

export interface SupportServiceOptions extends ClientAddressOptions {
  /** Products served; a bare string is a built-in product with default limits. */
  products: ReadonlyArray<ProductConfig | string>;
  store?: SupportStore;
  /** Carries ids-only event notices; a cross-process bus makes every process's streams see every change. */
  bus?: PubSub;
  /** Shared by every process of a deployment (`sqlRateLimiter`), so are the limits; default in this process only. */
  limiter?: RateLimiter;
  /** Defaults for every product's limits. */
  limits?: Partial<ProductLimits>;
  /** The product interface B serves; default the first product. */
  spiProduct?: string;
  /** Bearer token of /care for `spiProduct` (a product's own `spiToken` speaks for that product); unset: only those. */
  spiToken?: string;
  /** Shared bearer token of /agent; with neither it nor `agentAuth`, every call is refused with 401. */
  agentToken?: string;
  /**
   * The host's own identity for /agent (docs/support.md#agent-identities): a bearer that is not the shared token goes
   * to this verifier (`jwtVerifier` of `@mountkit/entries` for a JWT/JWKS, or the host's own `TokenVerifier`); the
   * principal's `sub` is the agent's id, and replies carry its name (`agentName`).
   */
  agentAuth?: TokenVerifier;
  /** A verified agent's display name; default the `name`, `preferred_username` or `email` claim, else the `sub`. */
  agentName?: (principal: Principal) => string;
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
  /**
   * Outbound events (docs/support.md#webhooks): delivery timeouts, the retry schedule, receivers on private
   * addresses (`allowPrivate`). Subscriptions live in the store (`store.webhooks`), at `/care/webhooks`.
   */
  webhooks?: WebhookOptions;
  /**
   * Files on messages (docs/support.md#attachments): limits, the record store and the blob store (both in this
   * process's memory by default: give `sqlAttachmentStore(db)` and a durable blob store for a deployment).
   */
  attachments?: AttachmentOptions;
}

export interface SupportService extends Service {
  api: SupportApi;
  store: SupportStore;
  products: ProductRegistry;
  hub: StreamHub;
  /** Uploads, their records and bytes (docs/support.md#attachments). */
  attachments: Attachments;
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
  // a verified customer's widget sends its signature as a header: without it in the preflight's list, every call of a
  // widget on another origin fails before it is sent
  const cors = { paths: ["/api/conversations"], allowHeaders: PUBLIC_CORS_HEADERS };
  if (service === "*" || perProduct.includes("*")) return { ...cors, origins: "*" };
  const origins = [...(service ?? []), ...perProduct];
  return origins.length ? { ...cors, origins } : undefined;
}
/** What a page on another origin may send to interface A: core's defaults and the customer's signature. */
const PUBLIC_CORS_HEADERS = ["content-type", "last-event-id", "x-request-id", SIGNATURE_HEADER];
const HOUR = 3_600_000;

/** The service's parts, built from its options before any route. */
function supportContext(options: SupportServiceOptions): SupportContext & { configs: ProductConfig[]; attachments: Attachments } {
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? randomIds;
  const logger = kitLogger(options.logger);
  const store = options.store ?? inMemorySupportStore();
  const bus = options.bus ?? inMemoryPubSub();
  const configs = options.products.map((p) => (typeof p === "string" ? { slug: p } : p));
  if (options.spiProduct !== undefined && !configs.some((c) => c.slug === options.spiProduct))
    throw new Error(`spiProduct ${options.spiProduct} is not a configured product`);
  const spiProduct = options.spiProduct ?? configs[0]?.slug;
  const tokens = spiTokens(options.spiToken, spiProduct, configs);
  const { jobs } = store;
  const hooks = startWebhooks({ service: "support", store: store.webhooks, jobs, clock, logger, options: options.webhooks });
  const events = supportEvents(hooks, clock);
  const conversations = createConversations({ store, bus, clock, ids, logger, events });
  const products = productRegistry(configs, conversations.backend, options.limits);
  const limiter = options.limiter ?? inMemoryRateLimiter();
  const attachments = createAttachments({ options: options.attachments, limiter, clock, ids, logger });
  for (const p of products.list())
    if (!p.builtin)
      p.backend.attach?.({ productSlug: p.slug, store, bus, clock, ids, logger, jobs, events, files: backendFiles(attachments, p.slug) });
  const hub = createStreamHub({ store, bus, logger, clock });
  const api = createSupportApi({ products, conversations, streams: { hub, bus, clock, streamsByCustomer: new Map() } });
  return {
    configs,
    attachments,
    basePath: (options.basePath ?? "").replace(/\/+$/, ""),
    api: withAttachments(api, { attachments, products, conversations, logger }),
    store,
    conversations,
    products,
    hub,
    bus,
    limiter,
    clock,
    ids,
    logger,
    spiProduct,
    spiTokens: tokens,
    agentToken: options.agentToken || undefined,
    agentAuth: { token: options.agentToken || undefined, verifier: options.agentAuth, name: options.agentName },
    hooks,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    clientAddress: clientAddressOf(options),
  };
}

/** The SPI's tokens: the service's for `spiProduct`, each product's own for it; one token speaks for one product. */
function spiTokens(service: string | undefined, spiProduct: string | undefined, configs: readonly ProductConfig[]): SpiToken[] {
  const out: SpiToken[] = service ? [{ token: service, productSlug: spiProduct }] : [];
  for (const c of configs) {
    if (!c.spiToken) continue;
    const other = out.find((t) => t.token === c.spiToken);
    if (other && other.productSlug !== c.slug)
      throw new Error(`product ${c.slug}'s spiToken is also the token of ${other.productSlug ?? "the SPI"}`);
    if (!other) out.push({ token: c.spiToken, productSlug: c.slug });
  }
  return out;
}

const securitySchemes = {
  spiBearer: { type: "http", scheme: "bearer", description: "SUPPORT_SPI_TOKEN" },
  agentBearer: { type: "http", scheme: "bearer", description: "SUPPORT_AGENT_TOKEN, or a token of the host's identity (`agentAuth`)" },
};

/** One interface's OpenAPI document, built on first request; `servers` is where the host mounted the service. */
function docRoute(basePath: string, path: string, title: string, routes: Route[]): Route {
  let doc: OpenApiDocument | undefined;
  return route({
    method: "GET",
    path,
    internal: true,
    handler: (ctx) => {
      doc ??= buildOpenApi({ title, version: "1.0.0", routes, basePath, errorSchema: ErrorSchema, securitySchemes });
      // paths carry the basePath; `servers` is where the host mounted the service
      return json(200, { ...doc, servers: [{ url: ctx.mountPath || "/" }] });
    },
  });
}

/** Interfaces A, B and the agent side, each with its document, plus the optional widget script and inbox page. */
function supportRoutes(cx: SupportContext, options: SupportServiceOptions, attachments: Attachments): Route[] {
  const files = attachmentRoutes(cx, attachments);
  const a = [...publicRoutes(cx), ...files.filter((r) => r.path.startsWith("/api/"))];
  const b = [...spiRoutes(cx), ...subscriptionRoutes(cx)];
  const agent = [...agentRoutes(cx), ...webhookRoutes(cx), ...files.filter((r) => r.path.startsWith("/agent/"))];
  return [
    ...a,
    ...b,
    ...agent,
    docRoute(cx.basePath, "/api/conversations/openapi.json", "Support conversations: public API", a),
    docRoute(cx.basePath, "/care/openapi.json", "Support SPI", b),
    docRoute(cx.basePath, "/agent/openapi.json", "Support agent API", agent),
    ...(options.widgetScript === undefined ? [] : [widgetRoute(options.widgetScript)]),
    ...(options.inboxScript === undefined
      ? []
      : pageRoutes({ path: INBOX_PATH, title: "Support inbox", element: "mountkit-inbox", script: options.inboxScript })),
  ];
}

/** Event and webhook-delivery pruning: `pruneEvents` for the host, and a timer (unref'd) unless disabled. */
function pruning(cx: SupportContext, options: SupportServiceOptions) {
  const { store, clock, logger } = cx;
  const retention = Math.max(HOUR, options.eventRetentionMs ?? HOUR);
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
  return { pruneEvents, stop: () => timer && clearInterval(timer) };
}

export function createSupportService(options: SupportServiceOptions): SupportService {
  const { configs, attachments, ...cx } = supportContext(options);
  const { store, products, hub, clock, logger, ids } = cx;
  const routes = supportRoutes(cx, options, attachments);
  const prune = pruning(cx, options);
  const service = defineService({
    name: "support",
    title: "mountkit support",
    version: "1.0.0",
    description: "Customer-support conversations: public API (A), Support SPI (B), agent side.",
    mounts: SUPPORT_MOUNTS,
    routes,
    securitySchemes,
    basePath: cx.basePath,
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    cors: publicCors(options.corsOrigins, configs),
    clock,
    logger,
    ids,
    async dispose() {
      prune.stop();
      attachments.stop();
      hub.close();
      for (const p of products.list()) if (!p.builtin) await p.backend.dispose?.();
      await cx.hooks.stop();
    },
  });
  return Object.assign(service, { api: cx.api, store, products, hub, attachments, pruneEvents: prune.pruneEvents });
}
