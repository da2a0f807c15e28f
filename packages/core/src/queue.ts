// Job queue in the shape of pg-boss/BullMQ: enqueue returns an id, at-least-once delivery via leases,
// retries with exponential backoff, a graceful stop that drains in-flight jobs. Handlers must be idempotent.
// Jobs sharing a group key (a tenant, a brain) run one at a time across every worker of the store.
import { exponentialCap, fullJitter, type RandomSource } from "./backoff.js";
import { type Clock, systemClock } from "./clock.js";
import { type IdGenerator, randomIds } from "./ids.js";
import { kitLogger, type Logger } from "./logger.js";
import { type QueueTelemetry, queueTelemetry } from "./telemetry.js";

export interface Job<T = unknown> {
  id: string;
  queue: string;
  payload: T;
  /** Attempts started so far, including the current one once claimed. */
  attempts: number;
  maxAttempts: number;
  runAt: number;
  /** The job's serialisation group, when it was enqueued with one. */
  groupKey?: string;
}

export interface EnqueueInput {
  queue: string;
  payload: unknown;
  id?: string;
  runAt?: number;
  maxAttempts?: number;
  /**
   * Jobs of one queue with the same group key never run at the same time: a job is claimable only while
   * no other job of its group is running under a live lease (a crashed holder's lease ends, so a group is
   * never blocked for good). Jobs of different groups, and jobs without a key, run in parallel.
   */
  groupKey?: string;
}

/** A job as a store inserts it: what `enqueue` was given, with its id and the time. */
export type NewJob = EnqueueInput & { id: string; now: number };

/**
 * Storage behind a queue. `claim` must be atomic: a job is leased to one worker at a time, and at most one
 * job of a group key is running (under a live lease) at any moment, across every claimer of the store.
 */
export interface JobStore {
  enqueue(job: NewJob): Promise<string>;
  /**
   * Leases up to `limit` due jobs (queued, or running with an expired lease) until `now + leaseMs`, oldest
   * `runAt` first, skipping jobs whose group has another job running under a live lease and taking at most
   * one job per group.
   */
  claim(input: { queue: string; limit: number; now: number; leaseMs: number }): Promise<Job[]>;
  complete(input: { id: string; now: number }): Promise<void>;
  /**
   * Optional: completes `done` (each as `complete` would), then claims as `claim` would, in one step (on SQLite one
   * message to the writer). A worker whose store has it completes a finished job with its next claim, which follows at
   * once; without it, each job is completed on its own.
   */
  completeAndClaim?(input: {
    done: ReadonlyArray<{ id: string; now: number }>;
    queue: string;
    limit: number;
    now: number;
    leaseMs: number;
  }): Promise<Job[]>;
  /** `retryAt: null` marks the job dead (no more attempts). */
  fail(input: { id: string; error: string; retryAt: number | null; now: number }): Promise<void>;
  /** Counts by state, for health and tests. */
  counts(queue: string): Promise<{ queued: number; running: number; done: number; dead: number }>;
  /**
   * Deletes the jobs of `queue` and `groupKey`, in any state, whose payload names any of `ids` (every one of the group
   * without `ids`); answers how many. What an erasure calls so no job keeps or sends erased content; optional for a
   * host's own store, which then keeps them.
   */
  forgetMentions?(input: { queue: string; groupKey: string; ids?: readonly string[] }): Promise<number>;
}

/** Whether a job or delivery payload (as stored: JSON text) names any of `ids`; every one without `ids`. */
export const mentionsAny = (payload: string, ids: readonly string[] | undefined) =>
  ids === undefined || ids.some((id) => payload.includes(id));

type MemJob = Job & { state: "queued" | "running" | "done" | "dead"; leaseUntil: number; lastError?: string };

const groupOf = (queue: string, groupKey: string) => `${queue}\u0000${groupKey}`;

