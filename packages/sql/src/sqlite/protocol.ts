// The messages between the main thread and a SQLite connection thread (see thread-driver.ts and worker.ts).
import type { Expectation } from "../check.js";
import type { SqliteDriverName } from "../drivers.js";

/** What a connection thread is started with (its `workerData`). */
export interface ThreadInit {
  filename: string;
  driver: SqliteDriverName | "auto";
  /** The writer sets up the file (WAL); readers refuse writes (`query_only`). */
  role: "writer" | "reader";
  busyTimeoutMs: number;
  synchronous: "NORMAL" | "FULL";
  /** Load sqlite-vec. */
  vectors: boolean;
}

/** The thread's first message. */
export type ThreadReady = { type: "ready"; driver: SqliteDriverName; vectors: boolean } | { type: "failed"; message: string };

/** One statement and its parameters. */
export interface Statement {
  sql: string;
  params: readonly unknown[];
  /** Checked on its answer's rows: a failed check stops the message there (code `MOUNTKIT_CHECK`, see ../check.ts). */
  expect?: Expectation;
}

/** Statements the thread runs in order, answered in one reply (the first failure stops the rest). */
export interface QueryMessage {
  id: number;
  statements: readonly Statement[];
  /** The writer's busy timeout for these statements (what is left of the caller's deadline). */
  busyMs?: number;
}

export interface QueryError {
  message: string;
  /** The driver's code (`SQLITE_CONSTRAINT_UNIQUE`, ...), `SQLITE_BUSY` for a lock not had in time, `SQLITE_READONLY`. */
  code?: string;
}

/** One statement's answer. */
export interface Answer {
  rows: unknown[];
  changes?: number;
  lastId?: number;
}

/** Every statement's answer, or the failure of statement `index` (the ones before it ran). */
export type QueryReply = { id: number; answers: Answer[] } | { id: number; error: QueryError; index: number };
