// Everything a host needs to run the three services on one database: the connection (migrated), a store
// per service, the shared rate limiter, and the bus for live events (LISTEN/NOTIFY across processes on
// PostgreSQL; in process for embedded SQLite, whose deployments are one process).
import type { PubSub, RateLimiter } from "@mountkit/core/jobs";
import type { EntriesStore } from "@mountkit/entries";
import type { MemoryStore } from "@mountkit/memory";
import type { SupportStore } from "@mountkit/support";
import type { SqlDatabase } from "./db.js";
import type { MigrationSet } from "./migrate.js";
import { coreMigrations } from "./migrations/core.js";
import { entriesMigrations } from "./migrations/entries.js";
import { memoryMigrations } from "./migrations/memory.js";
import { supportMigrations } from "./migrations/support.js";
import { type OpenStorageOptions, openBus, openMigrated } from "./open.js";
import { sqlEntriesStore } from "./stores/entries/store.js";
import { sqlRateLimiter } from "./stores/kit/limiter.js";
import { sqlMemoryStore } from "./stores/memory/store.js";
import { sqlSupportStore } from "./stores/support/store.js";

export type { OpenStorageOptions } from "./open.js";

/** Every migration set, in the order a fresh database needs them. */
export const allMigrations: readonly MigrationSet[] = [coreMigrations, supportMigrations, memoryMigrations, entriesMigrations];

export interface Storage {
  db: SqlDatabase;
  entries: EntriesStore;
  memory: MemoryStore;
  support: SupportStore;
  /** Rate limits shared by every process on this database. */
  limiter: RateLimiter;
  /** Live-event bus: spans processes on PostgreSQL, in process on SQLite. */
  bus: PubSub;
  /** Closes the bus, then the database. Dispose the services first. */
  close(): Promise<void>;
}

/** All three services on one database; `@mountkit/sql/<service>` opens one service's part alone. */
export async function openStorage(options: OpenStorageOptions = {}): Promise<Storage> {
  const db = await openMigrated(options, allMigrations.slice(1));
  const bus = await openBus(db, options.logger);
  return {
    db,
    entries: sqlEntriesStore(db),
    memory: sqlMemoryStore(db),
    support: sqlSupportStore(db),
    limiter: sqlRateLimiter(db),
    bus,
    async close() {
      await bus.close?.();
      await db.close();
    },
  };
}
