// Rate limiting and quotas. The sliding log is exact: no window of `windowMs` ever admits more than
// `limit` requests, even a burst straddling a second boundary (fixed windows and token buckets allow 2x).
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** ms until another request would be admitted (0 when allowed). */
  retryAfterMs: number;
}

export interface RateLimiter {
  hit(key: string, options: { limit: number; windowMs: number; now: number }): Promise<RateDecision>;
}

/** Decides on a sorted log of admitted timestamps; shared by the in-memory and SQL limiters. */
export function slidingLogDecision(
  log: number[],
  options: { limit: number; windowMs: number; now: number },
): RateDecision & { log: number[] } {
  const { limit, windowMs, now } = options;
  const recent = log.filter((t) => t > now - windowMs);
  if (recent.length < limit) {
    recent.push(now);
    return { allowed: true, limit, remaining: limit - recent.length, retryAfterMs: 0, log: recent };
  }
  const oldest = recent[recent.length - limit]!;
  return { allowed: false, limit, remaining: 0, retryAfterMs: Math.max(1, oldest + windowMs - now), log: recent };
}

export function memoryRateLimiter(): RateLimiter {
  const logs = new Map<string, number[]>();
  let sweeps = 0;
  return {
    async hit(key, options) {
      const d = slidingLogDecision(logs.get(key) ?? [], options);
      logs.set(key, d.log);
      if (++sweeps % 10_000 === 0) {
        for (const [k, l] of logs) if (!l.length || l[l.length - 1]! <= options.now - options.windowMs) logs.delete(k);
      }
      const { log: _, ...decision } = d;
      return decision;
    },
  };
}

/**
 * Counters per key and period (e.g. a UTC day). `consume` is atomic: concurrent calls never take the
 * count past `limit`. `refund` gives one back (a reserved call that did not succeed).
 */
export interface QuotaCounter {
  consume(key: string, period: string, limit: number): Promise<{ allowed: boolean; used: number }>;
  refund(key: string, period: string): Promise<void>;
  used(key: string, period: string): Promise<number>;
}

export function memoryQuotaCounter(): QuotaCounter {
  const counts = new Map<string, number>();
  const k = (key: string, period: string) => `${period}\u0000${key}`;
  return {
    async consume(key, period, limit) {
      const id = k(key, period);
      const n = counts.get(id) ?? 0;
      if (n >= limit) return { allowed: false, used: n };
      counts.set(id, n + 1);
      return { allowed: true, used: n + 1 };
    },
    async refund(key, period) {
      const id = k(key, period);
      const n = counts.get(id) ?? 0;
      if (n > 0) counts.set(id, n - 1);
    },
    async used(key, period) {
      return counts.get(k(key, period)) ?? 0;
    },
  };
}

/** The UTC day of `ms` (YYYY-MM-DD) and the epoch ms of the next midnight UTC. */
export function utcDay(ms: number): { day: string; resetAt: number } {
  const d = new Date(ms);
  const day = d.toISOString().slice(0, 10);
  const resetAt = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
  return { day, resetAt };
}
