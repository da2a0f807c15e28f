// Durable JobStore on the `jobs` table. A claim is one UPDATE ... RETURNING that leases due rows, at most
// one per group key and none of a group that has a job running under a live lease. Claims of one queue
// are serialised (a transaction-scoped advisory lock on PostgreSQL, the single write lock on SQLite), so
// two claimers in different processes can never both see a group as free.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Job, JobStore, NewJob } from "@mountkit/core/jobs";
import { type Kysely, sql } from "kysely";
import { executeBatch } from "../../batch.js";
import type { SqlDatabase } from "../../db.js";
import { sqlCount } from "../../limits.js";
import { deleteMentioning } from "../../mentions.js";

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
  /** Jobs of a queue sharing it run one at a time (EnqueueInput.groupKey). */
  group_key: string | null;
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

/** Arbitrary constant naming the job claim locks among the database's advisory locks (the queue is the second key). */
const CLAIM_LOCK_KEY = 0x6d6b_6a62;

/** The statement of `insertJob`, to run in a batch with others. */
export function jobInsert(db: Kysely<any>, job: NewJob) {
  return (db as Kysely<JobsDb>)
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
      group_key: job.groupKey ?? null,
      created_at: job.now,
      updated_at: job.now,
    })
    .onConflict((oc) => oc.column("id").doNothing());
}

/**
 * Inserts a queued job unless its id exists. Exposed so a store can enqueue in the same transaction as
 * the record the job is about (an episode and its extraction job are written together or not at all).
 */
export async function insertJob(db: Kysely<any>, job: NewJob): Promise<void> {
  await jobInsert(db, job).execute();
}

/** A job marked done. */
const completion = (db: Kysely<JobsDb>, { id, now }: { id: string; now: number }) =>
  db.updateTable("jobs").set({ state: "done", updated_at: now }).where("id", "=", id);

function toJob(r: Pick<JobsTable, "id" | "queue" | "payload" | "attempts" | "max_attempts" | "run_at" | "group_key">): Job {
  return {
    id: r.id,
    queue: r.queue,
    payload: JSON.parse(r.payload),
    attempts: Number(r.attempts),
    maxAttempts: Number(r.max_attempts),
    runAt: Number(r.run_at),
    ...(r.group_key === null ? {} : { groupKey: r.group_key }),
  };
}

/**
 * The claim's selection: `due(alias)` (queued and due, or running past its lease or with its holder gone) and the ids
 * of the jobs a claim of `limit` leases, oldest first, one per group with no job running under a live lease.
 */
