// The SQL job store keeps core's group-key claim semantics on SQLite and PostgreSQL, with two stores on
// two connections claiming from the same table (as two processes do).
import { coreMigrations, sqlJobStore } from "@mountkit/sql";
import { groupedClaimCases } from "../../../test/job-groups.js";
import { forEachDatabase, useMigratedDatabase } from "../../../test/sql-targets.js";

forEachDatabase("sql job store group keys", (dialect) => {
  const use = useMigratedDatabase(dialect, [coreMigrations]);

  groupedClaimCases(async () => {
    const other = await use.target.open();
    return { stores: [sqlJobStore(use.db), sqlJobStore(other)], close: () => other.close() };
  });
});
