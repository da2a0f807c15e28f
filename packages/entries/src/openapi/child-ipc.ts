// What the kit's worker processes (validation, diff) share on their side of the IPC channel: documents fetched
// through the parent (which holds the outbound policy), and a lower scheduling priority when allowed.
import { readdirSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

/** The parent's answer to one `fetch` request of a worker process. */
export type FetchReply = { id: number; bytes: Uint8Array } | { id: number; error: string };

/** Fetches through the parent: `ask` sends the request; each reply that comes back is handed to `settle`. */
export function parentFetches(ask: (id: number, url: string) => void) {
  const waiting = new Map<number, { resolve: (b: Uint8Array) => void; reject: (e: Error) => void }>();
  let next = 0;
  return {
    fetch(url: string): Promise<Uint8Array> {
      return new Promise((resolve, reject) => {
        const id = next++;
        waiting.set(id, { resolve, reject });
        ask(id, url);
      });
    },
    settle(reply: FetchReply): void {
      const w = waiting.get(reply.id);
      if (!w) return;
      waiting.delete(reply.id);
      if ("bytes" in reply) w.resolve(reply.bytes);
      else w.reject(new Error(reply.error));
    },
  };
}

/**
 * Validation is background work: on a host with fewer free cores than busy workers, a worker at the event loop's
 * priority takes half of its core while a 16 MB document is validated, and the event loop's GC waits on helper threads
 * starved the same way (issue #10: unrelated requests waited hundreds of ms). Linux gives each thread its own nice
 * value, so each thread this process already has is lowered (threads started later inherit it); elsewhere the process
 * is lowered as a whole, and when not allowed nothing changes.
 */
export function lowerPriority(by: number): void {
  if (!(by > 0)) return;
  const lower = (id: number) => setPriority(id, Math.min(19, getPriority(id) + by));
  try {
    for (const tid of readdirSync("/proc/self/task")) lower(Number(tid));
  } catch {
    try {
      lower(0);
    } catch {
      // not allowed: the worker runs at the host's priority
    }
  }
}