export function inMemoryJobStore(): JobStore {
  const jobs = new Map<string, MemJob>();
  /** Running jobs by group (queue + key): the live-lease check of `claim` without a scan. */
  const runningByGroup = new Map<string, Set<MemJob>>();
  const setState = (j: MemJob, state: MemJob["state"]) => {
    j.state = state;
    if (j.groupKey === undefined) return;
    const g = groupOf(j.queue, j.groupKey);
    const set = runningByGroup.get(g) ?? new Set<MemJob>();
    if (state === "running") set.add(j);
    else set.delete(j);
    if (set.size) runningByGroup.set(g, set);
    else runningByGroup.delete(g);
  };
  const groupBusy = (j: MemJob, now: number, taken: Set<string>) => {
    if (j.groupKey === undefined) return false;
    const g = groupOf(j.queue, j.groupKey);
    if (taken.has(g)) return true;
    for (const r of runningByGroup.get(g) ?? []) if (r !== j && r.leaseUntil > now) return true;
    return false;
  };
  const store: JobStore = {
    async enqueue(j) {
      if (jobs.has(j.id)) return j.id;
      jobs.set(j.id, {
        id: j.id,
        queue: j.queue,
        payload: structuredClone(j.payload),
        attempts: 0,
        maxAttempts: j.maxAttempts ?? 5,
        runAt: j.runAt ?? j.now,
        ...(j.groupKey === undefined ? {} : { groupKey: j.groupKey }),
        state: "queued",
        leaseUntil: 0,
      });
      return j.id;
    },
    async claim({ queue, limit, now, leaseMs }) {
      const due: MemJob[] = [];
      for (const j of jobs.values())
        if (j.queue === queue && ((j.state === "queued" && j.runAt <= now) || (j.state === "running" && j.leaseUntil <= now))) due.push(j);
      const out: Job[] = [];
      const taken = new Set<string>();
      // oldest runAt (then id) first, by selection: `limit` is a worker's few free slots, the backlog can be long
      while (out.length < limit) {
        let next: MemJob | undefined;
        for (const j of due) {
          if (j.state === "running" && j.leaseUntil > now) continue;
          if (next && (j.runAt > next.runAt || (j.runAt === next.runAt && j.id > next.id))) continue;
          if (!groupBusy(j, now, taken)) next = j;
        }
        if (!next) break;
        const j = next;
        if (j.groupKey !== undefined) taken.add(groupOf(j.queue, j.groupKey));
        setState(j, "running");
        j.attempts += 1;
        j.leaseUntil = now + leaseMs;
        out.push({
          id: j.id,
          queue: j.queue,
          payload: structuredClone(j.payload),
          attempts: j.attempts,
          maxAttempts: j.maxAttempts,
          runAt: j.runAt,
          ...(j.groupKey === undefined ? {} : { groupKey: j.groupKey }),
        });
      }
      return out;
    },
    async complete({ id }) {
      const j = jobs.get(id);
      if (j) setState(j, "done");
    },
    async completeAndClaim({ done, ...claim }) {
      for (const d of done) await store.complete(d);
      return store.claim(claim);
    },
    async fail({ id, error, retryAt }) {
      const j = jobs.get(id);
      if (!j) return;
      j.lastError = error;
      if (retryAt === null) setState(j, "dead");
      else {
        setState(j, "queued");
        j.runAt = retryAt;
      }
    },
    async counts(queue) {
      const c = { queued: 0, running: 0, done: 0, dead: 0 };
      for (const j of jobs.values()) if (j.queue === queue) c[j.state]++;
      return c;
    },
    async forgetMentions({ queue, groupKey, ids }) {
      let n = 0;
      for (const j of [...jobs.values()])
        if (j.queue === queue && j.groupKey === groupKey && mentionsAny(JSON.stringify(j.payload), ids)) {
          setState(j, "dead");
          jobs.delete(j.id);
          n++;
        }
      return n;
    },
  };
  return store;
}

