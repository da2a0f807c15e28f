// The support service's exported store conformance suite on SQLite and PostgreSQL.
import { coreMigrations, sqlSupportStore, supportMigrations } from "@mountkit/sql";
import { describeSupportStore } from "@mountkit/support/testing";
import { forEachDatabase, useMigratedDatabase } from "../../../test/sql-targets.js";

forEachDatabase("sqlSupportStore", (dialect) => {
  const use = useMigratedDatabase(dialect, [coreMigrations, supportMigrations]);
  // one database for the whole suite: the suite's tests use their own ids and product slugs
  describeSupportStore(dialect, async () => ({ store: sqlSupportStore(use.db) }));
});
