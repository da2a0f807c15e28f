// The parent's side of the spec pool's child processes: at most `size` of them, each validating one document at a time
// under its own `--max-old-space-size`. A child that runs past the time limit is killed; one that runs out of heap dies
// alone (V8 aborts the process that exhausted its heap, which a worker thread's `resourceLimits` did not always keep
// from taking the host with it); either way the caller gets a verdict and the next document a fresh process.
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { limitMessages } from "./limits.js";
import { failedLint, type LintReport, type LintTask } from "./lint-types.js";
import { type PoolValidateRequest, SpecPoolBusyError } from "./pool-types.js";
import type { ValidationOutcome } from "./validate.js";
import type { FromWorker, ToWorker, WorkerTask } from "./worker.js";

export interface ProcessPoolOptions {
  /** The child's entry module (a file: URL). */
  file: string;
  size: number;
  timeoutMs: number;
  maxMemoryMb: number;
  lowerPriorityBy: number;
  /** An idle child ends after this long. */
  idleMs: number;
  /** The deployment lints: children load Spectral before they say they are ready. */
  preloadLint?: boolean;
}

type Settled = { ok: true; outcome: ValidationOutcome } | { ok: false; error: unknown };

interface Task {
  req: PoolValidateRequest;
  settle: (r: Settled) => void;
  timer?: NodeJS.Timeout;
  lint?: LintTask;
  /** The validation's outcome, held while the child lints the document. */
  validated?: ValidationOutcome;
}

interface Child {
  proc: ChildProcess;
  /** Resolved by the child's `ready`; rejected when it ends before. */
  ready: Promise<void>;
  /** The end of what the child last wrote to stderr, so that a message split between two reads is still seen. */
  stderr: string;
  /** V8 reported that the child's heap cap was reached (followed by a native stack trace, then the abort). */
  outOfHeap: boolean;
  task?: Task;
  idleTimer?: NodeJS.Timeout;
  closed: Promise<void>;
  /** The process has ended and its streams are closed. */
  gone: boolean;
}

export interface ProcessPool {
  run(task: Omit<WorkerTask, "canFetch">, req: PoolValidateRequest): Promise<ValidationOutcome>;
  /** Ends every child; running and waiting documents are answered as not judged. Later runs start new children. */
  destroy(): Promise<void>;
}

/** Time a child may take to start and say it is ready, at least. */
const START_MS = 30_000;

const invalid = (message: string): ValidationOutcome => ({ answer: { valid: false, errors: [{ path: "", message }] } });

const withLint = (o: ValidationOutcome, lint: LintReport): ValidationOutcome =>
  o.answer.valid ? { ...o, answer: { ...o.answer, lint } } : o;

/**
 * A child stopped (time, memory, a crash) while it linted: the validation's verdict stands, and the lint part says why
 * it is missing, in the limit's words.
 */
const lintCut = (t: Task, reason: string): Settled => ({ ok: true, outcome: withLint(t.validated!, failedLint(t.lint!, reason)) });

/** What V8 prints when a heap cap is reached (the wording differs between the main heap, a local heap and versions). */
const OUT_OF_HEAP = /out of memory|allocation failed|heap limit|Ineffective mark-compacts|invalid size error/i;

/** The host's NODE_OPTIONS (a loader, a debugger, its own heap size) are the host's; the child runs plain Node. */
function childEnv(): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _, ...env } = process.env;
  return env;
}

/** A child holds the host's event loop open only while it works on a document. */
function hold(c: Child, on: boolean): void {
  const handles = [c.proc, c.proc.channel, c.proc.stderr] as Array<{ ref?: () => void; unref?: () => void } | null | undefined>;
  for (const h of handles) (on ? h?.ref : h?.unref)?.call(h);
}

interface PoolState {
  o: ProcessPoolOptions;
  all: Set<Child>;
  /** Children told to end that have not yet. */
  ending: Set<Child>;
  idle: Child[];
  waiting: Array<{ take: (c: Child) => void; refuse: (e: unknown) => void }>;
}

function finish(c: Child, r: Settled): void {
  const t = c.task;
  if (!t) return;
  c.task = undefined;
  clearTimeout(t.timer);
  t.settle(r);
}