export interface WorkerOptions<T> {
  store: JobStore;
  queue: string;
  handler: (job: Job<T>) => Promise<void>;
  /** Called when a job has used its last attempt. */
  onDead?: (job: Job<T>, error: unknown) => Promise<void> | void;
  concurrency?: number;
  pollMs?: number;
  leaseMs?: number;
  /** Delay before attempt n+1 of `job`; default full jitter under a cap of 1 s doubling up to 5 min. */
  backoffMs?: (attempt: number, job: Job<T>) => number;
  /** The jitter's random source (tests inject a fixed one). Default Math.random. */
  random?: RandomSource;
  clock?: Clock;
  logger?: Logger;
}

export interface Worker {
  start(): void;
  /** Polls now instead of waiting for the next tick (call after enqueue). */
  wake(): void;
  /** Stops claiming and waits for in-flight jobs to finish. */
  stop(): Promise<void>;
  /** Resolves when the queue is drained: nothing queued (delayed retries included) and nothing running. */
  idle(): Promise<void>;
}

/** What running one job needs from its worker. */
interface JobRun {
  clock: Clock;
  log: Logger;
  backoff: (attempt: number, job: Job<never>) => number;
  tel: QueueTelemetry | undefined;
  /** Records a finished job as done: at once, or with the worker's next claim. */
  complete: (id: string, now: number) => Promise<void>;
}

/** Runs one claimed job: completed on success; on failure `onDead` after its last attempt, and the retry or death recorded. */
async function runJob<T>(o: WorkerOptions<T>, job: Job<T>, { clock, log, backoff, tel, complete }: JobRun) {
  const started = performance.now();
  try {
    await o.handler(job);
    await complete(job.id, clock.now());
    tel?.ran((performance.now() - started) / 1000, "done");
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const last = job.attempts >= job.maxAttempts;
    tel?.ran((performance.now() - started) / 1000, last ? "dead" : "retry");
    log.warn("job failed", { queue: o.queue, job: job.id, attempt: job.attempts, last, error: message });
    try {
      if (last) await o.onDead?.(job, err);
    } catch (e) {
      log.error("onDead failed", { queue: o.queue, job: job.id, error: e });
    }
    await o.store
      .fail({ id: job.id, error: message, retryAt: last ? null : clock.now() + backoff(job.attempts, job as Job<never>), now: clock.now() })
      .catch((e) => log.error("could not record job failure", { job: job.id, error: e }));
  }
}

/**
 * How a worker records finished jobs: with a store that has completeAndClaim, each waits for the next claim, which
 * carries it; otherwise each is completed at once.
 */
function pendingCompletions(store: JobStore, queue: string, log: Logger) {
  const { completeAndClaim } = store;
  let done: Array<{ id: string; now: number }> = [];
  return {
    complete: completeAndClaim
      ? async (id: string, now: number) => {
          done.push({ id, now });
        }
      : (id: string, now: number) => store.complete({ id, now }),
    /** A claim, carrying the completions that wait for it. */
    async claim(input: { queue: string; limit: number; now: number; leaseMs: number }): Promise<Job[]> {
      if (!completeAndClaim || !done.length) return store.claim(input);
      const finished = done;
      done = [];
      try {
        return await completeAndClaim.call(store, { done: finished, ...input });
      } catch (e) {
        // completing again is harmless: they wait for the next claim
        done = [...finished, ...done];
        throw e;
      }
    },
    /** Completes what waits for a claim that will not come (the worker stopped). */
    async flush() {
      const waiting = done;
      done = [];
      for (const d of waiting)
        await store.complete(d).catch((e) => log.error("could not record job completion", { queue, job: d.id, error: e }));
    },
  };
}

