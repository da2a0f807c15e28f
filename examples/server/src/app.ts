// Builds the three services from the environment (docs/conventions.md#the-example-server) on one storage: embedded SQLite under
// DATA_DIR by default, PostgreSQL when DATABASE_URL is set; plus the server's own routes (front-door.ts), by mode.
import type { Clock, Logger, Service } from "@mountkit/core";
import { isPostgresUrl, openStorage, type Storage } from "@mountkit/sql";
import { attachmentsFromEnv } from "./services/attachments.js";
import { entriesFromEnv } from "./services/entries.js";
import { memoryFromEnv } from "./services/memory.js";
import { supportFromEnv } from "./services/support.js";
import { hostService } from "./front-door.js";
import { type DevCredentials, devEnvironment, type Mode, type ModeDeps, modeFromEnv } from "./mode.js";

export interface AppDeps {
  logger: Logger;
  clock?: Clock;
  /** The server's own base URL, known once it listens. */
  selfUrl: () => string;
  /** Stores, bus and limiter for the services; absent means in-memory ones (tests). */
  storage?: Storage;
}

export async function createServices(env: NodeJS.ProcessEnv, deps: AppDeps & ModeDeps): Promise<Service[]> {
  const s = deps.storage;
  const entries = await entriesFromEnv(env, { ...deps, store: s?.entries });
  const memory = await memoryFromEnv(env, { ...deps, store: s?.memory });
  const attachments = s ? await attachmentsFromEnv(env, { storage: s, logger: deps.logger }) : undefined;
  const support = await supportFromEnv(env, { ...deps, store: s?.support, bus: s?.bus, limiter: s?.limiter, attachments });
  return [entries, memory, support];
}

export interface App {
  /** The kit's services. */
  services: Service[];
  /** The server's own routes, mounted after the services: the front door in development, health and metrics. */
  host: Service;
  mode: Mode;
  /** What development mode generated (empty in production): for the console, once. */
  credentials: DevCredentials;
  storage: Storage;
  /** Disposes the services, then closes the storage. */
  close(): Promise<void>;
}

/** Opens the storage the environment names, migrates it, and builds the services on it. */
export async function createApp(
  env: NodeJS.ProcessEnv,
  deps: Omit<AppDeps, "storage"> & { prometheus?: () => Promise<string> },
): Promise<App> {
  const mode = modeFromEnv(env);
  const dev = devEnvironment(env, mode);
  const url = env.DATABASE_URL?.trim() || undefined;
  if (url && !isPostgresUrl(url)) throw new Error("DATABASE_URL must be a postgres:// or postgresql:// URL (unset it for embedded SQLite)");
  const storage = await openStorage({ url, dataDir: env.DATA_DIR?.trim() || "./data", logger: deps.logger });
  deps.logger.info(`storage: ${storage.db.dialect} at ${storage.db.location}`);
  let services: Service[];
  try {
    services = await createServices(dev.env, { ...deps, storage, mode, credentials: dev.credentials });
  } catch (e) {
    await storage.close();
    throw e;
  }
  const products = (env.SUPPORT_PRODUCTS ?? "demo")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const host = hostService({ mode, services, storage, credentials: dev.credentials, prometheus: deps.prometheus, products });
  return {
    services,
    host,
    mode,
    credentials: dev.credentials,
    storage,
    async close() {
      for (const s of services) await s.dispose();
      await host.dispose();
      await storage.close();
    },
  };
}
