// Database drivers are optional peers, imported only when a database of their kind is opened: a host on
// PostgreSQL never loads a native SQLite addon, and one on SQLite never needs `pg` in its tree.
import { createRequire } from "node:module";
import type { SqliteDatabase, SqliteStatement } from "kysely";

/** `better-sqlite3` (a native addon the host installs) or Node's built-in `node:sqlite` (22.13+). */
export type SqliteDriverName = "better-sqlite3" | "node:sqlite";

/** The parts of a `pg.Pool` the kit uses, declared here so no published type depends on `pg`'s. */
export interface PgPool {
  readonly options: object;
  query(text: string, values?: unknown[]): Promise<unknown>;
  end(): Promise<void>;
}

/** A SQLite connection as Kysely's SqliteDialect drives it, plus the pragmas the kit sets on open. */
export interface SqliteConnection extends SqliteDatabase {
  readonly driver: SqliteDriverName;
  exec(sql: string): void;
  /** Loads a SQLite extension (a shared library); throws where the driver cannot load extensions. */
  loadExtension(path: string): void;
}

const require = createRequire(import.meta.url);
const [nodeMajor = 0] = process.versions.node.split(".").map(Number);

function installedMajor(pkg: string): number | null {
  try {
    const { version } = require(`${pkg}/package.json`) as { version: string };
    return Number(version.split(".")[0]);
  } catch {
    return null;
  }
}

/** The slice of `node:sqlite` the kit drives (the Node 20 type definitions do not declare the module). */
interface NodeSqliteStatement {
  columns(): unknown[];
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(...params: unknown[]): IterableIterator<unknown>;
}
interface NodeSqlite {
  DatabaseSync: new (
    filename: string,
    options?: { allowExtension?: boolean },
  ) => {
    prepare(sql: string): NodeSqliteStatement;
    exec(sql: string): void;
    close(): void;
    /** Node 22.13+/23.5+ with `allowExtension`; absent on older builds. */
    loadExtension?(path: string): void;
    enableLoadExtension?(allow: boolean): void;
  };
  StatementSync?: { prototype?: { columns?: unknown } };
}

let nodeSqliteWarned = false;

/** Loads `node:sqlite` without its one-time ExperimentalWarning on Node 22 (the kit chose it, not the host). */
async function loadNodeSqlite(): Promise<NodeSqlite | null> {
  const original = process.emitWarning;
  if (!nodeSqliteWarned) {
    process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
      const text = typeof warning === "string" ? warning : warning.message;
      if (/SQLite is an experimental feature/.test(text)) return;
      (original as (...a: unknown[]) => void).call(process, warning, ...rest);
    }) as typeof process.emitWarning;
  }
  try {
    // a computed specifier: bundlers and the Node 20 type definitions leave it alone
    const specifier = "node:sqlite";
    const mod = (await import(specifier)) as NodeSqlite;
    // statements must report whether they return rows (22.16+); older builds cannot drive Kysely
    return typeof mod.StatementSync?.prototype?.columns === "function" ? mod : null;
  } catch {
    return null;
  } finally {
    nodeSqliteWarned = true;
    process.emitWarning = original;
  }
}

/**
 * The driver `auto` picks: better-sqlite3 when installed and safe on this runtime, else `node:sqlite`.
 * better-sqlite3 before 13 aborts the process on Node 24.19+ (`Statement::~Statement` during GC), and
 * 13 needs Node 22+, so a host on 24 with 12 installed runs on `node:sqlite` instead of crashing.
 */
export function preferredSqliteDriver(): SqliteDriverName | null {
  const major = installedMajor("better-sqlite3");
  if (major !== null && (major >= 13 || nodeMajor < 24)) return "better-sqlite3";
  if (nodeMajor >= 22) return "node:sqlite";
  return null;
}

export async function openSqliteConnection(filename: string, choice: SqliteDriverName | "auto" = "auto"): Promise<SqliteConnection> {
  const driver = choice === "auto" ? preferredSqliteDriver() : choice;
  if (driver === "better-sqlite3") {
    let BetterSqlite3: typeof import("better-sqlite3");
    try {
      BetterSqlite3 = (await import("better-sqlite3")).default;
    } catch (e) {
      throw new Error(`SQLite storage needs the better-sqlite3 package: npm install better-sqlite3 (${(e as Error).message})`);
    }
    const raw = new BetterSqlite3(filename);
    return {
      driver,
      prepare: (sql) => raw.prepare(sql),
      close: () => raw.close(),
      exec: (sql) => void raw.exec(sql),
      loadExtension: (path) => void raw.loadExtension(path),
    };
  }
  const mod = await loadNodeSqlite();
  if (!mod) {
    throw new Error(
      driver === "node:sqlite"
        ? "node:sqlite is not available on this Node version (22.16+ needed): npm install better-sqlite3"
        : `SQLite storage needs better-sqlite3 (npm install better-sqlite3${nodeMajor >= 24 ? "@13" : ""}) or Node 22.16+ for node:sqlite`,
    );
  }
  // extension loading stays off until the kit itself loads one (sqlite-vec), then is switched off again
  const raw = new mod.DatabaseSync(filename, { allowExtension: true });
  return {
    driver: "node:sqlite",
    close: () => raw.close(),
    exec: (sql) => raw.exec(sql),
    loadExtension(path) {
      if (!raw.loadExtension || !raw.enableLoadExtension) throw new Error("this node:sqlite cannot load extensions");
      raw.enableLoadExtension(true);
      try {
        raw.loadExtension(path);
      } finally {
        raw.enableLoadExtension(false);
      }
    },
    prepare(sql): SqliteStatement {
      const stmt = raw.prepare(sql);
      // node:sqlite binds positional parameters as arguments, better-sqlite3 (Kysely's model) as an array
      return {
        reader: stmt.columns().length > 0,
        all: (p) => stmt.all(...p),
        run: (p) => stmt.run(...p),
        iterate: (p) => stmt.iterate(...p),
      };
    },
  };
}

export type PgModule = typeof import("pg")["default"];

export async function loadPg(): Promise<PgModule> {
  try {
    return (await import("pg")).default;
  } catch (e) {
    throw new Error(`PostgreSQL storage needs the pg package: npm install pg (${(e as Error).message})`);
  }
}

/**
 * Loads sqlite-vec (the `sqlite-vec` package ships its binary per platform) into `raw`; answers whether
 * it is usable. False where the package, the platform's binary or the driver's extension loading is
 * missing: the memory store then scores vectors by a scan (the fallback).
 */
export async function loadSqliteVec(raw: SqliteConnection): Promise<boolean> {
  try {
    const { getLoadablePath } = (await import("sqlite-vec")) as { getLoadablePath(): string };
    raw.loadExtension(getLoadablePath());
    raw.prepare("select vec_version()").all([]);
    return true;
  } catch {
    return false;
  }
}
