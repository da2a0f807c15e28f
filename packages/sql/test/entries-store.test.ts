// The entries service's exported store conformance suite on SQLite and PostgreSQL.
import { describeEntriesStore } from "@mountkit/entries/testing";
import { entriesMigrations, type SqlDatabase, sqlEntriesStore } from "@mountkit/sql";
import { afterAll, beforeAll } from "vitest";
import { createTestDatabase, forEachDatabase, type TestDatabase } from "../../../test/sql-targets.js";

forEachDatabase("sqlEntriesStore", (dialect) => {
  let target: TestDatabase;
  let db: SqlDatabase;
  beforeAll(async () => {
    target = await createTestDatabase(dialect);
    db = await target.open({ migrations: [entriesMigrations] });
  });
  afterAll(async () => {
    await db?.close();
    await target?.drop();
  });
  describeEntriesStore(dialect, async () => ({ store: sqlEntriesStore(db) }));
});
