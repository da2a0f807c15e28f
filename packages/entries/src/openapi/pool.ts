// Runs spec validation in a pool of child processes: bounded processes, queue, heap and time per document, so no
// posted or fetched document can hold the host's event loop or exhaust its heap (issue #10). Small anchor-free
// documents stay inline.
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DEFAULT_INLINE_MAX_STEPS, DEFAULT_SPEC_LIMITS, limitMessages, mayHaveAnchors, StepBudgetExceeded, stepBudget } from "./limits.js";
import { decodeText } from "./parse.js";
import { type PoolValidateRequest, type SpecPool, SpecPoolBusyError, type SpecPoolOptions } from "./pool-types.js";
import { type ProcessPool, processPool } from "./process-pool.js";
import type { ValidationOutcome } from "./validate.js";
import { validateSpec } from "./validate.js";

export { type PoolValidateRequest, type SpecPool, SpecPoolBusyError, type SpecPoolOptions } from "./pool-types.js";

/**
 * The child's module next to this one: `spec-worker.js` in the tsup build, where this code sits in a file directly
 * under dist/. From sources (vitest, tsx) the worker is bundled once per process with esbuild (a dev dependency,
 * loaded only here) into the package's node_modules/.cache, its dependencies left external so they resolve as
 * usual: the child runs plain Node, with no test runner's transform or loader.
 */
let sourceWorker: string | undefined;
function workerFile(): string {
  const here = import.meta.url;
  if (!/\.[cm]?ts$/.test(new URL(here).pathname)) return new URL("./spec-worker.js", here).href;
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
  return sourceWorker;
}

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
  };
}

export function specPool(o: SpecPoolOptions = {}): SpecPool {
  const options = poolOptions(o);
  let processes: ProcessPool | undefined;

  const inline = (bytes: Uint8Array) => {
    if (bytes.byteLength >= options.inlineBelowBytes) return false;
    const text = decodeText(bytes);
    return text === undefined || !mayHaveAnchors(text);
  };

  // Documents in a process or waiting for one.
  let outstanding = 0;

  async function inWorker(bytes: Uint8Array, req: PoolValidateRequest): Promise<ValidationOutcome> {
    if (outstanding >= options.maxThreads + options.maxQueue) throw new SpecPoolBusyError();
    outstanding++;
    try {
      processes ??= processPool({
        file: workerFile(),
        size: options.maxThreads,
        timeoutMs: options.timeoutMs,
        maxMemoryMb: options.maxMemoryMb,
        lowerPriorityBy: options.lowerPriorityBy,
        idleMs: 60_000,
      });
      const task = { bytes, baseUrl: req.baseUrl, limits: options.limits, maxWarnings: req.maxWarnings };
      return await processes.run(task, req);
    } finally {
      outstanding--;
    }
  }

  /**
   * A small document is judged on the event loop within `inlineMaxSteps` (issue #24: 900 bytes of `$ref` chains once
   * held it for two minutes); one that needs more is judged again in a process, under its time limit.
   */
  async function inlineOrWorker(bytes: Uint8Array, req: PoolValidateRequest): Promise<ValidationOutcome> {
    try {
      return await validateSpec(bytes, {
        baseUrl: req.baseUrl,
        fetchDocument: req.fetchDocument,
        maxWarnings: req.maxWarnings,
        limits: options.limits,
        budget: stepBudget(options.inlineMaxSteps),
      });
    } catch (e) {
      if (!(e instanceof StepBudgetExceeded)) throw e;
      if (options.maxThreads > 0) return inWorker(bytes, req);
      return { answer: { valid: false, errors: [{ path: "", message: limitMessages.steps(e.max, "inlineMaxSteps") }] } };
    }
  }

  return {
    options,
    validate(bytes, req = {}) {
      if (inline(bytes)) return inlineOrWorker(bytes, req);
      // no validation processes (maxThreads 0): a larger document is not judged (503) rather than queued for ever
      if (options.maxThreads <= 0) return Promise.reject(new SpecPoolBusyError("no validation processes (maxThreads 0)"));
      return inWorker(bytes, req);
    },
    async destroy() {
      const p = processes;
      processes = undefined;
      await p?.destroy();
    },
  };
}
