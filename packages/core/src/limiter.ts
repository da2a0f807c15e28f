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
  /**
   * The decision `hit` would make now, without recording anything: a read (no lock, no write). A caller that
   * must know whether a key is in its window before it decides to count it (a customer id seen before) asks this.
   */
  peek(key: string, options: { limit: number; windowMs: number; now: number }): Promise<RateDecision>;
}

/**
 * Decides on a sorted log of admitted timestamps; shared by the in-memory and SQL limiters. With `record`
 * false (a peek) the log is left as it was and the decision is the one a hit would get.
 */
export function slidingLogDecision(
  log: number[],
  options: { limit: number; windowMs: number; now: number },
  record = true,
): RateDecision & { log: number[] } {
  const { limit, windowMs, now } = options;
  const recent = log.filter((t) => t > now - windowMs);
  if (recent.length < limit) {
    const remaining = limit - recent.length - 1;
    if (record) recent.push(now);
    return { allowed: true, limit, remaining, retryAfterMs: 0, log: recent };
  }
  const oldest = recent[recent.length - limit]!;
  return { allowed: false, limit, remaining: 0, retryAfterMs: Math.max(1, oldest + windowMs - now), log: recent };
}

/** Keys a hit checks for expiry: the sweep walks the map a few keys per hit, so no hit ever walks all of it. */
const SWEEP_PER_HIT = 4;

export function inMemoryRateLimiter(): RateLimiter {
  // each key keeps its own expiry: keys of one limiter use windows from a second to days (known customer ids)
  const logs = new Map<string, { log: number[]; expiresAt: number }>();
  let cursor: Iterator<[string, { expiresAt: number }]> | undefined;
  const sweep = (now: number) => {
    for (let i = 0; i < SWEEP_PER_HIT; i++) {
      cursor ??= logs.entries();
      const next = cursor.next();
      if (next.done) {
        cursor = undefined;
        return;
      }
      // deleting the entry just visited is safe: a Map iterator carries on with the next one
      if (next.value[1].expiresAt <= now) logs.delete(next.value[0]);
    }
  };
  return {
    async hit(key, options) {
      const { log, ...decision } = slidingLogDecision(logs.get(key)?.log ?? [], options);
      logs.set(key, { log, expiresAt: (log.length ? log[log.length - 1]! : options.now) + options.windowMs });
      sweep(options.now);
      return decision;
    },
    async peek(key, options) {
      const { log: _, ...decision } = slidingLogDecision(logs.get(key)?.log ?? [], options, false);
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

export function inMemoryQuotaCounter(): QuotaCounter {
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

/** @deprecated Renamed `inMemoryRateLimiter`: "memory" in a name means the memory service. This alias goes in the next major version. */
export const memoryRateLimiter = inMemoryRateLimiter;

/** @deprecated Renamed `inMemoryQuotaCounter`: "memory" in a name means the memory service. This alias goes in the next major version. */
export const memoryQuotaCounter = inMemoryQuotaCounter;
