// Worker-thread side of the spec pool: parses, validates and catalogues one document off the host's event loop.
// External `$ref` documents are fetched by the parent (it holds the spec-fetch policy) over a MessagePort.
import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";
import type { MessagePort } from "node:worker_threads";
import type { SpecLimits } from "./limits.js";
import { type ValidationOutcome, validateSpec } from "./validate.js";

export interface WorkerTask {
  bytes: Uint8Array;
  baseUrl?: string;
  limits: SpecLimits;
  maxWarnings?: number;
  /** Niceness this thread adds to its own once (Linux), so the host's event loop wins the CPU; 0 leaves it. */
  lowerPriorityBy?: number;
  /** Present when external documents may be fetched: `{ id, url }` out, `{ id, bytes }` or `{ id, error }` back. */
  port?: MessagePort;
}

export type FetchReply = { id: number; bytes: Uint8Array } | { id: number; error: string };

function portFetcher(port: MessagePort) {
  let next = 0;
  const waiting = new Map<number, { resolve: (b: Uint8Array) => void; reject: (e: Error) => void }>();
  port.on("message", (m: FetchReply) => {
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    if ("bytes" in m) w.resolve(m.bytes);
    else w.reject(new Error(m.error));
  });
  return (url: URL) =>
    new Promise<Uint8Array>((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      port.postMessage({ id, url: url.href });
    });
}

let lowered = false;

/**
 * Validation is background work: on a host with fewer free cores than busy workers, a worker at the event loop's
 * priority takes half of its core while a 16 MB document is validated, and the event loop's GC waits on helper threads
 * starved the same way (issue #10: unrelated requests waited hundreds of ms). Linux gives each thread its own nice
 * value (`setpriority` on the thread id), so only this thread yields; elsewhere, or when not allowed, nothing changes.
 */
function lowerPriority(by: number): void {
  if (lowered || by <= 0) return;
  lowered = true;
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, Math.min(19, getPriority(tid) + by));
  } catch {
    // no /proc (not Linux) or no permission: the worker runs at the host's priority
  }
}

export default async function validateInWorker(task: WorkerTask): Promise<ValidationOutcome> {
  lowerPriority(task.lowerPriorityBy ?? 0);
  // tells the parent the task left the queue: the time limit counts from here
  task.port?.postMessage({ started: true });
  try {
    return await validateSpec(task.bytes, {
      baseUrl: task.baseUrl,
      limits: task.limits,
      maxWarnings: task.maxWarnings,
      fetchDocument: task.port && task.baseUrl ? portFetcher(task.port) : undefined,
    });
  } finally {
    task.port?.close();
  }
}
