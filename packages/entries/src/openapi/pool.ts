// Runs spec validation in a piscina worker pool: bounded threads, queue, memory and time per document, so no
// posted or fetched document can hold the host's event loop (issue #10). Small anchor-free documents stay inline.
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { MessageChannel, type MessagePort } from "node:worker_threads";
import { Piscina } from "piscina";
import { DEFAULT_SPEC_LIMITS, limitMessages, mayHaveAnchors } from "./limits.js";
import { decodeText } from "./parse.js";
import { type PoolValidateRequest, type SpecPool, SpecPoolBusyError, type SpecPoolOptions } from "./pool-types.js";
import type { ValidationOutcome } from "./validate.js";
import { validateSpec } from "./validate.js";
import type { FetchReply, WorkerTask } from "./worker.js";

export { type PoolValidateRequest, type SpecPool, SpecPoolBusyError, type SpecPoolOptions } from "./pool-types.js";

/**
 * The worker module next to this one: `spec-worker.js` in the tsup build, where this code sits in a file directly
 * under dist/. From sources (vitest, tsx) the worker is bundled once per process with esbuild (a dev dependency,
 * loaded only here) into the package's node_modules/.cache, its dependencies left external so they resolve as
 * usual. A worker thread inherits no test runner's transform; started with `--import tsx` instead, each worker ran
 * its own module-hooks thread, and terminating a worker (time and heap caps) then tore down two isolates at once.
 */
let sourceWorker: string | undefined;
function workerFile(): { filename: string; execArgv: string[] } {
  const here = import.meta.url;
  if (!/\.[cm]?ts$/.test(new URL(here).pathname)) return { filename: new URL("./spec-worker.js", here).href, execArgv: [] };
  if (!sourceWorker) {
    const esbuild = createRequire(here)("esbuild") as typeof import("esbuild");
    const [bundle] = esbuild.buildSync({
      entryPoints: [fileURLToPath(new URL("./worker.ts", here))],
      write: false,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      conditions: ["mountkit-source"],
      packages: "external",
      logLevel: "silent",
    }).outputFiles;
    // named by content: test processes running side by side share one file, written whole (rename) or not at all
    const dir = fileURLToPath(new URL("../../node_modules/.cache/", here));
    const file = `${dir}mountkit-spec-worker-${bundle!.hash.replace(/[^A-Za-z0-9]/g, "")}.mjs`;
    if (!existsSync(file)) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(`${file}.${process.pid}`, bundle!.contents);
      renameSync(`${file}.${process.pid}`, file);
    }
    sourceWorker = pathToFileURL(file).href;
  }
  return { filename: sourceWorker, execArgv: [] };
}

const invalid = (message: string): ValidationOutcome => ({ answer: { valid: false, errors: [{ path: "", message }] } });

type ResolvedPoolOptions = SpecPool["options"];

function poolOptions(o: SpecPoolOptions): ResolvedPoolOptions {
  return {
    maxThreads: o.maxThreads ?? Math.min(4, Math.max(1, availableParallelism() - 1)),
    maxQueue: o.maxQueue ?? 64,
    timeoutMs: o.timeoutMs ?? 30_000,
    maxMemoryMb: o.maxMemoryMb ?? 1024,
    inlineBelowBytes: o.inlineBelowBytes ?? 64 * 1024,
    lowerPriorityBy: o.lowerPriorityBy ?? 10,
    limits: { ...DEFAULT_SPEC_LIMITS, ...o.limits },
  };
}

/** The pool's state: the piscina instance while it runs, and why an ended one ended (a worker that failed outside any task). */
interface PoolState {
  options: ResolvedPoolOptions;
  pool: Piscina | undefined;
  failures: WeakMap<Piscina, Error>;
}

function startPiscina(state: PoolState): Piscina {
  const { options } = state;
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
  // queued for a thread would wait forever. End this pool instead: its queued documents fail (answered in runInWorker),
  // and the next document starts a fresh one.
  p.on("error", (e: Error) => {
    state.failures.set(p, e);
    if (state.pool === p) state.pool = undefined;
    p.destroy().catch(() => {});
  });
  return p;
}

/**
 * The parent's end of a task's port: starts the time limit when the task leaves the queue, and fetches the external
 * documents the worker asks for under the caller's policy.
 */
function serveTaskPort(port: MessagePort, req: PoolValidateRequest, onStarted: () => void): void {
  port.on("message", (m: { started?: true; id?: number; url?: string }) => {
    if (m.started) return onStarted();
    if (m.id === undefined || !m.url || !req.fetchDocument) return;
    const id = m.id;
    req.fetchDocument(new URL(m.url)).then(
      (b) => port.postMessage({ id, bytes: b } satisfies FetchReply),
      (e: unknown) => port.postMessage({ id, error: (e as Error).message } satisfies FetchReply),
    );
  });
}

/**
 * What moves to the worker is a whole ArrayBuffer: the caller's when it was handed over and is all theirs, else a
 * copy (Buffer#slice is a view, and small Buffers share Node's pool slab: transferring those would detach others).
 */
function movable(bytes: Uint8Array, transfer: boolean | undefined): Uint8Array<ArrayBuffer> {
  const buffer = bytes.buffer;
  if (
    transfer === true &&
    buffer instanceof ArrayBuffer &&
    bytes.byteOffset === 0 &&
    bytes.byteLength === buffer.byteLength &&
    bytes.byteLength > 0
  )
    return new Uint8Array(buffer);
  return new Uint8Array(bytes);
}

/** A failed run as the caller sees it: 422 for the time and memory caps, busy (503) when not judged, else the error. */
function runFailure(state: PoolState, p: Piscina, e: unknown, timedOut: boolean, req: PoolValidateRequest): ValidationOutcome {
  const { options } = state;
  if (timedOut) return invalid(limitMessages.time(options.timeoutMs));
  if (req.signal?.aborted) throw e;
  const failed = state.failures.get(p);
  const code = (e as { code?: string }).code ?? (failed as { code?: string } | undefined)?.code;
  if (code === "ERR_WORKER_OUT_OF_MEMORY") return invalid(limitMessages.memory(options.maxMemoryMb));
  // piscina's words for a full queue, and for no queue at all (maxQueue 0) with every thread busy
  if (/queue is at limit|no task queue available/i.test((e as Error).message)) throw new SpecPoolBusyError();
  // the pool ended under it (a worker failed to start): not judged, so unavailable rather than an internal error
  if (failed) throw new SpecPoolBusyError();
  throw e;
}

async function runInWorker(state: PoolState, bytes: Uint8Array, req: PoolValidateRequest): Promise<ValidationOutcome> {
  const { options } = state;
  const p = (state.pool ??= startPiscina(state));
  const { port1, port2 } = new MessageChannel();
  const abort = new AbortController();
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const onCallerAbort = () => abort.abort(req.signal?.reason);
  req.signal?.addEventListener("abort", onCallerAbort, { once: true });
  serveTaskPort(port1, req, () => {
    timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, options.timeoutMs);
  });
  const copy = movable(bytes, req.transfer);
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
    return runFailure(state, p, e, timedOut, req);
  } finally {
    clearTimeout(timer);
    req.signal?.removeEventListener("abort", onCallerAbort);
    port1.close();
  }
}

export function specPool(o: SpecPoolOptions = {}): SpecPool {
  const state: PoolState = { options: poolOptions(o), pool: undefined, failures: new WeakMap() };
  const { options } = state;

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
      return await runInWorker(state, bytes, req);
    } finally {
      outstanding--;
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
      const p = state.pool;
      state.pool = undefined;
      await p?.destroy();
    },
  };
}
