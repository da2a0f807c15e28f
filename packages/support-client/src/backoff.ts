// Reconnection and retry delays: 1 s doubling up to 30 s (docs/support.md#streams), each jittered by ±20% so
// clients dropped together by a restart do not all come back in the same instant. Full jitter (uniform under
// the cap) would break the doubling: its delays start near 0 whatever the attempt; ±20% keeps every delay
// within a fifth of the doubled value, and inside the first delay and the ceiling.
export interface Backoff {
  initialMs: number;
  maxMs: number;
}

export const STREAM_BACKOFF: Backoff = { initialMs: 1000, maxMs: 30_000 };

/** The cap before attempt `n` (0-based): initial * 2^n, at most `maxMs`. */
export function backoffDelay(n: number, b: Backoff = STREAM_BACKOFF): number {
  return Math.min(b.maxMs, b.initialMs * 2 ** Math.max(0, Math.min(n, 30)));
}

/** How far a delay strays from {@link backoffDelay}: ±20%. */
export const JITTER = 0.2;

/**
 * The delay actually waited before attempt `n`: {@link backoffDelay} times a uniform factor in 0.8..1.2, kept
 * within `initialMs..maxMs` (so 1 s..30 s by default; its mean doubles with each attempt until the ceiling).
 */
export function jitteredDelay(n: number, b: Backoff = STREAM_BACKOFF, random: () => number = Math.random): number {
  const r = Math.min(1, Math.max(0, random()));
  const d = backoffDelay(n, b) * (1 - JITTER + 2 * JITTER * r);
  return Math.round(Math.min(b.maxMs, Math.max(b.initialMs, d)));
}

export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
