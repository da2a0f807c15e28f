// Retry delays with full jitter: after a restart, clients that failed together must not retry together.

/** A source of numbers in [0, 1): `Math.random`, or a seeded one in tests. */
export type RandomSource = () => number;

/** The exponential cap before retry `attempt` (0-based): `initialMs * 2^attempt`, at most `maxMs`. */
export function exponentialCap(attempt: number, initialMs: number, maxMs: number): number {
  return Math.min(maxMs, initialMs * 2 ** Math.max(0, Math.min(attempt, 40)));
}

/** Full jitter: a delay drawn uniformly between 0 and `capMs` (AWS's "full jitter" backoff). */
export function fullJitter(capMs: number, random: RandomSource = Math.random): number {
  return Math.round(Math.min(1, Math.max(0, random())) * capMs);
}
