// `@mountkit/sql/entries`: the entries service's store alone, for hosts that install only that service.
import type { EntriesStore } from "@mountkit/entries";
import type { SqlDatabase } from "./db.js";
import { entriesMigrations } from "./migrations/entries.js";
import { type OpenStorageOptions, openMigrated } from "./open.js";
import { sqlEntriesStore } from "./stores/entries/store.js";

export { entriesMigrations } from "./migrations/entries.js";
export type { OpenStorageOptions } from "./open.js";
export { sqlEntriesStore } from "./stores/entries/store.js";

export interface EntriesStorage {
  db: SqlDatabase;
  entries: EntriesStore;
  /** Closes the database. Dispose the service first. */
  close(): Promise<void>;
}

/** `createEntriesService({ auth, store: s.entries })`. */
export async function openEntriesStorage(options: OpenStorageOptions = {}): Promise<EntriesStorage> {
  const db = await openMigrated(options, [entriesMigrations]);
  return { db, entries: sqlEntriesStore(db), close: () => db.close() };
}
