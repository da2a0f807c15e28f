// What the route modules share: the domain, the product registry, live delivery and the limits.
import type { Clock, IdGenerator, Logger, RateLimiter } from "@mountkit/core";
import type { Conversations } from "../domain/conversations.js";
import type { Product, ProductRegistry } from "../domain/products.js";
import { supportError } from "../errors.js";
import type { SupportStore } from "../store/types.js";
import type { StreamHub } from "../stream/hub.js";

export interface SupportContext {
  store: SupportStore;
  conversations: Conversations;
  products: ProductRegistry;
  hub: StreamHub;
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

/** Counts a request against the product's sliding window; 429 with `Retry-After` (whole seconds) past it. */
export async function admit(cx: SupportContext, product: Product): Promise<void> {
  const { rateLimit, rateWindowMs } = product.limits;
  const d = await cx.limiter.hit(`support:${product.slug}`, { limit: rateLimit, windowMs: rateWindowMs, now: cx.clock.now() });
  if (!d.allowed) {
    throw supportError("too_many_requests", {
      headers: {
        "retry-after": String(Math.max(1, Math.ceil(d.retryAfterMs / 1000))),
        "ratelimit-limit": String(rateLimit),
        "ratelimit-remaining": "0",
      },
    });
  }
}
