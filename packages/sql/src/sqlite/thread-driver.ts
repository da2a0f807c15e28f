// Kysely's SQLite dialect driven through connection threads: one writer thread (transactions and every write, one
// at a time, as SQLite allows) and reader threads (WAL lets them read while a writer, here or in another process,
// holds the lock). The main thread only posts statements and awaits answers. A write that cannot get the lock
// within the deadline (the wait for this process's writer plus SQLite's busy wait) fails with a 503 KitError
// carrying Retry-After, instead of holding anything.
import { coreError } from "@mountkit/core";
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  SelectQueryNode,
  SqliteDialect,
} from "kysely";
import { CHECK_FAILED, type CheckedQuery, CheckFailed, EXPECT } from "../check.js";
import type { SqliteDriverName } from "../drivers.js";
import { SqliteLiteralLimitCompiler } from "../limits.js";
import type { ThreadInit } from "./protocol.js";
import { type Answer, prepareThreads, type SqliteThread, SqliteThreadError, type Statement, startThread } from "./thread.js";

/** Marks a compiled query that carries a batch (see `batchQuery`). */
const BATCH = Symbol("mountkit.sqlite.batch");
type BatchQuery = CompiledQuery & { [BATCH]: readonly CompiledQuery[]; commits: boolean };

/**
 * One compiled query that stands for `queries`: the thread connection runs them in order in one round trip and
 * answers each one's result as a row (`executeBatch` in ../batch.ts reads them back). `commits`: the batch is the
 * last of its transaction and carries its COMMIT (the transaction's own commit then sends nothing).
 */
export function batchQuery(queries: readonly CompiledQuery[], commits = false): CompiledQuery {
  return { ...CompiledQuery.raw("-- batch", []), [BATCH]: queries, commits } as BatchQuery;
}

const COMMIT: Statement = { sql: "commit", params: [] };

const statementOf = (c: CheckedQuery): Statement => {
  const expect = c[EXPECT];
  return expect ? { sql: c.sql, params: c.parameters, expect } : { sql: c.sql, params: c.parameters };
};

const statementsOf = (q: CompiledQuery): Statement[] => (BATCH in q ? (q as BatchQuery)[BATCH].map(statementOf) : [statementOf(q)]);

const commitsOf = (q: CompiledQuery) => BATCH in q && (q as BatchQuery).commits;

export interface SqliteThreadOptions {
  filename: string;
  driver: SqliteDriverName | "auto";
  synchronous: "NORMAL" | "FULL";
  /** How long a write waits for the lock (this process's writer, then another process's), in ms. */
  lockTimeoutMs: number;
  /** Reader threads, started as load needs them; 0 sends reads to the writer (`:memory:` has one connection). */
  readers: number;
  vectors: boolean;
}

/** A statement that only reads: a Kysely select, or raw SQL that starts as one (a reader thread refuses the rest). */
function isRead(q: CompiledQuery): boolean {
  if (SelectQueryNode.is(q.query)) return true;
  return q.query.kind === "RawNode" && /^\s*select\b/i.test(q.sql);
}

const busy = () =>
  coreError("service_unavailable", {
    message: "the database is busy: another writer holds it; retry later",
    headers: { "retry-after": "1" },
  });

const remaining = (deadline: number) => Math.max(0, deadline - Date.now());

const isBusy = (e: unknown) => e instanceof SqliteThreadError && e.code === "SQLITE_BUSY";

/** A thread's failure as the stores see it: a lock not had in time answers 503, a failed check is CheckFailed. */
function failure(e: unknown): unknown {
  if (isBusy(e)) return busy();
  if (e instanceof SqliteThreadError && e.code === CHECK_FAILED) return new CheckFailed(e.message);
  return e;
}

/** The writer, one holder at a time; waiters give up at their deadline. */
function writerLock() {
  let held = false;
  const queue: Array<{ grant(): void; timer: NodeJS.Timeout }> = [];
  return {
    acquire(deadline: number): Promise<void> {
      if (!held) {
        held = true;
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const entry = {
          grant: () => {
            clearTimeout(entry.timer);
            resolve();
          },
          timer: setTimeout(
            () => {
              queue.splice(queue.indexOf(entry), 1);
              reject(busy());
            },
            Math.max(0, deadline - Date.now()),
          ),
        };
        queue.push(entry);
      });
    },
    release() {
      const nextUp = queue.shift();
      if (nextUp) nextUp.grant();
      else held = false;
    },
  };
}

