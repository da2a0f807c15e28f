// The entries service's exported store conformance suite on SQLite and PostgreSQL.
import { describeEntriesStore } from "@mountkit/entries/testing";
import { coreMigrations, entriesMigrations, sqlEntriesStore } from "@mountkit/sql";
import { forEachDatabase, useMigratedDatabase } from "../../../test/sql-targets.js";

forEachDatabase("sqlEntriesStore", (dialect) => {
  const use = useMigratedDatabase(dialect, [coreMigrations, entriesMigrations]);
  describeEntriesStore(dialect, async () => ({ store: sqlEntriesStore(use.db) }));
});
