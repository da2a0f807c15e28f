// Builds the three services from the environment (docs/conventions.md#the-example-server) on one storage: embedded SQLite under
// DATA_DIR by default, PostgreSQL when DATABASE_URL is set.
import type { Clock, Logger, Service } from "@mountkit/core";
import { isPostgresUrl, openStorage, type Storage } from "@mountkit/sql";
import { entriesFromEnv } from "./services/entries.js";
import { memoryFromEnv } from "./services/memory.js";
import { supportFromEnv } from "./services/support.js";

export interface AppDeps {
  logger: Logger;
  clock?: Clock;
  /** The server's own base URL, known once it listens. */
  selfUrl: () => string;
  /** Stores, bus and limiter for the services; absent means in-memory ones (tests). */
  storage?: Storage;
}

export async function createServices(env: NodeJS.ProcessEnv, deps: AppDeps): Promise<Service[]> {
  const s = deps.storage;
  const entries = await entriesFromEnv(env, { ...deps, store: s?.entries });
  const memory = await memoryFromEnv(env, { ...deps, store: s?.memory });
  const support = await supportFromEnv(env, { ...deps, store: s?.support, bus: s?.bus, limiter: s?.limiter });
  return [entries, memory, support];
}

export interface App {
  services: Service[];
  storage: Storage;
  /** Disposes the services, then closes the storage. */
  close(): Promise<void>;
}

/** Opens the storage the environment names, migrates it, and builds the services on it. */
export async function createApp(env: NodeJS.ProcessEnv, deps: Omit<AppDeps, "storage">): Promise<App> {
  const url = env.DATABASE_URL?.trim() || undefined;
  if (url && !isPostgresUrl(url)) throw new Error("DATABASE_URL must be a postgres:// or postgresql:// URL (unset it for embedded SQLite)");
  const storage = await openStorage({ url, dataDir: env.DATA_DIR?.trim() || "./data", logger: deps.logger });
  deps.logger.info(`storage: ${storage.db.dialect} at ${storage.db.location}`);
  let services: Service[];
  try {
    services = await createServices(env, { ...deps, storage });
  } catch (e) {
    await storage.close();
    throw e;
  }
  return {
    services,
    storage,
    async close() {
      for (const s of services) await s.dispose();
      await storage.close();
    },
  };
}