export interface ThreadPool {
  readonly writer: SqliteThread;
  readonly lock: ReturnType<typeof writerLock>;
  readonly lockTimeoutMs: number;
  read(sql: string, params: readonly unknown[]): Promise<Answer>;
  /** Reads in order in one round trip to a reader (each sees what was committed when it runs). */
  readAll(statements: Statement[]): Promise<Answer[]>;
  close(): Promise<void>;
}

export function threadPool(o: SqliteThreadOptions): ThreadPool {
  const init = (role: ThreadInit["role"]): ThreadInit => ({
    filename: o.filename,
    driver: o.driver,
    role,
    busyTimeoutMs: o.lockTimeoutMs,
    synchronous: o.synchronous,
    vectors: o.vectors,
  });
  const writer = startThread(init("writer"));
  const readers: SqliteThread[] = [];
  /** The least busy reader, starting another while every one has work and the cap allows. */
  const reader = (): SqliteThread => {
    const idle = readers.find((r) => r.pending === 0);
    if (idle) return idle;
    if (readers.length < o.readers) {
      const r = startThread(init("reader"));
      readers.push(r);
      return r;
    }
    return readers.reduce((a, b) => (b.pending < a.pending ? b : a));
  };
  return {
    writer,
    lock: writerLock(),
    lockTimeoutMs: o.lockTimeoutMs,
    async read(sql, params) {
      if (o.readers === 0) return writer.run(sql, params);
      return reader().run(sql, params);
    },
    async readAll(statements) {
      if (o.readers === 0) return writer.runAll(statements);
      return reader().runAll(statements);
    },
    async close() {
      await Promise.all([writer.close(), ...readers.map((r) => r.close())]);
    },
  };
}

function result(a: Answer): QueryResult<any> {
  if (a.changes === undefined) return { rows: a.rows };
  return { rows: a.rows, numAffectedRows: BigInt(a.changes), insertId: a.lastId === undefined ? undefined : BigInt(a.lastId) };
}

/** A single query's result, or a batch's results each as a row. */
const resultOf = (q: CompiledQuery, answers: Answer[]): QueryResult<any> =>
  BATCH in q ? { rows: answers.map(result) } : result(answers[0]!);

/**
 * A connection as Kysely sees it: reads go to a reader, writes take the writer for the statement, a transaction holds
 * it. A transaction's BEGIN travels with its first statement (one round trip fewer per transaction); a transaction
 * that ran no statement sends nothing.
 */
class ThreadConnection implements DatabaseConnection {
  /** The deadline of the transaction holding the writer; undefined outside one. */
  deadline: number | undefined;
  /**
   * The held transaction: its BEGIN still to go with its first statement (`pending`), sent (`open`: COMMIT or ROLLBACK
   * must follow), sent with its COMMIT by a batch (`committed`: nothing more may run in it), or refused (`failed`:
   * every later statement of it fails the same way, so none runs outside it).
   */
  tx: "pending" | "open" | "committed" | { failed: unknown } = "pending";
  constructor(readonly pool: ThreadPool) {}