function retire(state: PoolState, c: Child): void {
  state.all.delete(c);
  const i = state.idle.indexOf(c);
  if (i >= 0) state.idle.splice(i, 1);
  clearTimeout(c.idleTimer);
  // held until it has gone, so that a caller awaiting destroy() sees it go
  hold(c, true);
  if (c.gone) return;
  state.ending.add(c);
  c.proc.kill("SIGKILL");
}

/** A child done with its document serves the next waiting one, or waits idle (and ends after `idleMs`). */
function release(state: PoolState, c: Child): void {
  if (!state.all.has(c)) return;
  const next = state.waiting.shift();
  if (next) {
    next.take(c);
    return;
  }
  state.idle.push(c);
  hold(c, false);
  c.idleTimer = setTimeout(() => retire(state, c), state.o.idleMs);
  c.idleTimer.unref();
}

function onMessage(state: PoolState, c: Child, m: FromWorker): void {
  const t = c.task;
  if (m.type === "ready" || !t) return;
  if (m.type === "done" && m.lintFollows && t.lint) {
    t.validated = m.outcome;
    return;
  }
  if (m.type === "done" || m.type === "failed" || m.type === "linted") {
    if (m.type === "linted")
      finish(
        c,
        t.validated ? { ok: true, outcome: withLint(t.validated, m.lint) } : { ok: false, error: new Error("lint without a validation") },
      );
    else if (m.type === "done") finish(c, { ok: true, outcome: m.outcome });
    else finish(c, t.validated ? lintCut(t, "lint failed") : { ok: false, error: new Error(m.message) });
    release(state, c);
    return;
  }
  const reply = (r: ToWorker) => {
    if (c.task === t && c.proc.connected) send(state, c, r);
  };
  const fetchDocument = t.req.fetchDocument;
  // the caller's fetcher may throw at once, reject with anything, or answer what cannot be sent: each is a failed fetch
  Promise.resolve()
    .then(() => (fetchDocument ? fetchDocument(new URL(m.url)) : Promise.reject(new Error("external documents are not fetched"))))
    .then(
      (bytes) => reply({ type: "fetched", reply: { id: m.id, bytes } }),
      (e: unknown) => reply({ type: "fetched", reply: { id: m.id, error: String((e as Error | undefined)?.message ?? e) } }),
    );
}

/** The child's channel refused a message: the document is not judged, and the child ends. */
function failReach(state: PoolState, c: Child): void {
  finish(c, { ok: false, error: new SpecPoolBusyError("the validation process could not be reached") });
  retire(state, c);
}

/** Sends to a child; a message that cannot be serialized or a closed channel fails its document. */
function send(state: PoolState, c: Child, m: ToWorker): void {
  try {
    c.proc.send(m, (e) => e && failReach(state, c));
  } catch {
    failReach(state, c);
  }
}

/** How a child that ended under a document answers for it: out of heap is the document's fault (422), else not judged. */
function ended(state: PoolState, c: Child, code: number | null, signal: NodeJS.Signals | null): Settled {
  const t = c.task;
  if (t?.validated)
    return lintCut(
      t,
      c.outOfHeap ? limitMessages.memory(state.o.maxMemoryMb) : `lint failed: the process ended (${signal ?? `exit code ${code}`})`,
    );
  if (c.outOfHeap) return { ok: true, outcome: invalid(limitMessages.memory(state.o.maxMemoryMb)) };
  return { ok: false, error: new SpecPoolBusyError(`the validation process ended (${signal ?? `exit code ${code}`})`) };
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((y, n) => {
    resolve = y;
    reject = n;
  });
  return { promise, resolve, reject };
}

