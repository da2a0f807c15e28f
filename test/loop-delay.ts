// The loop-delay guard: every server the suites start records its event-loop delay (perf_hooks'
// monitorEventLoopDelay), window by window, and a server whose worst window passes the threshold fails its suite.
import { type IntervalHistogram, monitorEventLoopDelay } from "node:perf_hooks";

const ci = process.env.CI === "true" || process.env.CI === "1";

/**
 * The worst event-loop delay a server may show, in ms: `MOUNTKIT_LOOP_DELAY_MAX_MS`, else 500 on CI and 750
 * elsewhere (a laptop runs other things beside the suite). Generous on purpose: it catches a stall (a
 * synchronous database wait, an unbounded parse: they held servers 1-122 s), not a slow machine, and CI runs two
 * test files at once on two cores, where a garbage collection or a neighbour's burst alone reached 300 ms; speed
 * targets live in bench/.
 */
export const LOOP_DELAY_MAX_MS = threshold(process.env.MOUNTKIT_LOOP_DELAY_MAX_MS, ci ? 500 : 750);

function threshold(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new RangeError(`MOUNTKIT_LOOP_DELAY_MAX_MS must be a positive number of ms; got ${raw}`);
  return n;
}

/** The histogram's sampling interval: a stall shows as its length minus at most this. */
const RESOLUTION_MS = 10;

/** Windows that record nothing: hooks, start-up, vitest's own work between tests. */
export const BETWEEN_TESTS = "(hooks and between tests)";

/**
 * A stall is recorded when the histogram's timer next fires, which is after the code that stalled has
 * returned to the loop: one timer turn later, every stall so far is in the histogram.
 */
const flush = () => new Promise<void>((r) => setTimeout(r, 1));

export class LoopGuard {
  readonly #h: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  /** Worst delay (ms) of each window by label. */
  readonly #windows = new Map<string, number>();
  /** The current window's worst before a pause, which resets the histogram. */
  #carried = 0;
  #paused = 0;
  #stopped = false;

  constructor(readonly name: string) {
    this.#h.enable();
    guards.add(this);
  }

  /** Closes the current window under `label` (after letting a pending stall land in it); returns its worst ms. */
  async take(label: string): Promise<number> {
    await flush();
    const worst = this.#current();
    this.#carried = 0;
    this.#h.reset();
    if (worst > (this.#windows.get(label) ?? 0)) this.#windows.set(label, worst);
    return worst;
  }

  /**
   * Stops recording, e.g. while test code builds a large document synchronously. Disabling alone is not
   * enough: the first sample after `enable()` would span the pause, so `resume` starts the histogram afresh.
   */
  pause(): void {
    if (this.#paused++ > 0 || this.#stopped) return;
    this.#carried = Math.max(this.#carried, this.#sampled());
    this.#h.disable();
  }

  resume(): void {
    if (this.#paused === 0 || --this.#paused > 0 || this.#stopped) return;
    this.#h.reset();
    this.#h.enable();
  }

  /** Ends recording; what is pending goes to `label`. */
  async stop(label = BETWEEN_TESTS): Promise<void> {
    if (this.#stopped) return;
    await this.take(label);
    this.#stopped = true;
    this.#h.disable();
    guards.delete(this);
  }

  /** The worst delay of every window so far, in ms. */
  worst(): number {
    return Math.max(0, ...this.#windows.values());
  }

  /** The `top` worst windows, worst first, as lines `  812 ms  label`. */
  report(top = 5): string {
    return [...this.#windows]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([label, ms]) => `  ${ms.toFixed(0).padStart(6)} ms  ${label}`)
      .join("\n");
  }

  /**
   * Throws, naming each window past the threshold with its delay, when any window passed it.
   * `MOUNTKIT_LOOP_DELAY_REPORT=1` also prints every server's worst windows, to compare runs.
   */
  check(maxMs = LOOP_DELAY_MAX_MS): void {
    if (process.env.MOUNTKIT_LOOP_DELAY_REPORT === "1") console.log(`loop delay of ${this.name}, worst windows:\n${this.report()}`);
    const over = [...this.#windows].filter(([, ms]) => ms > maxMs).sort((a, b) => b[1] - a[1]);
    if (over.length === 0) return;
    const rest = [...this.#windows].filter(([, ms]) => ms <= maxMs).reduce((m, [, ms]) => Math.max(m, ms), 0);
    const lines = over.map(([label, ms]) => `  ${ms.toFixed(0).padStart(6)} ms  ${label}`);
    throw new Error(
      `loop-delay guard: the event loop of ${this.name} stalled past ${maxMs} ms (MOUNTKIT_LOOP_DELAY_MAX_MS):\n${lines.join("\n")}\n` +
        `  worst of the other ${this.#windows.size - over.length} windows: ${rest.toFixed(0)} ms`,
    );
  }

  #current(): number {
    return this.#paused > 0 ? this.#carried : Math.max(this.#carried, this.#sampled());
  }

  #sampled(): number {
    return this.#h.count === 0 ? 0 : this.#h.max / 1e6;
  }
}

/** The guards of the servers running in this process: a pause covers them all, since they share its loop. */
const guards = new Set<LoopGuard>();

/**
 * Runs `work` with every running server's guard paused: for heavy work of the test's own (building a 12 MB
 * document), which blocks the shared loop without being the server's stall. Never wrap a request in it.
 */
export async function unguarded<T>(work: () => T | Promise<T>): Promise<T> {
  await flush();
  const paused = [...guards];
  for (const g of paused) g.pause();
  try {
    return await work();
  } finally {
    for (const g of paused) g.resume();
  }
}

/**
 * Runs `work` while two probes watch this process's event loop: node's delay histogram and a 10 ms interval's
 * lateness. Both start before the work (the histogram's first tick is only its baseline) and are read after it.
 */
export async function watchLoop<T>(work: () => Promise<T>): Promise<{ result: T; wallMs: number; worstDelayMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let late = 0;
  let last = performance.now();
  const probe = setInterval(() => {
    const now = performance.now();
    late = Math.max(late, now - last - 10);
    last = now;
  }, 10);
  await new Promise((r) => setTimeout(r, 30));
  const t0 = performance.now();
  const result = await work();
  const wallMs = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 30));
  clearInterval(probe);
  histogram.disable();
  return { result, wallMs, worstDelayMs: Math.max(late, histogram.max / 1e6) };
}
