// Daily quota per brain: a call reserves one unit before running and gives it back unless it
// succeeded (2xx), so concurrent calls never pass the limit and failures never count.
import { type Clock, documented, iso, type Middleware, type QuotaCounter, utcDay } from "@mountkit/core";
import { memoryError } from "./errors.js";

function headers(limit: number, remaining: number, resetSeconds: number): Record<string, string> {
  return {
    "ratelimit-limit": String(limit),
    "ratelimit-remaining": String(Math.max(0, remaining)),
    "ratelimit-reset": String(resetSeconds),
  };
}

export function dailyQuota(options: { counter: QuotaCounter; limit: number; clock: Clock }): Middleware {
  const { counter, limit, clock } = options;
  return documented(async (ctx, next) => {
    const brainId = ctx.state.brainId as string;
    const key = `memory:${brainId}`;
    const now = clock.now();
    const { day, resetAt } = utcDay(now);
    const reset = Math.max(1, Math.ceil((resetAt - now) / 1000));
    const taken = await counter.consume(key, day, limit);
    if (!taken.allowed) {
      throw memoryError("quota_exceeded", {
        details: { limit, resetAt: iso(resetAt) },
        headers: { ...headers(limit, 0, reset), "retry-after": String(reset) },
      });
    }
    let used = taken.used;
    let result: Awaited<ReturnType<typeof next>>;
    try {
      result = await next();
    } catch (err) {
      await counter.refund(key, day);
      throw err;
    }
    const status = result.status ?? 200;
    if (status < 200 || status >= 300) {
      await counter.refund(key, day);
      used -= 1;
    }
    result.headers = { ...result.headers, ...headers(limit, limit - used, reset) };
    return result;
  }, QUOTA_DOC);
}

const integer = { type: "string", pattern: "^[0-9]+$" };
/** What the quota adds to every authenticated route's documentation. */
const QUOTA_DOC = {
  headers: {
    "RateLimit-Limit": { description: "Successful calls this brain may make per UTC day.", schema: integer },
    "RateLimit-Remaining": { description: "Successful calls left today.", schema: integer },
    "RateLimit-Reset": { description: "Seconds until the quota resets (midnight UTC).", schema: integer },
  },
  responses: {
    429: {
      description: "Daily quota exceeded (`details`: `{ limit, resetAt }`).",
      headers: { "Retry-After": { description: "Seconds until midnight UTC.", required: true, schema: integer } },
    },
  },
};
