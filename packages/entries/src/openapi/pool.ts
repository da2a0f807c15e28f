// Runs spec validation in a pool of child processes: bounded processes, queue, heap and time per document, so no
// posted or fetched document can hold the host's event loop or exhaust its heap (issue #10). A host may opt into
// judging small anchor-free documents inline, under a step budget (inlineBelowBytes, inlineMaxSteps).
import { availableParallelism } from "node:os";
import { prepareWorkerModule, type WorkerModuleSpec } from "@mountkit/core/worker-module";
import { DEFAULT_INLINE_MAX_STEPS, DEFAULT_SPEC_LIMITS, limitMessages, mayHaveAnchors, StepBudgetExceeded, stepBudget } from "./limits.js";
import { failedLint, lintTask } from "./lint-types.js";
import { decodeText } from "./parse.js";
import { type PoolValidateRequest, type SpecPool, SpecPoolBusyError, type SpecPoolOptions } from "./pool-types.js";
import { type ProcessPool, processPool } from "./process-pool.js";
import type { ValidationOutcome } from "./validate.js";
import { validateSpec } from "./validate.js";

export { type PoolValidateRequest, type SpecPool, SpecPoolBusyError, type SpecPoolOptions } from "./pool-types.js";

/** The child's module: `spec-worker.js` beside the built code in dist/, or `worker.ts` bundled once from sources. */
const WORKER: WorkerModuleSpec = { from: import.meta.url, built: "./spec-worker.js", source: "./worker.ts", name: "spec-worker" };

function poolOptions(o: SpecPoolOptions): SpecPool["options"] {
  return {
    maxThreads: o.maxThreads ?? Math.min(4, Math.max(1, availableParallelism() - 1)),
    maxQueue: o.maxQueue ?? 64,
    timeoutMs: o.timeoutMs ?? 30_000,
    maxMemoryMb: o.maxMemoryMb ?? 1024,
    // every document in a process: the validator's first compile for an OpenAPI version holds a thread 0.4-1.3 s
    inlineBelowBytes: o.inlineBelowBytes ?? 0,
    inlineMaxSteps: o.inlineMaxSteps ?? DEFAULT_INLINE_MAX_STEPS,
    lowerPriorityBy: o.lowerPriorityBy ?? 10,
    limits: { ...DEFAULT_SPEC_LIMITS, ...o.limits },
    lint: lintTask(o.lint),
  };
}

export function specPool(o: SpecPoolOptions = {}): SpecPool {
  const options = poolOptions(o);
  let processes: ProcessPool | undefined;
  /** Counts destroy() calls: a document that was waiting for the worker's module when one came is answered busy. */
  let generation = 0;

  /** The lint of one request: the pool's, unless the request turns it off. */
  const lintOf = (req: PoolValidateRequest) => (req.lint === false ? undefined : options.lint);

  const inline = (bytes: Uint8Array, req: PoolValidateRequest) => {
    if (bytes.byteLength >= options.inlineBelowBytes) return false;
    // Spectral cannot count its steps: a document to lint goes to a process while there are any
    if (lintOf(req) && options.maxThreads > 0) return false;
    const text = decodeText(bytes);
    return text === undefined || !mayHaveAnchors(text);
  };

  // Documents in a process or waiting for one.
  let outstanding = 0;

  async function inWorker(bytes: Uint8Array, req: PoolValidateRequest): Promise<ValidationOutcome> {
    if (outstanding >= options.maxThreads + options.maxQueue) throw new SpecPoolBusyError();
    outstanding++;
    try {
      const before = generation;
      const file = await prepareWorkerModule(WORKER);
      if (generation !== before) throw new SpecPoolBusyError("the validation pool was shut down");
      processes ??= processPool({
        file,
        size: options.maxThreads,
        timeoutMs: options.timeoutMs,
        maxMemoryMb: options.maxMemoryMb,
        lowerPriorityBy: options.lowerPriorityBy,
        idleMs: 60_000,
        preloadLint: !!options.lint,
      });
      const task = { bytes, baseUrl: req.baseUrl, limits: options.limits, maxWarnings: req.maxWarnings, lint: lintOf(req) };
      return await processes.run(task, req);
    } finally {
      outstanding--;
    }
  }

  /** Judged on the event loop, where nothing is linted: the lint part says so. */
  const unlinted = (o: ValidationOutcome, req: PoolValidateRequest): ValidationOutcome => {
    const lint = lintOf(req);
    return lint && o.answer.valid
      ? { ...o, answer: { ...o.answer, lint: failedLint(lint, "not linted: no validation processes (maxThreads 0)") } }
      : o;
  };

  /**
   * A small document is judged on the event loop within `inlineMaxSteps` (issue #24: 900 bytes of `$ref` chains once
   * held it for two minutes); one that needs more is judged again in a process, under its time limit.
   */
  async function inlineOrWorker(bytes: Uint8Array, req: PoolValidateRequest): Promise<ValidationOutcome> {
    try {
      return unlinted(
        await validateSpec(bytes, {
          baseUrl: req.baseUrl,
          fetchDocument: req.fetchDocument,
          maxWarnings: req.maxWarnings,
          limits: options.limits,
          budget: stepBudget(options.inlineMaxSteps),
        }),
        req,
      );
    } catch (e) {
      if (!(e instanceof StepBudgetExceeded)) throw e;
      if (options.maxThreads > 0) return inWorker(bytes, req);
      return { answer: { valid: false, errors: [{ path: "", message: limitMessages.steps(e.max, "inlineMaxSteps") }] } };
    }
  }

  return {
    options,
    validate(bytes, req = {}) {
      if (inline(bytes, req)) return inlineOrWorker(bytes, req);
      // no validation processes (maxThreads 0): a larger document is not judged (503) rather than queued for ever
      if (options.maxThreads <= 0) return Promise.reject(new SpecPoolBusyError("no validation processes (maxThreads 0)"));
      return inWorker(bytes, req);
    },
    async destroy() {
      generation++;
      const p = processes;
      processes = undefined;
      await p?.destroy();
    },
  };
}
