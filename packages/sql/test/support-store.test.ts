// The support service's exported store conformance suite on SQLite and PostgreSQL.
import { coreMigrations, type SqlDatabase, sqlSupportStore, supportMigrations } from "@mountkit/sql";
import { describeSupportStore } from "@mountkit/support/testing";
import { afterAll, beforeAll } from "vitest";
import { createTestDatabase, forEachDatabase, type TestDatabase } from "../../../test/sql-targets.js";

forEachDatabase("sqlSupportStore", (dialect) => {
  let target: TestDatabase;
  let db: SqlDatabase;
  beforeAll(async () => {
    target = await createTestDatabase(dialect);
    db = await target.open({ migrations: [coreMigrations, supportMigrations] });
  });
  afterAll(async () => {
    await db?.close();
    await target?.drop();
  });
  // one database for the whole suite: the suite's tests use their own ids and product slugs
  describeSupportStore(dialect, async () => ({ store: sqlSupportStore(db) }));
});
