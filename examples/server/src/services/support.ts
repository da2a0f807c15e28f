// The support service from the environment (CONTRACT.md §0): SUPPORT_PRODUCTS, SUPPORT_RATE_LIMIT,
// SUPPORT_SPI_TOKEN, SUPPORT_AGENT_TOKEN. Store, bus and rate limiter come from the app (in memory when absent).
import type { Clock, Logger, PubSub, RateLimiter, Service } from "@mountkit/core";
import { createSupportService, type SupportStore } from "@mountkit/support";

export async function supportFromEnv(
  env: NodeJS.ProcessEnv,
  deps: { logger: Logger; clock?: Clock; store?: SupportStore; bus?: PubSub; limiter?: RateLimiter },
): Promise<Service> {
  const products = (env.SUPPORT_PRODUCTS ?? "demo")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (!products.length) throw new Error("SUPPORT_PRODUCTS must name at least one product slug");
  const raw = env.SUPPORT_RATE_LIMIT?.trim();
  const rate = raw ? Number(raw) : 20;
  if (!Number.isSafeInteger(rate) || rate < 1)
    throw new Error("SUPPORT_RATE_LIMIT must be a positive integer (requests per second per product)");
  const spiToken = env.SUPPORT_SPI_TOKEN || undefined;
  const agentToken = env.SUPPORT_AGENT_TOKEN || undefined;
  if (!spiToken) deps.logger.info("support: SUPPORT_SPI_TOKEN not set, /care refuses every call with 401");
  if (!agentToken) deps.logger.info("support: SUPPORT_AGENT_TOKEN not set, /agent refuses every call with 401");
  return createSupportService({
    products,
    limits: { rateLimit: rate, rateWindowMs: 1000 },
    spiToken,
    agentToken,
    store: deps.store,
    bus: deps.bus,
    limiter: deps.limiter,
    logger: deps.logger,
    ...(deps.clock ? { clock: deps.clock } : {}),
  });
}
