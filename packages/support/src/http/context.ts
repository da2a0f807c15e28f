// What the route modules share: the typed api, the domain, the product registry, live delivery and the limits.
import type { Clock, IdGenerator, Logger } from "@mountkit/core";
import type { PubSub, RateLimiter } from "@mountkit/core/jobs";
import type { SupportApi } from "../api.js";
import type { Conversations } from "../domain/conversations.js";
import type { Product, ProductRegistry } from "../domain/products.js";
import { supportError } from "../errors.js";
import type { SupportStore } from "../store/types.js";
import type { StreamHub } from "../stream/hub.js";

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
  spiToken: string | undefined;
  agentToken: string | undefined;
  heartbeatMs: number;
  /** Open streams per customer, in this process. */
  streamsByCustomer: Map<string, number>;
}

/**
 * Counts a request against the customer's sliding window, then the product's; 429 with `Retry-After` (whole
 * seconds) past either. The customer's comes first, so a client over its own limit spends none of the product's
 * budget: it cannot starve the product's other customers.
 */
export async function admit(cx: SupportContext, product: Product, customerId?: string): Promise<void> {
  const { rateLimit, rateWindowMs, customerRateLimit } = product.limits;
  const now = cx.clock.now();
  if (customerId !== undefined) {
    const c = await cx.limiter.hit(`support:${product.slug}:customer:${customerId}`, {
      limit: customerRateLimit,
      windowMs: rateWindowMs,
      now,
    });
    if (!c.allowed) throw tooMany(customerRateLimit, c.retryAfterMs, "too many requests from this customer");
  }
  const d = await cx.limiter.hit(`support:${product.slug}`, { limit: rateLimit, windowMs: rateWindowMs, now });
  if (!d.allowed) throw tooMany(rateLimit, d.retryAfterMs);
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
