// Test databases: a fresh SQLite file in a temp dir, or a fresh database in the test PostgreSQL cluster
// (MOUNTKIT_TEST_PG_URL, started by test/global-setup.ts). `forEachDatabase` runs a suite on both and
// skips the PostgreSQL half with its reason when no cluster is available (a failure under CI=true).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Dialect, type MigrationSet, openDatabase, type SqlDatabase } from "@mountkit/sql";
import pg from "pg";
import { afterAll, beforeAll, describe } from "vitest";

export interface TestDatabase {
  dialect: Dialect;
  /** What a process needs in its environment to reach this database (DATABASE_URL or DATA_DIR). */
  env: Record<string, string>;
  open(options?: { migrations?: MigrationSet[]; vectorIndex?: "auto" | "off" }): Promise<SqlDatabase>;
  drop(): Promise<void>;
}

export function pgSkipReason(): string | null {
  if (process.env.MOUNTKIT_TEST_PG_URL) return null;
  const reason =
    process.env.MOUNTKIT_TEST_PG_SKIP ?? "MOUNTKIT_TEST_PG_URL is not set (is test/global-setup.ts in the vitest globalSetup?)";
  if (ci()) throw new Error(`CI=true requires PostgreSQL: ${reason}`);
  return reason;
}

const ci = () => process.env.CI === "true" || process.env.CI === "1";

/**
 * Why the pgvector suites cannot run here: no PostgreSQL cluster, or a server without the extension
 * (scripts/install-pgvector.sh installs it; CI runs it). Under CI=true that is an error instead.
 */
export async function pgvectorSkipReason(): Promise<string | null> {
  const noPg = pgSkipReason();
  if (noPg) return noPg;
  const client = new pg.Client({ connectionString: process.env.MOUNTKIT_TEST_PG_URL });
  await client.connect();
  try {
    const r = await client.query("select default_version from pg_available_extensions where name = 'vector'");
    if (r.rows.length) return null;
  } finally {
    await client.end();
  }
  const reason = "the test PostgreSQL server has no pgvector extension (bash scripts/install-pgvector.sh installs it)";
  if (ci()) throw new Error(`CI=true requires pgvector: ${reason}`);
  return reason;
}

let counter = 0;

export async function createTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  if (dialect === "sqlite") {
    const dataDir = mkdtempSync(join(tmpdir(), "mountkit-sqlite-"));
    return {
      dialect,
      env: { DATA_DIR: dataDir },
      open: (o) => openDatabase({ dataDir, migrations: o?.migrations, vectorIndex: o?.vectorIndex }),
      async drop() {
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const admin = process.env.MOUNTKIT_TEST_PG_URL;
  if (!admin) throw new Error("no test PostgreSQL cluster");
  const name = `mk_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const u = new URL(admin);
  u.pathname = `/${name}`;
  const url = u.toString();
  return {
    dialect,
    env: { DATABASE_URL: url },
    open: (o) => openDatabase({ url, migrations: o?.migrations, vectorIndex: o?.vectorIndex }),
    async drop() {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** Runs `suite` once per dialect; the PostgreSQL run is a titled skip when no cluster is available. */
export function forEachDatabase(name: string, suite: (dialect: Dialect) => void, dialects: readonly Dialect[] = ["sqlite", "postgres"]) {
  for (const dialect of dialects) {
    const reason = dialect === "postgres" ? pgSkipReason() : null;
    if (reason) {
      // Skipped only on a machine where no PostgreSQL cluster could be started (no initdb/pg_ctl on
      // PATH, or startup failed): the reason comes from test/global-setup.ts, is printed, and is in
      // the title. Under CI=true pgSkipReason() throws instead, so CI always runs this half.
      console.log(`[mountkit] skipping ${name} [postgres]: ${reason}`);
      describe.skip(`${name} [postgres] (skipped: ${reason})`, () => suite(dialect));
      continue;
    }
    describe(`${name} [${dialect}]`, () => suite(dialect));
  }
}

/**
 * Gives the enclosing suite one fresh database with `migrations` applied, opened before its tests and
 * dropped after them. Read `db` and `target` inside tests and hooks.
 */
export function useMigratedDatabase(
  dialect: Dialect,
  migrations: MigrationSet[],
): { readonly db: SqlDatabase; readonly target: TestDatabase } {
  let target: TestDatabase | undefined;
  let db: SqlDatabase | undefined;
  beforeAll(async () => {
    target = await createTestDatabase(dialect);
    db = await target.open({ migrations });
  });
  afterAll(async () => {
    await db?.close();
    await target?.drop();
  });
  return {
    get db() {
      if (!db) throw new Error("the test database is opened in beforeAll");
      return db;
    },
    get target() {
      if (!target) throw new Error("the test database is created in beforeAll");
      return target;
    },
  };
}