function spawn(state: PoolState): Child {
  const { o } = state;
  const proc = fork(fileURLToPath(o.file), [String(o.lowerPriorityBy), o.preloadLint ? "lint" : ""], {
    execArgv: [`--max-old-space-size=${o.maxMemoryMb}`],
    serialization: "advanced",
    stdio: ["ignore", "ignore", "pipe", "ipc"],
    env: childEnv(),
  });
  const ready = deferred<void>();
  const closed = deferred<void>();
  ready.promise.catch(() => {});
  const c: Child = { proc, stderr: "", outOfHeap: false, ready: ready.promise, closed: closed.promise, gone: false };
  proc.stderr?.setEncoding("utf8");
  proc.stderr?.on("data", (s: string) => {
    const text = c.stderr + s;
    if (OUT_OF_HEAP.test(text)) c.outOfHeap = true;
    c.stderr = text.slice(-256);
  });
  // a child that neither says it is ready nor ends within the start limit is ended (its document is not judged)
  const starting = setTimeout(() => failReach(state, c), Math.max(o.timeoutMs, START_MS));
  starting.unref();
  proc.on("message", (m: FromWorker) => {
    if (m.type !== "ready") return onMessage(state, c, m);
    clearTimeout(starting);
    ready.resolve();
  });
  const onGone = (code: number | null, signal: NodeJS.Signals | null) => {
    if (c.gone) return;
    c.gone = true;
    clearTimeout(starting);
    if (state.all.has(c)) retire(state, c);
    state.ending.delete(c);
    ready.reject(new SpecPoolBusyError("the validation process ended before it was ready"));
    finish(c, ended(state, c, code, signal));
    closed.resolve();
    // a waiting document takes the place this child held
    while (state.waiting.length && state.all.size < o.size) state.waiting.shift()!.take(spawn(state));
  };
  // 'close' comes after stderr is drained, so an out-of-heap message is read before the verdict; a process that never
  // started reports 'error' alone
  proc.on("close", onGone);
  proc.on("error", () => {
    if (proc.pid === undefined) onGone(null, null);
  });
  state.all.add(c);
  return c;
}

function acquire(state: PoolState, signal: AbortSignal | undefined): Promise<Child> {
  const c = state.idle.pop();
  if (c) {
    clearTimeout(c.idleTimer);
    return Promise.resolve(c);
  }
  if (state.all.size < state.o.size) return Promise.resolve(spawn(state));
  return new Promise((take, refuse) => {
    const onAbort = () => {
      const i = state.waiting.indexOf(entry);
      if (i < 0) return;
      state.waiting.splice(i, 1);
      refuse(signal?.reason);
    };
    // the abort listener goes when the document leaves the queue, so a long-lived signal gathers none
    const entry = {
      take: (c: Child) => {
        signal?.removeEventListener("abort", onAbort);
        take(c);
      },
      refuse: (e: unknown) => {
        signal?.removeEventListener("abort", onAbort);
        refuse(e);
      },
    };
    state.waiting.push(entry);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Hands one document to a child once it is ready; the time limit counts from then. */
function runOn(state: PoolState, c: Child, task: Omit<WorkerTask, "canFetch">, req: PoolValidateRequest): Promise<ValidationOutcome> {
  hold(c, true);
  const answer = deferred<ValidationOutcome>();
  const onAbort = () => {
    finish(c, { ok: false, error: req.signal?.reason });
    retire(state, c);
  };
  const t: Task = {
    req,
    lint: task.lint,
    settle: (r) => {
      req.signal?.removeEventListener("abort", onAbort);
      if (r.ok) answer.resolve(r.outcome);
      else answer.reject(r.error);
    },
  };
  c.task = t;
  if (req.signal?.aborted) onAbort();
  else req.signal?.addEventListener("abort", onAbort, { once: true });
  c.ready.then(
    () => {
      if (c.task !== t) return;
      t.timer = setTimeout(() => {
        const message = limitMessages.time(state.o.timeoutMs);
        finish(c, t.validated ? lintCut(t, message) : { ok: true, outcome: invalid(message) });
        retire(state, c);
      }, state.o.timeoutMs);
      send(state, c, { type: "task", task: { ...task, canFetch: !!req.fetchDocument } });
    },
    () => {},
  );
  return answer.promise;
}

export function processPool(o: ProcessPoolOptions): ProcessPool {
  const state: PoolState = { o, all: new Set(), ending: new Set(), idle: [], waiting: [] };
  return {
    async run(task, req) {
      req.signal?.throwIfAborted();
      return runOn(state, await acquire(state, req.signal), task, req);
    },
    async destroy() {
      const children = [...state.all];
      const closed = new SpecPoolBusyError("the validation pool was closed");
      for (const w of state.waiting.splice(0)) w.refuse(closed);
      for (const c of children) {
        finish(c, { ok: false, error: closed });
        retire(state, c);
      }
      await Promise.all([...children, ...state.ending].map((c) => c.closed));
    },
  };
}
