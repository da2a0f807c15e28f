// Opening a database for some of the services: the core migrations plus each service's own, and the
// live-event bus for those that stream (LISTEN/NOTIFY across processes on PostgreSQL, in process on SQLite).
import { type Logger, silentLogger } from "@mountkit/core";
import { inMemoryPubSub, type PubSub } from "@mountkit/core/jobs";
import { type OpenDatabaseOptions, openDatabase, type SqlDatabase } from "./db.js";
import type { MigrationSet } from "./migrate.js";
import { coreMigrations } from "./migrations/core.js";
import { pgPubSub } from "./stores/kit/pubsub.js";

export interface OpenStorageOptions extends Omit<OpenDatabaseOptions, "migrations"> {
  logger?: Logger;
}

/** Opens and migrates the database with the core set first, then `sets` in order. */
export function openMigrated(options: OpenStorageOptions, sets: readonly MigrationSet[]): Promise<SqlDatabase> {
  const { logger: _logger, ...rest } = options;
  return openDatabase({ ...rest, migrations: [coreMigrations, ...sets] });
}

/** The bus for `db`; closes the database when the listening connection cannot be set up. */
export async function openBus(db: SqlDatabase, logger: Logger = silentLogger): Promise<PubSub> {
  if (!db.pool) return inMemoryPubSub();
  const bus = pgPubSub(db.pool, { logger });
  try {
    await bus.ready();
  } catch (e) {
    await db.close();
    throw e;
  }
  return bus;
}

/** Database options from the environment variables the example server and the CLIs share. */
export function optionsFromEnv(env: Record<string, string | undefined>): OpenStorageOptions {
  return { url: env.DATABASE_URL || undefined, dataDir: env.DATA_DIR || undefined };
}
