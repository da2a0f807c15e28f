// A SQLite connection thread: owns one connection and runs the statements the main thread sends, one message at a
// time (a message may carry several statements, run in order).
// Every synchronous wait (a statement's work, the busy timeout on another process's write lock) happens here, never
// on the host's event loop.
import { parentPort, workerData } from "node:worker_threads";
import { CHECK_FAILED, CheckFailed, meets } from "../check.js";
import { loadSqliteVec, openSqliteConnection, type SqliteConnection } from "../drivers.js";
import type { Answer, QueryError, QueryMessage, QueryReply, Statement, ThreadInit, ThreadReady } from "./protocol.js";

type Prepared = ReturnType<SqliteConnection["prepare"]>;

/** Prepared statements by SQL text: the stores send a few hundred distinct statements, over and over. */
const CACHE_SIZE = 256;

/** SQLite's extended constraint codes by number, named as better-sqlite3 names them. */
const CONSTRAINTS: Record<number, string> = {
  275: "SQLITE_CONSTRAINT_CHECK",
  787: "SQLITE_CONSTRAINT_FOREIGNKEY",
  1299: "SQLITE_CONSTRAINT_NOTNULL",
  1555: "SQLITE_CONSTRAINT_PRIMARYKEY",
  2067: "SQLITE_CONSTRAINT_UNIQUE",
};

/** The error as the main thread gets it: one `code` whichever driver threw (better-sqlite3's names). */
function errorOf(e: unknown): QueryError {
  if (e instanceof CheckFailed) return { message: e.reason, code: CHECK_FAILED };
  const err = e as { message?: unknown; code?: unknown; errcode?: unknown };
  const message = typeof err?.message === "string" ? err.message : String(e);
  let code = typeof err?.code === "string" && err.code.startsWith("SQLITE_") ? err.code : undefined;
  // node:sqlite reports ERR_SQLITE_ERROR with the extended result code in errcode (primary: its low byte)
  const extended = typeof err?.errcode === "number" ? err.errcode : undefined;
  const primary = extended === undefined ? undefined : extended & 0xff;
  if (!code && (primary === 5 || /database is locked/.test(message))) code = "SQLITE_BUSY";
  if (!code && (primary === 8 || /attempt to write a readonly database/.test(message))) code = "SQLITE_READONLY";
  if (!code && primary === 19) code = CONSTRAINTS[extended!] ?? "SQLITE_CONSTRAINT";
  return { message, ...(code ? { code } : {}) };
}

/** better-sqlite3 binds a blob only from a Buffer; a Buffer crosses threads as a plain Uint8Array. */
const param = (v: unknown) => (v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v);

async function main(init: ThreadInit) {
  const port = parentPort!;
  let db: SqliteConnection;
  let vectors = false;
  try {
    db = await openSqliteConnection(init.filename, init.driver);
    db.exec(`pragma busy_timeout = ${init.busyTimeoutMs}`);
    if (init.role === "writer") db.exec("pragma journal_mode = WAL");
    // every delete overwrites what it frees, so an erasure leaves nothing behind in pages freed earlier (docs/memory.md#erasure)
    if (init.role === "writer") db.exec("pragma secure_delete = on");
    db.exec(`pragma synchronous = ${init.synchronous}`);
    db.exec("pragma foreign_keys = ON");
    if (init.role === "reader") db.exec("pragma query_only = ON");
    vectors = init.vectors && (await loadSqliteVec(db));
  } catch (e) {
    port.postMessage({ type: "failed", message: errorOf(e).message } satisfies ThreadReady);
    return;
  }
  const cache = new Map<string, Prepared>();
  const prepare = (sql: string) => {
    let stmt = cache.get(sql);
    if (stmt) {
      cache.delete(sql);
    } else {
      stmt = db.prepare(sql);
      if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
    }
    cache.set(sql, stmt);
    return stmt;
  };
  const execute = ({ sql, params, expect }: Statement): Answer => {
    const stmt = prepare(sql);
    const values = params.map(param);
    if (stmt.reader) {
      const rows = stmt.all(values) as unknown[];
      if (expect && !meets(expect, rows.length)) throw new CheckFailed(expect.reason);
      return { rows };
    }
    if (expect) throw new Error("a checked statement must answer rows");
    const r = stmt.run(values);
    return { rows: [], changes: Number(r.changes), lastId: Number(r.lastInsertRowid) };
  };
  let busyMs = init.busyTimeoutMs;
  port.on("message", (m: QueryMessage | { type: "close" }) => {
    if ("type" in m) {
      cache.clear();
      db.close();
      port.close();
      return;
    }
    let reply: QueryReply;
    const answers: Answer[] = [];
    try {
      const wanted = m.busyMs === undefined ? init.busyTimeoutMs : Math.max(0, Math.floor(m.busyMs));
      if (wanted !== busyMs) db.exec(`pragma busy_timeout = ${(busyMs = wanted)}`);
      for (const s of m.statements) answers.push(execute(s));
      reply = { id: m.id, answers };
    } catch (e) {
      reply = { id: m.id, error: errorOf(e), index: answers.length };
    }
    port.postMessage(reply);
  });
  port.postMessage({ type: "ready", driver: db.driver, vectors } satisfies ThreadReady);
}

void main(workerData as ThreadInit);
