// `@mountkit/sql/support`: the support service's store, rate limiter and live-event bus alone, for hosts
// that install only that service.
import type { PubSub, RateLimiter } from "@mountkit/core/jobs";
import type { SupportStore } from "@mountkit/support";
import type { SqlDatabase } from "./db.js";
import { supportMigrations } from "./migrations/support.js";
import { type OpenStorageOptions, openBus, openMigrated } from "./open.js";
import { sqlRateLimiter } from "./stores/kit/limiter.js";
import { sqlSupportStore } from "./stores/support/store.js";

export { supportMigrations } from "./migrations/support.js";
export type { OpenStorageOptions } from "./open.js";
export { sqlRateLimiter } from "./stores/kit/limiter.js";
export { sqlAttachmentStore, sqlBlobStore } from "./stores/support/attachments.js";
export { sqlSupportStore } from "./stores/support/store.js";

export interface SupportStorage {
  db: SqlDatabase;
  support: SupportStore;
  /** Rate limits shared by every process on this database. */
  limiter: RateLimiter;
  /** Live-event bus: spans processes on PostgreSQL, in process on SQLite. */
  bus: PubSub;
  /** Closes the bus, then the database. Dispose the service first. */
  close(): Promise<void>;
}

/** `createSupportService({ products, store: s.support, bus: s.bus, limiter: s.limiter })`. */
export async function openSupportStorage(options: OpenStorageOptions = {}): Promise<SupportStorage> {
  const db = await openMigrated(options, [supportMigrations]);
  const bus = await openBus(db, options.logger);
  return {
    db,
    support: sqlSupportStore(db),
    limiter: sqlRateLimiter(db),
    bus,
    async close() {
      await bus.close?.();
      await db.close();
    },
  };
}
