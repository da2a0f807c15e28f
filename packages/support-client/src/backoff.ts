// Reconnection and retry delays: full jitter under a cap of 1 s doubling up to 30 s (docs/support.md#streams),
// so clients dropped together by a restart do not all come back in the same instant.
export interface Backoff {
  initialMs: number;
  maxMs: number;
}

export const STREAM_BACKOFF: Backoff = { initialMs: 1000, maxMs: 30_000 };

/** The cap before attempt `n` (0-based): initial * 2^n, at most `maxMs`. */
export function backoffDelay(n: number, b: Backoff = STREAM_BACKOFF): number {
  return Math.min(b.maxMs, b.initialMs * 2 ** Math.max(0, Math.min(n, 30)));
}

/** The delay actually waited before attempt `n`: uniform between 0 and {@link backoffDelay}. */
export function jitteredDelay(n: number, b: Backoff = STREAM_BACKOFF, random: () => number = Math.random): number {
  return Math.round(Math.min(1, Math.max(0, random())) * backoffDelay(n, b));
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
