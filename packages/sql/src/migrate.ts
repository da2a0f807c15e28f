// Versioned migrations, one set per owner (core, support, memory, entries), recorded in one table.
// Safe when several processes start at once: the whole run holds one lock (a PostgreSQL advisory
// lock, SQLite's write lock via BEGIN IMMEDIATE), so the second process sees the first one's work.
import { type Kysely, sql } from "kysely";
import type { Dialect, SqlDatabase } from "./db-types.js";

export interface Migration {
  /** Positive, strictly increasing within its set; never renumber a shipped migration. */
  version: number;
  name: string;
  /** Runs inside the migration transaction: throw to roll the whole run back. */
  up(db: Kysely<any>, dialect: Dialect): Promise<void>;
}

export interface MigrationSet {
  name: string;
  migrations: readonly Migration[];
}

export interface AppliedMigration {
  set: string;
  version: number;
  name: string;
}

/** Arbitrary constant naming mountkit's migration lock among the database's advisory locks. */
const ADVISORY_LOCK_KEY = 0x6d6b_6d67;

function check(set: MigrationSet) {
  let last = 0;
  for (const m of set.migrations) {
    if (!Number.isInteger(m.version) || m.version <= last)
      throw new Error(`migration set ${set.name}: versions must be increasing positive integers (${m.version} after ${last})`);
    last = m.version;
  }
}

/** Applies every migration not yet recorded, all in one transaction; answers what it applied. */
export async function migrate(db: SqlDatabase, sets: readonly MigrationSet[]): Promise<AppliedMigration[]> {
  for (const s of sets) check(s);
  return db.kysely.transaction().execute(async (trx) => {
    if (db.dialect === "postgres") await sql`select pg_advisory_xact_lock(${ADVISORY_LOCK_KEY})`.execute(trx);
    await sql`create table if not exists mountkit_migrations (
      set_name text not null,
      version integer not null,
      name text not null,
      applied_at bigint not null,
      primary key (set_name, version)
    )`.execute(trx);
    const applied: AppliedMigration[] = [];
    for (const set of sets) {
      const rows = await trx.selectFrom("mountkit_migrations").select("version").where("set_name", "=", set.name).execute();
      const done = new Set(rows.map((r) => Number(r.version)));
      for (const m of set.migrations) {
        if (done.has(m.version)) continue;
        await m.up(trx, db.dialect);
        await trx
          .insertInto("mountkit_migrations")
          .values({ set_name: set.name, version: m.version, name: m.name, applied_at: Date.now() })
          .execute();
        applied.push({ set: set.name, version: m.version, name: m.name });
      }
    }
    return applied;
  });
}

/** Runs raw DDL statements in order (one statement per string: neither driver accepts several at once). */
export async function exec(db: Kysely<any>, statements: readonly string[]): Promise<void> {
  for (const s of statements) await sql.raw(s).execute(db);
}
