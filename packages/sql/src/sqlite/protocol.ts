// The messages between the main thread and a SQLite connection thread (see thread-driver.ts and worker.ts).
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

export interface QueryMessage {
  id: number;
  sql: string;
  params: readonly unknown[];
  /** The writer's busy timeout for this statement (what is left of the caller's deadline). */
  busyMs?: number;
}

export interface QueryError {
  message: string;
  /** The driver's code (`SQLITE_CONSTRAINT_UNIQUE`, ...), `SQLITE_BUSY` for a lock not had in time, `SQLITE_READONLY`. */
  code?: string;
}

export type QueryReply = { id: number; rows: unknown[]; changes?: number; lastId?: number } | { id: number; error: QueryError };
