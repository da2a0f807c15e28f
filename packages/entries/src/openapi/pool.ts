// Runs spec validation in a piscina worker pool: bounded threads, queue, memory and time per document, so no
// posted or fetched document can hold the host's event loop (issue #10). Small anchor-free documents stay inline.
import { availableParallelism } from "node:os";
import { MessageChannel } from "node:worker_threads";
import { Piscina } from "piscina";
import { DEFAULT_SPEC_LIMITS, limitMessages, mayHaveAnchors, type SpecLimits } from "./limits.js";
import { decodeText } from "./parse.js";
import type { ValidationOutcome } from "./validate.js";
import { validateSpec } from "./validate.js";
import type { FetchReply, WorkerTask } from "./worker.js";

export interface SpecPoolOptions {
  /** Worker threads; default the cores less one, between 1 and 4. */
  maxThreads?: number;
  /** Documents waiting for a thread; more answer 503. Default 64. */
  maxQueue?: number;
  /** Time one document may run once it has a thread; default 30 s. */
  timeoutMs?: number;
  /** Old-generation heap of each worker; a document needing more answers 422. Default 1024 MB. */
  maxMemoryMb?: number;
  /**
   * Niceness the worker threads add to their own (Linux only; each thread has its own), so the event loop keeps the
   * CPU when cores are scarce. Default 10; 0 runs the workers at the host's priority.
   */
  lowerPriorityBy?: number;
  /** Documents smaller than this without YAML anchors are validated inline (cheaper than a thread hop). Default 64 KiB. */
  inlineBelowBytes?: number;
  limits?: Partial<SpecLimits>;
}

export interface PoolValidateRequest {
  baseUrl?: string;
  fetchDocument?: (url: URL) => Promise<Uint8Array>;
  signal?: AbortSignal;
  maxWarnings?: number;
  /**
   * The caller hands `bytes` over and never reads them again: when they fill their own ArrayBuffer (a concatenated
   * request body does), it moves to the worker instead of being copied, so a 16 MB body costs the event loop no
   * second 16 MB copy (and the GC no second external allocation). The caller's view is detached afterwards.
   */
  transfer?: boolean;
}

export interface SpecPool {
  validate(bytes: Uint8Array, request?: PoolValidateRequest): Promise<ValidationOutcome>;
  /** Ends the worker threads; later calls start them again. */
  destroy(): Promise<void>;
  readonly options: Required<Omit<SpecPoolOptions, "limits">> & { limits: SpecLimits };
}

/** The pool is full: the caller answers 503 (the document was not judged). */
export class SpecPoolBusyError extends Error {
  constructor() {
    super("the validation queue is full");
    this.name = "SpecPoolBusyError";
  }
}

/**
 * The worker module next to this one: `worker.ts` when running from sources (vitest, tsx), `spec-worker.js` in the
 * tsup build, where this code sits in a file directly under dist/. Sources need tsx inside the worker: a worker thread
 * does not inherit a test runner's transform, so the loader is named explicitly.
 */
function workerFile(): { filename: string; execArgv: string[] } {
  const here = import.meta.url;
  if (!/\.[cm]?ts$/.test(new URL(here).pathname)) return { filename: new URL("./spec-worker.js", here).href, execArgv: [] };
  return { filename: new URL("./worker.ts", here).href, execArgv: ["--import", "tsx"] };
}

const invalid = (message: string): ValidationOutcome => ({ answer: { valid: false, errors: [{ path: "", message }] } });

