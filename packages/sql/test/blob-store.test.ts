// The BlobStore conformance suite on sqlBlobStore, SQLite and PostgreSQL (the same cases run on the in-memory and
// filesystem stores in packages/support/test/blob-stores.test.ts).
import { coreMigrations, sqlBlobStore, supportMigrations } from "@mountkit/sql";
import { describeBlobStore } from "@mountkit/support/testing";
import { forEachDatabase, useMigratedDatabase } from "../../../test/sql-targets.js";

forEachDatabase("sqlBlobStore", (dialect) => {
  const use = useMigratedDatabase(dialect, [coreMigrations, supportMigrations]);
  // one database for the whole suite: each case uses keys of its own
  describeBlobStore(dialect, async () => ({ blobs: sqlBlobStore(use.db) }));
});
