// The database handle's types, below both db.ts (which opens it and runs the migrations) and migrate.ts (which
// migrates a handle), so neither module imports the other for a type.
import type { Kysely } from "kysely";
import type { PgPool, SqliteDriverName } from "./drivers.js";

export type Dialect = "sqlite" | "postgres";

export interface SqlDatabase {
  /** Untyped at this level: each store narrows it to its own tables. */
  readonly kysely: Kysely<any>;
  readonly dialect: Dialect;
  /** The SQLite driver that was loaded; null on PostgreSQL. */
  readonly sqliteDriver: SqliteDriverName | null;
  /**
   * The vector index the memory store uses: sqlite-vec loaded on SQLite, the pgvector extension on
   * PostgreSQL; null: vectors are scanned.
   */
  readonly vectorIndex: "sqlite-vec" | "pgvector" | null;
  /** The PostgreSQL pool (for LISTEN/NOTIFY); null on SQLite. */
  readonly pool: PgPool | null;
  /** The SQLite file or the PostgreSQL URL without its password, for logs. */
  readonly location: string;
  close(): Promise<void>;
}
