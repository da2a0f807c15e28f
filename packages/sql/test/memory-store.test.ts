// The memory service's exported store conformance suite on SQLite and PostgreSQL.
import { describeMemoryStore } from "@mountkit/memory/testing";
import { coreMigrations, memoryMigrations, type SqlDatabase, sqlMemoryStore } from "@mountkit/sql";
import { afterAll, beforeAll } from "vitest";
import { createTestDatabase, forEachDatabase, type TestDatabase } from "../../../test/sql-targets.js";

forEachDatabase("sqlMemoryStore", (dialect) => {
  let target: TestDatabase;
  let db: SqlDatabase;
  beforeAll(async () => {
    target = await createTestDatabase(dialect);
    db = await target.open({ migrations: [coreMigrations, memoryMigrations] });
  });
  afterAll(async () => {
    await db?.close();
    await target?.drop();
  });
  // one database for the whole suite: the suite's tests use their own brains, queues and keys
  describeMemoryStore(dialect, async () => ({ store: sqlMemoryStore(db) }));
});
