// The offline NLP extractor on a pool of worker threads (piscina), so the seconds of CPU a large episode costs
// never run on the host's event loop (issue #24). Threads start on the first episode and end when idle; a call
// waits in a bounded queue, has a time limit, and a thread that throws or dies fails only its own episode.
import { availableParallelism } from "node:os";
import type { Logger } from "@mountkit/core";
import { prepareWorkerModule, type WorkerModuleSpec, workerModule, workerOptions } from "@mountkit/core/worker-module";
import { Piscina } from "piscina";
import type { RelationSpec } from "../domain/relations.js";
import type { ExtractionThreadsOptions, OwnedExtractor } from "../runtime/types.js";
import { type Analysis, type AnalysisInput, analysisKey, nlpExtractor } from "./nlp-extractor.js";
import type { ExtractionInput } from "./types.js";

/** Thrown when every thread is busy and the queue is full: transient, so the pipeline retries the job later. */
export class ExtractionBusyError extends Error {
  readonly transient = true;
  constructor() {
    super("every extraction thread is busy and the queue is full");
    this.name = "ExtractionBusyError";
  }
}

/** Thrown for an episode whose extraction the service's `dispose` cut short: transient, so its job runs again. */
export class ExtractionStoppedError extends Error {
  readonly transient = true;
  constructor() {
    super("the extraction threads were stopped");
    this.name = "ExtractionStoppedError";
  }
}

export const defaultThreads = () => Math.max(1, Math.min(availableParallelism() - 1, 4));

/** Analyses kept between `extractEntities` and `extractFacts` of the same episodes. */
const KEPT = 16;
/**
 * Analyses started by `prepare`, ahead of their episodes' jobs: at most this many (per thread) waiting for their job,
 * each for AHEAD_MS at most (a job that runs in another process, or an episode erased first, never asks for its own).
 */
const AHEAD_PER_THREAD = 8;
const AHEAD_MS = 30_000;

/** An analysis asked for (or started ahead) and not yet taken by `extractFacts`. */
interface Kept {
  analysis: Promise<Analysis>;
  /** Started by `prepare` and not yet asked for by the episode's job; when. */
  ahead: number | null;
}

export interface ThreadsContext {
  logger?: Logger;
  /** The worker module (tests); default the built `extract-worker.js`, or `worker.ts` bundled from sources. */
  file?: string;
  /** The host's relations and verbs, sent with each episode. */
  relations?: readonly RelationSpec[];
}

export interface ThreadedExtractor extends OwnedExtractor {
  /** Threads of its pool running now (shared with other extractors of the same options). */
  readonly threads: number;
}

interface PoolSettings {
  file: string;
  size: number;
  maxQueue: number;
  idleMs: number;
}

interface SharedPool {
  pool: Piscina;
  /** Extractors holding the pool: the last one to let go destroys it. */
  holders: number;
  /** Episodes in a thread or waiting for one. */
  outstanding: number;
}

/**
 * One pool per process and settings: every memory service of a host (and every test) shares warm threads instead
 * of loading the NLP model again on threads of its own.
 */
const pools = new Map<string, SharedPool>();

function acquire(s: PoolSettings, logger: Logger | undefined): SharedPool {
  const key = JSON.stringify(s);
  let shared = pools.get(key);
  if (!shared) {
    const pool = new Piscina({
      filename: s.file,
      name: "analyse",
      minThreads: 0,
      maxThreads: s.size,
      maxQueue: s.maxQueue,
      idleTimeout: s.idleMs,
      ...workerOptions(),
    });
    // a thread that fails while it holds no episode is only logged (an EventEmitter with no listener would throw)
    pool.on("error", (err: unknown) => logger?.warn("extraction thread failed", { error: String(err) }));
    shared = { pool, holders: 0, outstanding: 0 };
    pools.set(key, shared);
  }
  shared.holders++;
  return shared;
}

async function release(s: PoolSettings, shared: SharedPool): Promise<void> {
  if (--shared.holders > 0) return;
  const key = JSON.stringify(s);
  if (pools.get(key) === shared) pools.delete(key);
  await shared.pool.destroy();
}

/** The thread's module: `extract-worker.js` beside the built code in dist/, or `worker.ts` bundled once from sources. */
const WORKER: WorkerModuleSpec = { from: import.meta.url, built: "./extract-worker.js", source: "./worker.ts", name: "extract-worker" };

