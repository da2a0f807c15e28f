// The memory service's exported store conformance suite on SQLite and PostgreSQL.
import { describeMemoryStore } from "@mountkit/memory/testing";
import { coreMigrations, memoryMigrations, sqlMemoryStore } from "@mountkit/sql";
import { forEachDatabase, useMigratedDatabase } from "../../../test/sql-targets.js";

forEachDatabase("sqlMemoryStore", (dialect) => {
  const use = useMigratedDatabase(dialect, [coreMigrations, memoryMigrations]);
  // one database for the whole suite: the suite's tests use their own brains, queues and keys
  describeMemoryStore(dialect, async () => ({ store: sqlMemoryStore(use.db) }));
});
