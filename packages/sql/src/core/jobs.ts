// Durable JobStore on the `jobs` table. A claim is one statement that leases due rows: PostgreSQL picks
// them with FOR UPDATE SKIP LOCKED so concurrent workers in several processes never take the same job;
// SQLite runs the same UPDATE ... RETURNING under its single write lock.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { EnqueueInput, Job, JobStore } from "@mountkit/core";
import { type Kysely, sql } from "kysely";
import type { SqlDatabase } from "../db.js";

export interface JobsTable {
  id: string;
  queue: string;
  payload: string;
  state: "queued" | "running" | "done" | "dead";
  attempts: number;
  max_attempts: number;
  run_at: number;
  lease_until: number;
  last_error: string | null;
  /** The store instance (host:pid:random) that last claimed the job: for operators and tests. */
  locked_by: string | null;
  created_at: number;
  updated_at: number;
}

type JobsDb = { jobs: JobsTable; job_workers: { owner: string; seen_at: number } };

export interface SqlJobStoreOptions {
  /** How often a claiming store records that its process is alive. Default 5 s. */
  heartbeatMs?: number;
  /**
   * A running job whose holder has not been seen for this long is claimable again before its lease ends:
   * after a crash (kill -9, lost machine) its jobs resume within this delay instead of the full lease.
   * A holder stalled that long may see its job run twice; handlers are idempotent. Default 20 s.
   */
  staleAfterMs?: number;
}

const DEFAULT_MAX_ATTEMPTS = 5;

/**
 * Inserts a queued job unless its id exists. Exposed so a store can enqueue in the same transaction as
 * the record the job is about (an episode and its extraction job are written together or not at all).
 */
export async function insertJob(db: Kysely<any>, job: EnqueueInput & { id: string; now: number }): Promise<void> {
  await (db as Kysely<JobsDb>)
    .insertInto("jobs")
    .values({
      id: job.id,
      queue: job.queue,
      payload: JSON.stringify(job.payload ?? null),
      state: "queued",
      attempts: 0,
      max_attempts: job.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      run_at: job.runAt ?? job.now,
      lease_until: 0,
      last_error: null,
      locked_by: null,
      created_at: job.now,
      updated_at: job.now,
    })
    .onConflict((oc) => oc.column("id").doNothing())
    .execute();
}

function toJob(r: Pick<JobsTable, "id" | "queue" | "payload" | "attempts" | "max_attempts" | "run_at">): Job {
  return {
    id: r.id,
    queue: r.queue,
    payload: JSON.parse(r.payload),
    attempts: Number(r.attempts),
    maxAttempts: Number(r.max_attempts),
    runAt: Number(r.run_at),
  };
}

export function sqlJobStore(database: SqlDatabase, options: SqlJobStoreOptions = {}): JobStore {
  const db = database.kysely as Kysely<JobsDb>;
  const pg = database.dialect === "postgres";
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  const heartbeatMs = options.heartbeatMs ?? 5_000;
  const staleAfterMs = options.staleAfterMs ?? 20_000;
  let heartbeat: ReturnType<typeof setInterval> | undefined;

  // wall-clock time on purpose: liveness is judged across processes, whatever clock the queue is given
  async function beat() {
    await db
      .insertInto("job_workers")
      .values({ owner, seen_at: Date.now() })
      .onConflict((oc) => oc.column("owner").doUpdateSet({ seen_at: Date.now() }))
      .execute();
  }

  async function startHeartbeat() {
    if (heartbeat) return;
    heartbeat = setInterval(() => {
      beat().catch(() => {
        // the database is gone (closed store): stop beating
        clearInterval(heartbeat);
      });
    }, heartbeatMs);
    heartbeat.unref?.();
    await beat();
  }

  return {
    async enqueue(job) {
      await insertJob(db, job);
      return job.id;
    },
    async claim({ queue, limit, now, leaseMs }) {
      if (limit <= 0) return [];
      await startHeartbeat();
      const stale = db
        .selectFrom("job_workers")
        .select("owner")
        .where("seen_at", "<", Date.now() - staleAfterMs);
      const due = db
        .selectFrom("jobs")
        .select("id")
        .where("queue", "=", queue)
        .where((eb) =>
          eb.or([
            eb.and([eb("state", "=", "queued"), eb("run_at", "<=", now)]),
            eb.and([eb("state", "=", "running"), eb.or([eb("lease_until", "<=", now), eb("locked_by", "in", stale)])]),
          ]),
        )
        .orderBy("run_at")
        .orderBy("id")
        .limit(limit);
      const rows = await db
        .updateTable("jobs")
        .set((eb) => ({
          state: "running",
          attempts: eb("attempts", "+", 1),
          lease_until: now + leaseMs,
          locked_by: owner,
          updated_at: now,
        }))
        .where("id", "in", pg ? due.forUpdate().skipLocked() : due)
        .returning(["id", "queue", "payload", "attempts", "max_attempts", "run_at"])
        .execute();
      return rows.map(toJob).sort((a, b) => a.runAt - b.runAt || (a.id < b.id ? -1 : 1));
    },
    async complete({ id, now }) {
      await db.updateTable("jobs").set({ state: "done", updated_at: now }).where("id", "=", id).execute();
    },
    async fail({ id, error, retryAt, now }) {
      await db
        .updateTable("jobs")
        .set(
          retryAt === null
            ? { state: "dead", last_error: error, updated_at: now }
            : { state: "queued", run_at: retryAt, lease_until: 0, last_error: error, updated_at: now },
        )
        .where("id", "=", id)
        .execute();
    },
    async counts(queue) {
      const rows = await db
        .selectFrom("jobs")
        .select(["state", sql<number>`count(*)`.as("n")])
        .where("queue", "=", queue)
        .groupBy("state")
        .execute();
      const c = { queued: 0, running: 0, done: 0, dead: 0 };
      for (const r of rows) c[r.state] = Number(r.n);
      return c;
    },
  };
}
