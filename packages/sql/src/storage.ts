// Everything a host needs to run the three services on one database: the connection (migrated), a store
// per service, the shared rate limiter, and the bus for live events (LISTEN/NOTIFY across processes on
// PostgreSQL; in process for embedded SQLite, whose deployments are one process).
import { type Logger, memoryPubSub, type PubSub, type RateLimiter, silentLogger } from "@mountkit/core";
import type { EntriesStore } from "@mountkit/entries";
import type { MemoryStore } from "@mountkit/memory";
import type { SupportStore } from "@mountkit/support";
import { pgPubSub } from "./core/pubsub.js";
import { sqlRateLimiter } from "./core/limiter.js";
import { type OpenDatabaseOptions, openDatabase, type SqlDatabase } from "./db.js";
import type { MigrationSet } from "./migrate.js";
import { coreMigrations } from "./migrations/core.js";
import { entriesMigrations } from "./migrations/entries.js";
import { memoryMigrations } from "./migrations/memory.js";
import { supportMigrations } from "./migrations/support.js";
import { sqlEntriesStore } from "./stores/entries.js";
import { sqlMemoryStore } from "./stores/memory.js";
import { sqlSupportStore } from "./stores/support.js";

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

export interface OpenStorageOptions extends Omit<OpenDatabaseOptions, "migrations"> {
  logger?: Logger;
}

export async function openStorage(options: OpenStorageOptions = {}): Promise<Storage> {
  const logger = options.logger ?? silentLogger;
  const db = await openDatabase({ ...options, migrations: [...allMigrations] });
  let bus: PubSub;
  if (db.pool) {
    const pg = pgPubSub(db.pool, { logger });
    try {
      await pg.ready();
    } catch (e) {
      await db.close();
      throw e;
    }
    bus = pg;
  } else {
    bus = memoryPubSub();
  }
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
