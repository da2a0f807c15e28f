// The SQL job store keeps core's group-key claim semantics on SQLite and PostgreSQL, with two stores on
// two connections claiming from the same table (as two processes do).
import { coreMigrations, type SqlDatabase, sqlJobStore } from "@mountkit/sql";
import { afterAll, beforeAll } from "vitest";
import { groupedClaimCases } from "../../../test/job-groups.js";
import { createTestDatabase, forEachDatabase, type TestDatabase } from "../../../test/sql-targets.js";

forEachDatabase("sql job store group keys", (dialect) => {
  let target: TestDatabase;
  let db: SqlDatabase;
  beforeAll(async () => {
    target = await createTestDatabase(dialect);
    db = await target.open({ migrations: [coreMigrations] });
  });
  afterAll(async () => {
    await db?.close();
    await target?.drop();
  });

  groupedClaimCases(async () => {
    const other = await target.open();
    return { stores: [sqlJobStore(db), sqlJobStore(other)], close: () => other.close() };
  });
});
