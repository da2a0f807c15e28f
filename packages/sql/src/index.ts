// @mountkit/sql: one database for every mountkit service (embedded SQLite by default, PostgreSQL by URL),
// versioned migrations, and SQL implementations of the core and service store interfaces.

export { type Dialect, isPostgresUrl, type OpenDatabaseOptions, openDatabase, type SqlDatabase } from "./db.js";
export { type PgPool, preferredSqliteDriver, type SqliteDriverName } from "./drivers.js";
export { type EntriesStorage, openEntriesStorage } from "./entries.js";
export { type MemoryStorage, openMemoryStorage, openMemoryStore } from "./memory.js";
export { type AppliedMigration, exec, type Migration, type MigrationSet, migrate } from "./migrate.js";
export { coreMigrations } from "./migrations/core.js";
export { entriesMigrations } from "./migrations/entries.js";
export { memoryMigrations } from "./migrations/memory.js";
export { supportMigrations } from "./migrations/support.js";
export { allMigrations, type OpenStorageOptions, openStorage, type Storage } from "./storage.js";
export { sqlEntriesStore } from "./stores/entries/store.js";
export { insertJob, type SqlJobStoreOptions, sqlJobStore } from "./stores/kit/jobs.js";
export { sqlQuotaCounter, sqlRateLimiter } from "./stores/kit/limiter.js";
export { type PgPubSub, type PgPubSubOptions, pgPubSub } from "./stores/kit/pubsub.js";
export { sqlWebhookStore } from "./stores/kit/webhooks.js";
export { sqlQuotaHolds } from "./stores/memory/quota.js";
export { type SqlMemoryStoreOptions, sqlMemoryStore } from "./stores/memory/store.js";
export type { VectorCellOptions } from "./stores/memory/vectors-cells.js";
export { sqlAttachmentStore, sqlBlobStore } from "./stores/support/attachments.js";
export { sqlSupportStore } from "./stores/support/store.js";
export { openSupportStorage, type SupportStorage } from "./support.js";