  async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    const { pool } = this;
    if (this.deadline !== undefined) return resultOf(q, await this.inTransaction(statementsOf(q), this.deadline, commitsOf(q)));
    if (BATCH in q ? !commitsOf(q) && (q as BatchQuery)[BATCH].every(isRead) : isRead(q)) {
      try {
        return BATCH in q ? resultOf(q, await pool.readAll(statementsOf(q))) : result(await pool.read(q.sql, q.parameters));
      } catch (e) {
        // raw SQL that looked like a read and writes after all
        if (!(e instanceof SqliteThreadError && e.code === "SQLITE_READONLY")) throw e;
      }
    }
    const deadline = Date.now() + pool.lockTimeoutMs;
    await pool.lock.acquire(deadline);
    try {
      return resultOf(q, await this.send(statementsOf(q), deadline));
    } finally {
      pool.lock.release();
    }
  }

  /**
   * Statements of the open transaction, its BEGIN IMMEDIATE first when not yet sent, its COMMIT last when `commits`
   * (a failed COMMIT leaves the transaction open, for the caller's rollback).
   */
  async inTransaction(statements: Statement[], deadline: number, commits = false): Promise<Answer[]> {
    const { tx } = this;
    if (typeof tx === "object") throw tx.failed;
    if (tx === "committed") throw new Error("a statement after its transaction's committing batch");
    const begin = tx === "pending";
    const sent = [...(begin ? [{ sql: "begin immediate", params: [] }] : []), ...statements, ...(commits ? [COMMIT] : [])];
    // before the answer: a statement sent meanwhile in the same transaction must not send the BEGIN again
    this.tx = "open";
    try {
      const answers = await this.pool.writer.runAll(sent, remaining(deadline));
      if (commits) this.tx = "committed";
      return answers.slice(begin ? 1 : 0, begin ? statements.length + 1 : statements.length);
    } catch (e) {
      const err = failure(e);
      // the BEGIN ran unless it is the statement that failed (a lock not had in time): only then is there nothing to end
      if (begin && !(e instanceof SqliteThreadError && e.index > 0)) this.tx = { failed: err };
      throw err;
    }
  }

  /** Statements on the writer in one round trip, busy-waiting (in its thread) at most until the deadline. */
  async send(statements: Statement[], deadline: number): Promise<Answer[]> {
    try {
      return await this.pool.writer.runAll(statements, remaining(deadline));
    } catch (e) {
      throw failure(e);
    }
  }

  async *streamQuery<R>(q: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const r = await this.executeQuery<R>(q);
    for (const row of r.rows) yield { rows: [row] };
  }
}

export class SqliteThreadDriver implements Driver {
  #pool: ThreadPool | undefined;
  #destroyed = false;
  constructor(private readonly options: SqliteThreadOptions) {}

  /** Starts the writer thread; answers what it loaded. */
  async start(): Promise<{ driver: SqliteDriverName; vectors: boolean }> {
    await prepareThreads();
    if (this.#destroyed) throw new Error("the SQLite database was closed while it opened");
    this.#pool ??= threadPool(this.options);
    try {
      return await this.#pool.writer.ready;
    } catch (e) {
      await this.#pool.close();
      throw e;
    }
  }
  async init(): Promise<void> {
    await this.start();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    return new ThreadConnection(this.#pool!);
  }
  /**
   * BEGIN IMMEDIATE takes the write lock up front, so a read-then-write transaction never fails on the upgrade; it is
   * sent with the transaction's first statement.
   */
  async beginTransaction(c: DatabaseConnection): Promise<void> {
    const conn = c as ThreadConnection;
    const deadline = Date.now() + conn.pool.lockTimeoutMs;
    await conn.pool.lock.acquire(deadline);
    conn.deadline = deadline;
    conn.tx = "pending";
  }
  async commitTransaction(c: DatabaseConnection): Promise<void> {
    await this.end(c as ThreadConnection, "commit");
  }
  async rollbackTransaction(c: DatabaseConnection): Promise<void> {
    await this.end(c as ThreadConnection, "rollback");
  }
  private async end(conn: ThreadConnection, verb: "commit" | "rollback") {
    if (conn.deadline === undefined) return;
    const open = conn.tx === "open";
    conn.tx = "pending";
    try {
      if (!open) return;
      await conn.pool.writer.run(verb, []);
    } catch (e) {
      // a failed commit leaves the transaction open: roll it back so the writer is clean for the next holder
      if (verb === "commit") await conn.pool.writer.run("rollback", []).catch(() => {});
      throw e;
    } finally {
      conn.deadline = undefined;
      conn.pool.lock.release();
    }
  }
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {
    this.#destroyed = true;
    await this.#pool?.close();
  }
}

/** SQLite's compiler, adapter and introspector with the thread driver. */
export class SqliteThreadDialect extends SqliteDialect {
  constructor(readonly driver: SqliteThreadDriver) {
    super({ database: () => Promise.reject(new Error("unused")) });
  }
  override createDriver(): Driver {
    return this.driver;
  }
  override createQueryCompiler(): QueryCompiler {
    return new SqliteLiteralLimitCompiler();
  }
}
