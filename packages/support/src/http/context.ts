// What the route modules share: the typed api, the domain, the product registry, live delivery and the limits.
import { type Channel, type Clock, type IdGenerator, type Logger, type SseEvent, type SseResult, sse } from "@mountkit/core";
import type { PubSub, RateLimiter } from "@mountkit/core/jobs";
import type { WebhookDispatcher } from "@mountkit/core/webhooks";
import type { SupportApi } from "../api.js";
import type { Conversations } from "../domain/conversations.js";
import type { Product, ProductRegistry } from "../domain/products.js";
import { supportError } from "../errors.js";
import type { SupportStore } from "../store/types.js";
import type { StreamHub } from "../stream/hub.js";
import type { AgentAuth } from "./agent-auth.js";
import type { SpiToken } from "./auth.js";
import type { AddressSource } from "./client-address.js";

export interface SupportContext {
  /** The service's own prefix; links it writes start with it (a framework's mount prefix is added by the adapter). */
  basePath: string;
  /** What the routes call once their guard has passed. */
  api: SupportApi;
  store: SupportStore;
  conversations: Conversations;
  products: ProductRegistry;
  hub: StreamHub;
  /** The ids-only notices (per conversation and per product) the streams listen to. */
  bus: PubSub;
  limiter: RateLimiter;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  /** The product interface B serves (the SPI infers it from where it is mounted). */
  spiProduct: string | undefined;
  /** The SPI's bearer tokens, each with the product it speaks for. */
  spiTokens: readonly SpiToken[];
  agentToken: string | undefined;
  /**
   * Who may call /agent: the shared token and the host's identity verifier (docs/support.md#agent-identities). An agent
   * route guards with `agentGuard(cx.agentAuth)` (http/agent-auth.ts) and reads the caller with `agentOf(ctx)`.
   */
  agentAuth: AgentAuth;
  /** The outbound events (webhooks): subscriptions, fan-out and deliveries. */
  hooks: WebhookDispatcher;
  heartbeatMs: number;
  /** The limit key of the client a request comes from (see `clientAddressHeader`); undefined when unknown. */
  clientAddress(request: AddressSource): string | undefined;
}

/** The SSE answer of a stream the api opened: `retry:` advice first, then the service's `: ping` heartbeats. */
export const eventStream = (cx: SupportContext, events: Channel<SseEvent>): SseResult =>
  sse(events, { retryMs: 1000, heartbeatMs: cx.heartbeatMs });

/**
 * The limits a request passes, each a sliding window shared through the limiter (so across processes on a SQL one),
 * cheapest refusal first so a refused request spends nothing further:
 * 1. a customer id not yet known (never admitted, or not for `knownCustomerMs`) counts against its client address's
 *    budget of new ids: a client inventing an id per request gets one customer's share, and those requests never
 *    reach the product's window (issue 24);
 * 2. the customer's own window, so one customer cannot take a product's whole budget;
 * 3. with `addressRateLimit`, the address's window over every id it sends;
 * 4. with `knownCustomerReserve`, new ids share what the reserve leaves of the product's window;
 * 5. the product's window.
 * 429 with `Retry-After` (whole seconds) past any of them. Without a customer (interface B) only the product's applies;
 * without an address (a fetch runtime that gives none) the address limits do not apply.
 */
export async function admit(cx: SupportContext, product: Product, customerId?: string, address?: string): Promise<void> {
  const limits = product.limits;
  const now = cx.clock.now();
  const window = (limit: number, windowMs = limits.rateWindowMs) => ({ limit, windowMs, now });
  const base = `support:${product.slug}`;
  const seen = { key: `${base}:known:${customerId}`, ...window(1, limits.knownCustomerMs) };
  let known = true;
  if (customerId !== undefined) {
    known = !(await cx.limiter.peek(seen.key, seen)).allowed;
    if (!known && address !== undefined) {
      const n = await cx.limiter.hit(`${base}:new-from:${address}`, window(limits.newCustomerRateLimit, limits.newCustomerWindowMs));
      if (!n.allowed) throw tooMany(limits.newCustomerRateLimit, n.retryAfterMs, "too many new customers from this address");
    }
    const c = await cx.limiter.hit(`${base}:customer:${customerId}`, window(limits.customerRateLimit));
    if (!c.allowed) throw tooMany(limits.customerRateLimit, c.retryAfterMs, "too many requests from this customer");
    if (address !== undefined && limits.addressRateLimit !== undefined) {
      const a = await cx.limiter.hit(`${base}:from:${address}`, window(limits.addressRateLimit));
      if (!a.allowed) throw tooMany(limits.addressRateLimit, a.retryAfterMs, "too many requests from this address");
    }
    if (!known && limits.knownCustomerReserve > 0) {
      const r = await cx.limiter.hit(`${base}:new`, window(limits.rateLimit - limits.knownCustomerReserve));
      if (!r.allowed) throw tooMany(limits.rateLimit, r.retryAfterMs);
    }
  }
  const d = await cx.limiter.hit(base, window(limits.rateLimit));
  if (!d.allowed) throw tooMany(limits.rateLimit, d.retryAfterMs);
  if (!known) await cx.limiter.hit(seen.key, seen);
}

function tooMany(limit: number, retryAfterMs: number, message?: string) {
  return supportError("too_many_requests", {
    ...(message ? { message } : {}),
    headers: {
      "retry-after": String(Math.max(1, Math.ceil(retryAfterMs / 1000))),
      "ratelimit-limit": String(limit),
      "ratelimit-remaining": "0",
    },
  });
}
