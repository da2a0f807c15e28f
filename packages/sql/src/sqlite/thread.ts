// One SQLite connection thread as seen from the main thread: send a statement, await its answer. Ref'ed only while
// a statement is out, so an idle database never keeps the host's process alive (as a plain connection would not).
import { Worker } from "node:worker_threads";
import { prepareWorkerModule, type WorkerModuleSpec, workerModule, workerOptions } from "@mountkit/core/worker-module";
import type { Answer, QueryError, QueryReply, Statement, ThreadInit, ThreadReady } from "./protocol.js";

export type { Answer, Statement };

/**
 * A statement's failure, with the driver's code (what `isUniqueViolation` and the busy check read) and its place in
 * the message (the statements before it ran).
 */
export class SqliteThreadError extends Error {
  readonly code: string | undefined;
  readonly index: number;
  constructor(e: QueryError, index = 0) {
    super(e.message);
    this.code = e.code;
    this.index = index;
  }
}

const MODULE: WorkerModuleSpec = { from: import.meta.url, built: "./sqlite-worker.js", source: "./worker.ts", name: "sqlite-worker" };
const moduleUrl = () => workerModule(MODULE);
/** Bundles the thread's module off the event loop when running from sources; awaited before the first thread. */
export const prepareThreads = () => prepareWorkerModule(MODULE);

export interface SqliteThread {
  readonly ready: Promise<Extract<ThreadReady, { type: "ready" }>>;
  /** Statements sent and not yet answered. */
  readonly pending: number;
  run(sql: string, params: readonly unknown[], busyMs?: number): Promise<Answer>;
  /** Statements run in order in one round trip; the first failure rejects (`index` names it) and skips the rest. */
  runAll(statements: readonly Statement[], busyMs?: number): Promise<Answer[]>;
  close(): Promise<void>;
}

export function startThread(init: ThreadInit): SqliteThread {
  const worker = new Worker(new URL(moduleUrl()), { workerData: init, ...workerOptions(), stdout: false, stderr: false });
  const waiting = new Map<number, { resolve(a: Answer[]): void; reject(e: Error): void }>();
  let next = 1;
  let dead: Error | undefined;
  const hold = () => (waiting.size === 1 ? worker.ref() : undefined);
  let started!: (m: ThreadReady) => void;
  const ready = new Promise<Extract<ThreadReady, { type: "ready" }>>((resolve, reject) => {
    started = (m) => (m.type === "ready" ? resolve(m) : reject(new Error(m.message)));
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`SQLite thread exited (${code}) before it was ready`)));
  });
  ready.catch(() => {});
  // one listener, on from the start: a 'message' listener added after unref() takes a ref of its own again
  worker.on("message", (m: QueryReply | ThreadReady) => {
    if ("type" in m) {
      // ref'd while it starts (an await on `ready` must keep the process up), idle afterwards
      if (waiting.size === 0) worker.unref();
      return started(m);
    }
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    if (waiting.size === 0) worker.unref();
    if ("error" in m) w.reject(new SqliteThreadError(m.error, m.index));
    else w.resolve(m.answers);
  });
  const fail = (e: Error) => {
    dead ??= e;
    for (const w of waiting.values()) w.reject(dead);
    waiting.clear();
  };
  worker.on("error", fail);
  worker.on("exit", (code) => fail(new Error(`SQLite thread exited (${code})`)));
  let closing: Promise<void> | undefined;
  return {
    ready,
    get pending() {
      return waiting.size;
    },
    async run(sql, params, busyMs) {
      return (await this.runAll([{ sql, params }], busyMs))[0]!;
    },
    async runAll(statements, busyMs) {
      await ready;
      if (dead) throw dead;
      const id = next++;
      return new Promise<Answer[]>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        hold();
        worker.postMessage({ id, statements, busyMs });
      });
    },
    close() {
      closing ??= (async () => {
        const exited = new Promise<void>((r) => worker.once("exit", () => r()));
        if (dead) return;
        worker.ref();
        worker.postMessage({ type: "close" });
        const timer = setTimeout(() => void worker.terminate(), 5_000);
        await exited;
        clearTimeout(timer);
      })();
      return closing;
    },
  };
}
