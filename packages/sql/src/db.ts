// Opens the one database a deployment shares: embedded SQLite (a file under DATA_DIR, the default) or
// PostgreSQL (selected by a postgres:// URL). Stores receive the handle and branch on `dialect` only
// where the two engines genuinely differ (locking, full-text search).
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { Kysely, PostgresDialect } from "kysely";
import type { SqlDatabase } from "./db-types.js";
import { loadPg, type PgModule, type SqliteDriverName } from "./drivers.js";
import { GuardedDialect } from "./guard.js";
import { type MigrationSet, migrate } from "./migrate.js";
import { SqliteThreadDialect, SqliteThreadDriver } from "./sqlite/thread-driver.js";
import { detectPgvector } from "./stores/memory/vectors-pg.js";

export type { Dialect, SqlDatabase } from "./db-types.js";

export interface OpenDatabaseOptions {
  /** `postgres://` or `postgresql://` selects PostgreSQL; absent means SQLite. */
  url?: string;
  /** Folder of the SQLite file `mountkit.sqlite` (created when missing). Default `./data`. */
  dataDir?: string;
  /** Exact SQLite file, overriding `dataDir` (`:memory:` works for single-process tests). */
  filename?: string;
  /**
   * SQLite `synchronous` level. NORMAL (the default) in WAL mode never corrupts the database and keeps
   * every committed transaction across a process crash (kill -9): the WAL write reaches the OS before
   * COMMIT returns. Only a power loss or OS crash can drop the last few commits; choose FULL to fsync
   * the WAL on every commit when that matters more than write throughput.
   */
  synchronous?: "NORMAL" | "FULL";
  /**
   * How long a SQLite write waits for the write lock (this process's other writes, then another process's lock)
   * before it fails with a 503 KitError carrying `Retry-After`. The wait happens in the connection threads, never
   * on the event loop. Default 10 s.
   */
  busyTimeoutMs?: number;
  /**
   * SQLite reader threads (each one connection), started as concurrent reads need them; reads answer from them
   * while a write, here or in another process, holds the lock. Default 2; `:memory:` always uses the writer.
   */
  readers?: number;
  /**
   * SQLite driver, an optional peer the host installs. `auto` (the default) takes better-sqlite3 when it
   * is installed and safe on this Node (13+, or 12 below Node 24, where 12 aborts the process), else
   * Node's built-in `node:sqlite` (22.16+).
   */
  sqliteDriver?: SqliteDriverName | "auto";
  /**
   * Vector index for the memory store's embeddings. `auto` (the default) loads sqlite-vec on SQLite when
   * the package and the driver allow it; on PostgreSQL it uses the pgvector extension (0.5+; HNSW indexes
   * from 0.8) when the database has it, or creates it on the first vector when the server offers it and
   * the role may (`create extension`).
   * `off` keeps the portable scan (JSON vectors scored in process).
   */
  vectorIndex?: "auto" | "off";
  /** PostgreSQL pool size. Default 10. */
  maxConnections?: number;
  /** Migration sets to apply on open (in order). Default: none; `openStorage` passes all of them. */
  migrations?: MigrationSet[];
}

/** BIGINT (int8) and NUMERIC come back as JS numbers: every stored time is epoch ms, far below 2^53. */
function pgTypes(pg: PgModule) {
  return {
    getTypeParser(oid: number, format?: "text" | "binary") {
      if (oid === 20 || oid === 1700) return (v: string) => Number(v);
      return (pg.types.getTypeParser as (o: number, f?: string) => (v: string) => unknown)(oid, format);
    },
  };
}

export function isPostgresUrl(url: string | undefined): url is string {
  return !!url && /^postgres(ql)?:\/\//i.test(url);
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "postgres://…";
  }
}

export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<SqlDatabase> {
  const handle = isPostgresUrl(options.url) ? await openPostgres(options.url, options) : await openSqlite(options);
  if (options.migrations?.length) {
    try {
      await migrate(handle, options.migrations);
    } catch (e) {
      await handle.close();
      throw e;
    }
  }
  return handle;
}

async function openSqlite(options: OpenDatabaseOptions): Promise<SqlDatabase> {
  let filename = options.filename;
  if (!filename) {
    const dir = resolve(options.dataDir ?? "./data");
    mkdirSync(dir, { recursive: true });
    filename = join(dir, "mountkit.sqlite");
  }
  const driver = new SqliteThreadDriver({
    filename,
    driver: options.sqliteDriver ?? "auto",
    synchronous: options.synchronous === "FULL" ? "FULL" : "NORMAL",
    lockTimeoutMs: Math.max(0, Math.floor(options.busyTimeoutMs ?? 10_000)),
    // an in-memory database is one connection: its readers could not see it
    readers: filename === ":memory:" || filename === "" ? 0 : Math.max(0, Math.floor(options.readers ?? 2)),
    vectors: options.vectorIndex !== "off",
  });
  const opened = await driver.start();
  const vectorIndex = opened.vectors ? "sqlite-vec" : null;
  const kysely = new Kysely<any>({ dialect: new GuardedDialect(new SqliteThreadDialect(driver)) });
  let closed = false;
  return {
    kysely,
    dialect: "sqlite",
    sqliteDriver: opened.driver,
    vectorIndex,
    pool: null,
    location: filename,
    async close() {
      if (closed) return;
      closed = true;
      await kysely.destroy();
    },
  };
}

async function openPostgres(url: string, options: OpenDatabaseOptions): Promise<SqlDatabase> {
  const pg = await loadPg();
  const pool = new pg.Pool({ connectionString: url, max: options.maxConnections ?? 10, types: pgTypes(pg) });
  // a client losing its server must not crash the process: an idle one (the pool's "error"), and one checked out
  // between two statements of a transaction (the client's own "error", which nothing else listens to); the
  // statement that follows fails instead, and the pool replaces the client
  pool.on("error", () => {});
  pool.on("connect", (client) => {
    client.on("error", () => {});
  });
  const kysely = new Kysely<any>({ dialect: new GuardedDialect(new PostgresDialect({ pool })) });
  const vectorIndex = options.vectorIndex !== "off" && (await detectPgvector(kysely)) ? "pgvector" : null;
  let closed = false;
  return {
    kysely,
    dialect: "postgres",
    sqliteDriver: null,
    vectorIndex,
    pool,
    location: redact(url),
    async close() {
      if (closed) return;
      closed = true;
      await kysely.destroy();
    },
  };
}