export function specPool(o: SpecPoolOptions = {}): SpecPool {
  const options = {
    maxThreads: o.maxThreads ?? Math.min(4, Math.max(1, availableParallelism() - 1)),
    maxQueue: o.maxQueue ?? 64,
    timeoutMs: o.timeoutMs ?? 30_000,
    maxMemoryMb: o.maxMemoryMb ?? 1024,
    inlineBelowBytes: o.inlineBelowBytes ?? 64 * 1024,
    lowerPriorityBy: o.lowerPriorityBy ?? 10,
    limits: { ...DEFAULT_SPEC_LIMITS, ...o.limits },
  };
  let pool: Piscina | undefined;
  // why a pool was ended: a worker that failed outside any task
  const failures = new WeakMap<Piscina, Error>();
  const start = () => {
    const { filename, execArgv } = workerFile();
    const p = new Piscina({
      filename,
      execArgv,
      minThreads: 0,
      maxThreads: options.maxThreads,
      maxQueue: options.maxQueue,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: options.maxMemoryMb, maxYoungGenerationSizeMb: 64 },
    });
    // A worker that fails outside any task (out of memory while starting, under a heap cap too small for the validator
    // itself) is reported on the pool, not to a caller: unheard, that event would crash the host, and the documents
    // queued for a thread would wait forever. End this pool instead: its queued documents fail (answered in inWorker),
    // and the next document starts a fresh one.
    p.on("error", (e: Error) => {
      failures.set(p, e);
      if (pool === p) pool = undefined;
      p.destroy().catch(() => {});
    });
    return p;
  };

  const inline = (bytes: Uint8Array) => {
    if (bytes.byteLength >= options.inlineBelowBytes) return false;
    const text = decodeText(bytes);
    return text === undefined || !mayHaveAnchors(text);
  };

  // Documents in a thread or waiting for one. Counted here, not left to piscina's maxQueue: piscina keeps tasks that
  // carry an abort signal (all of ours) in a side queue its limit does not count, so the queue would grow without bound.
  let outstanding = 0;

  async function inWorker(bytes: Uint8Array, req: PoolValidateRequest): Promise<ValidationOutcome> {
    if (outstanding >= options.maxThreads + options.maxQueue) throw new SpecPoolBusyError();
    outstanding++;
    try {
      return await runInWorker(bytes, req);
    } finally {
      outstanding--;
    }
  }

  async function runInWorker(bytes: Uint8Array, req: PoolValidateRequest): Promise<ValidationOutcome> {
    const p = (pool ??= start());
    const { port1, port2 } = new MessageChannel();
    const abort = new AbortController();
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const onCallerAbort = () => abort.abort(req.signal?.reason);
    req.signal?.addEventListener("abort", onCallerAbort, { once: true });
    port1.on("message", (m: { started?: true; id?: number; url?: string }) => {
      if (m.started) {
        timer = setTimeout(() => {
          timedOut = true;
          abort.abort();
        }, options.timeoutMs);
        return;
      }
      if (m.id === undefined || !m.url || !req.fetchDocument) return;
      const id = m.id;
      req.fetchDocument(new URL(m.url)).then(
        (b) => port1.postMessage({ id, bytes: b } satisfies FetchReply),
        (e: unknown) => port1.postMessage({ id, error: (e as Error).message } satisfies FetchReply),
      );
    });
    // What moves to the worker is a whole ArrayBuffer: the caller's when it was handed over and is all theirs, else a
    // copy (Buffer#slice is a view, and small Buffers share Node's pool slab: transferring those would detach others).
    const buffer = bytes.buffer;
    const own =
      req.transfer === true &&
      buffer instanceof ArrayBuffer &&
      bytes.byteOffset === 0 &&
      bytes.byteLength === buffer.byteLength &&
      bytes.byteLength > 0;
    const copy = own ? new Uint8Array(buffer) : new Uint8Array(bytes);
    const task: WorkerTask = {
      bytes: copy,
      baseUrl: req.baseUrl,
      limits: options.limits,
      maxWarnings: req.maxWarnings,
      lowerPriorityBy: options.lowerPriorityBy,
      port: port2,
    };
    try {
      return (await p.run(task, { transferList: [port2, copy.buffer], signal: abort.signal })) as ValidationOutcome;
    } catch (e) {
      if (timedOut) return invalid(limitMessages.time(options.timeoutMs));
      if (req.signal?.aborted) throw e;
      const failed = failures.get(p);
      const code = (e as { code?: string }).code ?? (failed as { code?: string } | undefined)?.code;
      if (code === "ERR_WORKER_OUT_OF_MEMORY") return invalid(limitMessages.memory(options.maxMemoryMb));
      // piscina's words for a full queue, and for no queue at all (maxQueue 0) with every thread busy
      if (/queue is at limit|no task queue available/i.test((e as Error).message)) throw new SpecPoolBusyError();
      // the pool ended under it (a worker failed to start): not judged, so unavailable rather than an internal error
      if (failed) throw new SpecPoolBusyError();
      throw e;
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener("abort", onCallerAbort);
      port1.close();
    }
  }

  return {
    options,
    validate(bytes, req = {}) {
      if (inline(bytes))
        return validateSpec(bytes, {
          baseUrl: req.baseUrl,
          fetchDocument: req.fetchDocument,
          maxWarnings: req.maxWarnings,
          limits: options.limits,
        });
      return inWorker(bytes, req);
    },
    async destroy() {
      const p = pool;
      pool = undefined;
      await p?.destroy();
    },
  };
}
