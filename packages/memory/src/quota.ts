// Daily quota per brain: only calls that succeed (2xx) consume it. With the store's QuotaHolds a call
// holds a unit while it runs; a call finding every remaining unit held by calls in flight waits for
// their outcome instead of answering 429, so a failing call never makes a good one fail. A plain
// QuotaCounter (a host's own) reserves before running and refunds failures.
import { type Clock, documented, iso, type Middleware } from "@mountkit/core";
import { type QuotaCounter, utcDay } from "@mountkit/core/jobs";
import { memoryError } from "./errors.js";
import type { QuotaHolds } from "./store/types.js";

/** A hold lapses after this long (its process crashed mid-call). */
const HOLD_TTL_MS = 120_000;
/** Longest a call waits for calls in flight to settle before it is refused. */
const MAX_WAIT_MS = 30_000;

function headers(limit: number, remaining: number, resetSeconds: number): Record<string, string> {
  return {
    "ratelimit-limit": String(limit),
    "ratelimit-remaining": String(Math.max(0, remaining)),
    "ratelimit-reset": String(resetSeconds),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function dailyQuota(options: { counter: QuotaCounter; holds?: QuotaHolds; limit: number; clock: Clock }): Middleware {
  const { counter, holds, limit, clock } = options;
  return documented(async (ctx, next) => {
    const brainId = ctx.state.brainId as string;
    const key = `memory:${brainId}`;
    const now = clock.now();
    const { day, resetAt } = utcDay(now);
    const reset = Math.max(1, Math.ceil((resetAt - now) / 1000));
    const refuse = () =>
      memoryError("quota_exceeded", {
        details: { limit, resetAt: iso(resetAt) },
        headers: { ...headers(limit, 0, reset), "retry-after": String(reset) },
      });

    if (holds) {
      const id = globalThis.crypto.randomUUID();
      const started = Date.now();
      for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
        const h = await holds.hold({ key, period: day, limit, id, now: clock.now(), ttlMs: HOLD_TTL_MS });
        if (h.state === "held") break;
        if (h.state === "exhausted" || Date.now() - started > MAX_WAIT_MS) throw refuse();
        await sleep(pause);
      }
      let result: Awaited<ReturnType<typeof next>>;
      try {
        result = await next();
      } catch (err) {
        await holds.settle({ key, period: day, id, success: false, limit });
        throw err;
      }
      const status = result.status ?? 200;
      const { used } = await holds.settle({ key, period: day, id, success: status >= 200 && status < 300, limit });
      result.headers = { ...result.headers, ...headers(limit, limit - used, reset) };
      return result;
    }

    const taken = await counter.consume(key, day, limit);
    if (!taken.allowed) throw refuse();
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