function claimQuery({
  queue,
  limit,
  now,
  staleBefore,
  pg,
}: {
  queue: string;
  limit: number;
  now: number;
  staleBefore: number;
  pg: boolean;
}) {
  // written into the statement (../../limits.ts): a claim asks for a few jobs, so the threads' caches hold a few variants
  const top = sqlCount(limit);
  // a running job is retaken when its lease ended or its holder stopped heartbeating
  const gone = (alias: string) =>
    sql`exists (select 1 from job_workers w where w.owner = ${sql.ref(`${alias}.locked_by`)} and w.seen_at < ${staleBefore})`;
  // `due` filters rows found by id: on SQLite, `+queue` keeps the planner from walking the queue's whole (queue,
  // state, run_at) index instead, finished jobs and all, which made a claim's cost grow with the jobs ever run
  const due = (alias: string) => {
    const c = (col: string) => sql.ref(`${alias}.${col}`);
    const queueCol = pg ? c("queue") : sql`+${c("queue")}`;
    return sql`${queueCol} = ${queue} and ((${c("state")} = 'queued' and ${c("run_at")} <= ${now}) or (${c("state")} = 'running' and (${c("lease_until")} <= ${now} or ${gone(alias)})))`;
  };
  // the only jobs that can win: running ones whose lease ended or whose holder is gone (a few), each queued group's
  // oldest due job (one index seek per group, walking the groups with a recursive query), and the oldest `limit`
  // ungrouped due jobs. Ranking the whole backlog instead made a claim cost ~35 ms of the writer at 3,000 queued jobs.
  const candidates = sql`
      with recursive grp(k) as (
        select min(group_key) from jobs where queue = ${queue} and state = 'queued' and group_key is not null
        union all
        select (select min(q.group_key) from jobs q where q.queue = ${queue} and q.state = 'queued' and q.group_key > grp.k)
        from grp where grp.k is not null
      )
      select x.id from jobs x where x.queue = ${queue} and x.state = 'running' and ${due("x")}
      union all
      select (select q.id from jobs q
        where q.queue = ${queue} and q.state = 'queued' and q.group_key = grp.k and q.run_at <= ${now}
        order by q.run_at, q.id limit 1)
      from grp where grp.k is not null
      union all
      select f.id from (
        select q.id from jobs q where q.queue = ${queue} and q.state = 'queued' and q.group_key is null and q.run_at <= ${now}
        order by q.run_at, q.id limit ${top}
      ) f`;
  // due jobs whose group has no other job running under a live lease; the oldest one per group
  const claimable = sql`
      select c.id from (
        select j.id, j.run_at,
          row_number() over (
            partition by case when j.group_key is null then 'i:' || j.id else 'g:' || j.group_key end
            order by j.run_at, j.id
          ) as rn
        from jobs j
        where j.id in (${candidates}) and ${due("j")}
          and (j.group_key is null or not exists (
            select 1 from jobs r
            where r.queue = j.queue and r.group_key = j.group_key and r.state = 'running' and r.id <> j.id
              and r.lease_until > ${now} and not ${gone("r")}
          ))
      ) c
      where c.rn = 1
      order by c.run_at, c.id
      limit ${top}`;
  return { due, claimable };
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

  /**
   * Completes `done`, then leases up to `limit` due jobs: on SQLite one transaction in one message to the writer, on
   * PostgreSQL one transaction under the queue's claim lock.
   */
  async function completeAndClaim(
    done: ReadonlyArray<{ id: string; now: number }>,
    { queue, limit, now, leaseMs }: { queue: string; limit: number; now: number; leaseMs: number },
  ): Promise<Job[]> {
    if (limit <= 0) {
      for (const d of done) await completion(db, d).execute();
      return [];
    }
    await startHeartbeat();
    const { due, claimable } = claimQuery({ queue, limit, now, staleBefore: Date.now() - staleAfterMs, pg });
    const lease = async (trx: Kysely<JobsDb>) => {
      const completes = done.map((d) => completion(trx, d));
      // `due` again on the row itself: a row its holder completed meanwhile is not leased again
      const leasing = sql<JobsTable>`
        update jobs set state = 'running', attempts = attempts + 1, lease_until = ${now + leaseMs},
          locked_by = ${owner}, updated_at = ${now}
        where id in (${claimable}) and ${due("jobs")}
        returning id, queue, payload, attempts, max_attempts, run_at, group_key`;
      if (pg) {
        // the claim lock first: a claimer holding it never waits on this transaction's completed rows
        await sql`select pg_advisory_xact_lock(${CLAIM_LOCK_KEY}, hashtext(${queue}))`.execute(trx);
        for (const c of completes) await c.execute();
        return (await leasing.execute(trx)).rows;
      }
      if (!completes.length) return (await leasing.execute(trx)).rows;
      const answers = await executeBatch(trx, false, [...completes, leasing], { commits: true });
      return answers.at(-1)!.rows as JobsTable[];
    };
    const rows = pg || done.length ? await db.transaction().execute(lease) : await lease(db);
    return rows.map(toJob).sort((a, b) => a.runAt - b.runAt || (a.id < b.id ? -1 : 1));
  }

  return {
    async enqueue(job) {
      await insertJob(db, job);
      return job.id;
    },
    async claim(input) {
      return completeAndClaim([], input);
    },
    async complete({ id, now }) {
      await completion(db, { id, now }).execute();
    },
    async completeAndClaim({ done, ...input }) {
      return completeAndClaim(done, input);
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
    async forgetMentions({ queue, groupKey, ids }) {
      return deleteMentioning(db, pg, db.deleteFrom("jobs").where("queue", "=", queue).where("group_key", "=", groupKey), ids);
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
