// The diff processes: child processes of their own (diff/worker.ts), under the validation processes' caps (time, heap,
// niceness, count, queue: SpecPoolOptions), so a diff never runs on the host's event loop and never takes a
// validation's place. Node only (`#runtime/spec`).
import { availableParallelism } from "node:os";
import { prepareWorkerModule, type WorkerModuleSpec } from "@mountkit/core/worker-module";
import { DEFAULT_SPEC_LIMITS } from "../openapi/limits.js";
import { SpecPoolBusyError, type SpecPoolOptions } from "../openapi/pool-types.js";
import { type ProcessPool, processPool } from "../openapi/process-pool.js";
import type { DiffPool, DiffPoolRequest } from "./pool-types.js";
import type { DiffTaskOutcome } from "./types.js";

const WORKER: WorkerModuleSpec = { from: import.meta.url, built: "./diff-worker.js", source: "./worker.ts", name: "diff-worker" };

/** What the process pool answers for a document it stopped (time, heap): a validation-shaped verdict. */
type Stopped = { answer: { valid: false; errors: Array<{ path: string; message: string }> } };

export function diffPool(o: SpecPoolOptions = {}): DiffPool {
  const size = o.maxThreads ?? Math.min(4, Math.max(1, availableParallelism() - 1));
  const maxQueue = o.maxQueue ?? 64;
  const limits = { ...DEFAULT_SPEC_LIMITS, ...o.limits };
  let processes: ProcessPool | undefined;
  let generation = 0;
  let outstanding = 0;
  return {
    async diff(bytes: Uint8Array, req: DiffPoolRequest = {}): Promise<DiffTaskOutcome> {
      if (size <= 0) throw new SpecPoolBusyError("no diff processes (maxThreads 0)");
      if (outstanding >= size + maxQueue) throw new SpecPoolBusyError("the diff queue is full");
      outstanding++;
      try {
        const before = generation;
        const file = await prepareWorkerModule(WORKER);
        if (generation !== before) throw new SpecPoolBusyError("the diff pool was shut down");
        processes ??= processPool({
          file,
          size,
          timeoutMs: o.timeoutMs ?? 30_000,
          maxMemoryMb: o.maxMemoryMb ?? 1024,
          lowerPriorityBy: o.lowerPriorityBy ?? 10,
          idleMs: 60_000,
        });
        // the pool's protocol is the validation's: the task goes as is, the `done` outcome comes back as the child sent it
        const task = { bytes, limits, maxChanges: req.maxChanges } as unknown as Parameters<ProcessPool["run"]>[0];
        const out = (await processes.run(task, { signal: req.signal, fetchDocument: req.fetchDocument })) as unknown as
          | DiffTaskOutcome
          | Stopped;
        return "answer" in out ? { ok: false, errors: out.answer.errors } : out;
      } finally {
        outstanding--;
      }
    },
    async destroy() {
      generation++;
      const p = processes;
      processes = undefined;
      await p?.destroy();
    },
  };
}
