// Reconnection and retry delays: 1 s doubling up to 30 s (docs/support.md#streams), with "equal jitter": half of
// each doubled delay fixed, the other half random, so every wait lies in [d/2, d] of the doubled d. Clients
// dropped together by a restart spread over that range instead of all coming back in the same instant, and the
// doubling holds: both ends of the range double with each attempt, so a wait is never shorter than the one before
// it. Full jitter (uniform under the cap) breaks the doubling: its delays start near 0 whatever the attempt. A
// jitter around d clamped to [1 s, 30 s] piles half the clients on exactly 1 s and 30 s, the herd it was for.
export interface Backoff {
  initialMs: number;
  maxMs: number;
}

export const STREAM_BACKOFF: Backoff = { initialMs: 1000, maxMs: 30_000 };

/** The doubled delay before attempt `n` (0-based): initial * 2^n, at most `maxMs`; the longest wait of that attempt. */
export function backoffDelay(n: number, b: Backoff = STREAM_BACKOFF): number {
  return Math.min(b.maxMs, b.initialMs * 2 ** Math.max(0, Math.min(n, 30)));
}

/**
 * The delay actually waited before attempt `n`: half of {@link backoffDelay} plus a uniform random part of the
 * other half, so within [d/2, d] (0.5..1 s, 1..2 s, ... 15..30 s by default); its mean, 3d/4, doubles with each
 * attempt until the ceiling. `random` answers numbers in [0, 1).
 */
export function jitteredDelay(n: number, b: Backoff = STREAM_BACKOFF, random: () => number = Math.random): number {
  const d = backoffDelay(n, b);
  const r = Math.min(1, Math.max(0, random()));
  return Math.round(d / 2 + (d / 2) * r);
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
