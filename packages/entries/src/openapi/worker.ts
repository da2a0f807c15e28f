// Worker-thread side of the spec pool: parses, validates and catalogues one document off the host's event loop.
// External `$ref` documents are fetched by the parent (it holds the spec-fetch policy) over a MessagePort.
import type { MessagePort } from "node:worker_threads";
import type { SpecLimits } from "./limits.js";
import { type ValidationOutcome, validateSpec } from "./validate.js";

export interface WorkerTask {
  bytes: Uint8Array;
  baseUrl?: string;
  limits: SpecLimits;
  maxWarnings?: number;
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

export default async function validateInWorker(task: WorkerTask): Promise<ValidationOutcome> {
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
