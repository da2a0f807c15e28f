// Reconnection and retry delays: 1 s doubling up to 30 s (the seed's client guidance).
export interface Backoff {
  initialMs: number;
  maxMs: number;
}

export const STREAM_BACKOFF: Backoff = { initialMs: 1000, maxMs: 30_000 };

/** Delay before attempt `n` (0-based): initial * 2^n, capped. */
export function backoffDelay(n: number, b: Backoff = STREAM_BACKOFF): number {
  return Math.min(b.maxMs, b.initialMs * 2 ** Math.max(0, Math.min(n, 30)));
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