export function createWorker<T>(o: WorkerOptions<T>): Worker {
  const clock = o.clock ?? systemClock;
  const log = kitLogger(o.logger);
  const concurrency = o.concurrency ?? 2;
  const pollMs = o.pollMs ?? 250;
  const leaseMs = o.leaseMs ?? 60_000;
  const random = o.random ?? Math.random;
  const backoff =
    (o.backoffMs as JobRun["backoff"] | undefined) ?? ((n: number) => fullJitter(exponentialCap(n - 1, 1000, 300_000), random));
  const inFlight = new Set<Promise<void>>();
  let running = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let polling: Promise<void> | undefined;
  let again = false;
  let idleWaiters: Array<() => void> = [];
  const tel = queueTelemetry(o.queue, () => o.store.counts(o.queue));
  const completions = pendingCompletions(o.store, o.queue, log);
  const run: JobRun = { clock, log, backoff, tel, complete: completions.complete };
  const claim = (limit: number) => completions.claim({ queue: o.queue, limit, now: clock.now(), leaseMs });

  async function poll(): Promise<void> {
    do {
      again = false;
      while (running && inFlight.size < concurrency) {
        const wanted = concurrency - inFlight.size;
        let jobs: Job[];
        try {
          jobs = await claim(wanted);
        } catch (e) {
          log.error("job claim failed", { queue: o.queue, error: e });
          break;
        }
        if (!jobs.length) break;
        if (tel) for (const job of jobs) tel.claimed((clock.now() - job.runAt) / 1000);
        for (const job of jobs) {
          const p = runJob(o, job as Job<T>, run).finally(() => {
            inFlight.delete(p);
            if (running) wake();
            else settleIdle();
          });
          inFlight.add(p);
        }
        // fewer than asked: nothing else is claimable now (a group busy, a backlog drained); an enqueue or
        // a finished job wakes the worker, so asking again at once would only repeat an empty claim
        if (jobs.length < wanted) break;
      }
    } while (again && running);
    settleIdle();
  }

  function settleIdle() {
    if (inFlight.size === 0 && !polling) {
      const w = idleWaiters;
      idleWaiters = [];
      for (const f of w) f();
    }
  }

  function wake() {
    if (!running) return;
    if (polling) {
      again = true;
      return;
    }
    polling = poll().finally(() => {
      polling = undefined;
      schedule();
      settleIdle();
    });
  }

  function schedule() {
    if (!running) return;
    clearTimeout(timer);
    timer = setTimeout(wake, pollMs);
    timer.unref?.();
  }

  return {
    start() {
      if (running) return;
      running = true;
      tel?.watch(true);
      wake();
    },
    wake,
    async stop() {
      running = false;
      tel?.watch(false);
      clearTimeout(timer);
      await polling;
      await Promise.allSettled([...inFlight]);
      await completions.flush();
    },
    async idle() {
      for (;;) {
        await polling;
        if (inFlight.size) await Promise.allSettled([...inFlight]);
        const c = await o.store.counts(o.queue);
        // delayed retries count as pending work: idle means drained
        if (!polling && inFlight.size === 0 && c.running === 0 && c.queued === 0) return;
        await new Promise((r) => setTimeout(r, Math.min(pollMs, 10)));
      }
    },
  };
}

/** The common queue shape on top of a JobStore: `enqueue` + `work` + `stop`. */
export function createQueue(store: JobStore, options: { clock?: Clock; ids?: IdGenerator; logger?: Logger } = {}) {
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? randomIds;
  const workers = new Map<string, Worker>();
  return {
    store,
    async enqueue(queue: string, payload: unknown, opts: { id?: string; runAt?: number; maxAttempts?: number; groupKey?: string } = {}) {
      const id = await store.enqueue({
        queue,
        payload,
        id: opts.id ?? ids("job"),
        runAt: opts.runAt,
        maxAttempts: opts.maxAttempts,
        groupKey: opts.groupKey,
        now: clock.now(),
      });
      workers.get(queue)?.wake();
      return id;
    },
    work<T>(queue: string, handler: (job: Job<T>) => Promise<void>, opts: Omit<WorkerOptions<T>, "store" | "queue" | "handler"> = {}) {
      const w = createWorker<T>({ clock, logger: options.logger, ...opts, store, queue, handler });
      workers.set(queue, w);
      w.start();
      return w;
    },
    async stop() {
      await Promise.all([...workers.values()].map((w) => w.stop()));
    },
  };
}
export type Queue = ReturnType<typeof createQueue>;

/** @deprecated Renamed `inMemoryJobStore`: "memory" in a name means the memory service. This alias goes in the next major version. */
export const memoryJobStore = inMemoryJobStore;