export function threadedNlpExtractor(o: ExtractionThreadsOptions = {}, cx: ThreadsContext = {}): ThreadedExtractor {
  const size = o.threads ?? defaultThreads();
  if (size === 0) return { ...nlpExtractor({ relations: cx.relations }), threads: 0, async destroy() {} };
  const timeoutMs = o.timeoutMs ?? 60_000;
  let settings: PoolSettings | undefined;
  let held: SharedPool | undefined;
  let destroyed = false;
  // ends this extractor's episodes still in threads or queued when it is destroyed (other holders' go on)
  const stop = new AbortController();

  const hold = () => {
    settings ??= {
      file: cx.file ?? workerModule(WORKER),
      size,
      maxQueue: o.maxQueue ?? 64,
      idleMs: o.idleMs ?? 60_000,
    };
    held ??= acquire(settings, cx.logger);
    return { shared: held, settings };
  };

  async function run(input: ExtractionInput): Promise<Analysis> {
    if (destroyed) throw new ExtractionStoppedError();
    if (!settings && !cx.file) {
      await prepareWorkerModule(WORKER);
      if (destroyed) throw new ExtractionStoppedError();
    }
    const { shared, settings: s } = hold();
    if (shared.outstanding >= s.size + s.maxQueue) throw new ExtractionBusyError();
    shared.outstanding++;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([stop.signal, timeout, ...(input.signal ? [input.signal] : [])]);
    // the analysis reads the text, its reference time and the speaker (analysisKey): nothing else crosses
    const task: AnalysisInput = {
      content: input.content,
      occurredAt: input.occurredAt,
      metadata: typeof input.metadata.speaker === "string" ? { speaker: input.metadata.speaker } : {},
      ...(cx.relations?.length ? { relations: cx.relations } : {}),
    };
    try {
      return (await shared.pool.run(task, { signal })) as Analysis;
    } catch (err) {
      if (destroyed) throw new ExtractionStoppedError();
      if (timeout.aborted) throw new Error(`extraction took longer than ${timeoutMs} ms`);
      throw err;
    } finally {
      shared.outstanding--;
    }
  }

  // extractEntities and extractFacts see the same episode one after the other: analyse it once
  const kept = keptAnalyses(run, size);

  return {
    name: "nlp",
    get threads() {
      return held && !destroyed ? held.pool.threads.length : 0;
    },
    async extractEntities(input) {
      return (await kept.analysis(input, false)).entities;
    },
    async extractFacts(input) {
      return (await kept.analysis(input, true)).facts;
    },
    prepare(input) {
      // only onto a thread that is free or nearly: an episode's own analysis never waits behind many started ahead
      if (!destroyed && !(held && held.outstanding >= 2 * size)) kept.ahead(input);
    },
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      kept.clear();
      stop.abort();
      if (held && settings) await release(settings, held);
    },
  };
}

/**
 * The analyses of one extractor between their first call and `extractFacts`, and those `prepare` started ahead of
 * their jobs (at most AHEAD_PER_THREAD per thread, each AHEAD_MS at most).
 */
function keptAnalyses(run: (input: ExtractionInput) => Promise<Analysis>, size: number) {
  const kept = new Map<string, Kept>();
  let aheadCount = 0;
  const drop = (key: string, k: Kept) => {
    if (kept.get(key) !== k) return;
    kept.delete(key);
    if (k.ahead !== null) aheadCount--;
  };
  /** Keeps the newest KEPT asked-for analyses, and the started-ahead ones until AHEAD_MS old (`ahead` bounds their number). */
  const trim = () => {
    const stale = Date.now() - AHEAD_MS;
    let asked = kept.size - aheadCount;
    for (const [key, k] of [...kept]) {
      if (k.ahead !== null) {
        if (k.ahead < stale) drop(key, k);
      } else if (asked > KEPT) {
        drop(key, k);
        asked--;
      }
    }
  };
  const start = (key: string, input: ExtractionInput, ahead: boolean) => {
    const k: Kept = { analysis: run(input), ahead: ahead ? Date.now() : null };
    kept.set(key, k);
    if (ahead) aheadCount++;
    // a failed analysis is not kept: the job's retry analyses again
    k.analysis.catch(() => drop(key, k));
    trim();
    return k;
  };
  return {
    /** The input's analysis, started now unless kept; `last` (extractFacts) lets it go. */
    analysis(input: ExtractionInput, last: boolean) {
      const key = analysisKey(input);
      let k = kept.get(key);
      if (!k) k = start(key, input, false);
      else if (k.ahead !== null) {
        // its job asks for it now: kept as asked-for until extractFacts takes it
        k.ahead = null;
        aheadCount--;
      }
      if (last) drop(key, k);
      return k.analysis;
    },
    /** Starts the input's analysis ahead of its job, unless kept or as many as the threads get through are waiting. */
    ahead(input: ExtractionInput) {
      if (aheadCount >= size * AHEAD_PER_THREAD) return;
      const key = analysisKey(input);
      if (!kept.has(key)) start(key, input, true);
    },
    clear() {
      kept.clear();
      aheadCount = 0;
    },
  };
}
