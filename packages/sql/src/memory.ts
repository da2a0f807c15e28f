// `@mountkit/sql/memory`: the memory service's store alone, for hosts that install only that service
// (nothing here loads the entries or support packages).
import type { MemoryStore } from "@mountkit/memory";
import type { SqlDatabase } from "./db.js";
import { memoryMigrations } from "./migrations/memory.js";
import { type OpenStorageOptions, openMigrated, optionsFromEnv } from "./open.js";
import { sqlMemoryStore } from "./stores/memory/store.js";

export { memoryMigrations } from "./migrations/memory.js";
export type { OpenStorageOptions } from "./open.js";
export { type SqlMemoryStoreOptions, sqlMemoryStore } from "./stores/memory/store.js";

export interface MemoryStorage {
  db: SqlDatabase;
  memory: MemoryStore;
  /** Closes the database. Dispose the service first. */
  close(): Promise<void>;
}

/** Opens (and migrates) the database for the memory service: `createMemoryService({ store: s.memory })`. */
export async function openMemoryStorage(options: OpenStorageOptions = {}): Promise<MemoryStorage> {
  const db = await openMigrated(options, [memoryMigrations]);
  return { db, memory: sqlMemoryStore(db), close: () => db.close() };
}

/**
 * The hook `mountkit-memory --store-module @mountkit/sql/memory` calls: the store on `DATABASE_URL`
 * (PostgreSQL) or on the SQLite file under `DATA_DIR` (default `./data`).
 */
export async function openMemoryStore(env: Record<string, string | undefined> = process.env) {
  const storage = await openMemoryStorage(optionsFromEnv(env));
  return { store: storage.memory, close: storage.close };
}
