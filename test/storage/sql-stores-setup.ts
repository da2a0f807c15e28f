// Vitest setup file that reruns the services' HTTP conformance suites on SQL: every in-memory store the
// services create by default (and the support rate limiter, and on PostgreSQL the event bus) becomes its
// SQL counterpart on a fresh database of its own. MOUNTKIT_TEST_STORE=sqlite|postgres picks the engine.
// The suites themselves are unchanged: they cannot tell which storage they run on.
import type { PubSub, RateLimiter } from "@mountkit/core/jobs";
import {
  allMigrations,
  pgPubSub,
  type SqlDatabase,
  sqlAttachmentStore,
  sqlBlobStore,
  sqlEntriesStore,
  sqlMemoryStore,
  sqlRateLimiter,
  sqlSupportStore,
} from "@mountkit/sql";
import pg from "pg";
import { afterAll, vi } from "vitest";
import { createTestDatabase, pgSkipReason, type TestDatabase } from "../sql-targets.js";

type Dialect = "sqlite" | "postgres";

const requested = process.env.MOUNTKIT_TEST_STORE as Dialect | undefined;
const skip = requested === "postgres" ? pgSkipReason() : null;
if (skip)
  console.log(`[mountkit] MOUNTKIT_TEST_STORE=postgres without PostgreSQL (${skip}): these HTTP suites run on the in-memory stores again`);
const dialect: Dialect | null = requested === "sqlite" || (requested === "postgres" && !skip) ? requested : null;

const opened: Array<{ target: TestDatabase; db?: SqlDatabase }> = [];
const buses: Array<{ close(): Promise<void> }> = [];
const pools: pg.Pool[] = [];

afterAll(async () => {
  await Promise.all(buses.splice(0).map((b) => b.close()));
  await Promise.all(pools.splice(0).map((p) => p.end()));
  for (const o of opened.splice(0)) {
    await o.db?.close();
    await o.target.drop();
  }
}, 60_000);

/** A fresh migrated database, opened on first use. */
function freshDatabase(): () => Promise<SqlDatabase> {
  let ready: Promise<SqlDatabase> | undefined;
  return () => {
    ready ??= (async () => {
      const target = await createTestDatabase(dialect!);
      const entry: { target: TestDatabase; db?: SqlDatabase } = { target };
      opened.push(entry);
      entry.db = await target.open({ migrations: [...allMigrations] });
      return entry.db;
    })();
    return ready;
  };
}

/**
 * An object with the same methods as `shape` (the in-memory implementation, so spreading and optional
 * methods behave alike) that forwards each call to the SQL implementation once its database is ready.
 * Nested objects (a memory store's `jobs` and `quota`) are forwarded the same way.
 */
function forward<T extends object>(shape: T, real: () => Promise<any>): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(shape)) {
    if (typeof v === "function") out[k] = async (...args: unknown[]) => (await real())[k](...args);
    else if (v && typeof v === "object") out[k] = forward(v as object, async () => (await real())[k]);
  }
  return out as T;
}

function sqlStore<T extends object>(shape: T, make: (db: SqlDatabase) => T): T {
  const db = freshDatabase();
  let store: Promise<T> | undefined;
  return forward(shape, () => (store ??= db().then(make)));
}

if (dialect) {
  vi.doMock("../../packages/support/src/store/in-memory.ts", async (importOriginal) => {
    const original = await importOriginal<typeof import("../../packages/support/src/store/in-memory.ts")>();
    return { ...original, inMemorySupportStore: () => sqlStore(original.inMemorySupportStore(), sqlSupportStore) };
  });
  vi.doMock("../../packages/support/src/attachments/in-memory.ts", async (importOriginal) => {
    const original = await importOriginal<typeof import("../../packages/support/src/attachments/in-memory.ts")>();
    return {
      ...original,
      inMemoryAttachmentStore: () => sqlStore(original.inMemoryAttachmentStore(), sqlAttachmentStore),
      inMemoryBlobStore: () => sqlStore(original.inMemoryBlobStore(), sqlBlobStore),
    };
  });
  vi.doMock("../../packages/memory/src/store/in-memory.ts", async (importOriginal) => {
    const original = await importOriginal<typeof import("../../packages/memory/src/store/in-memory.ts")>();
    return {
      ...original,
      inMemoryMemoryStore: (options?: Parameters<typeof original.inMemoryMemoryStore>[0]) => {
        const store = sqlStore(original.inMemoryMemoryStore(), sqlMemoryStore);
        // a caller's own job store or quota counter wins, as with the in-memory store
        return { ...store, ...(options?.jobs ? { jobs: options.jobs } : {}), ...(options?.quota ? { quota: options.quota } : {}) };
      },
    };
  });
  vi.doMock("../../packages/entries/src/store/in-memory.ts", async (importOriginal) => {
    const original = await importOriginal<typeof import("../../packages/entries/src/store/in-memory.ts")>();
    return { ...original, inMemoryEntriesStore: () => sqlStore(original.inMemoryEntriesStore(), sqlEntriesStore) };
  });
  vi.doMock("../../packages/core/src/limiter.ts", async (importOriginal) => {
    const original = await importOriginal<typeof import("../../packages/core/src/limiter.ts")>();
    return { ...original, inMemoryRateLimiter: (): RateLimiter => sqlStore(original.inMemoryRateLimiter(), sqlRateLimiter) };
  });
  if (dialect === "postgres") {
    let channels = 0;
    vi.doMock("../../packages/core/src/bus.ts", async (importOriginal) => {
      const original = await importOriginal<typeof import("../../packages/core/src/bus.ts")>();
      return {
        ...original,
        inMemoryPubSub: (): PubSub => {
          // every bus on its own channel of the cluster, as separate deployments would be
          const pool = new pg.Pool({ connectionString: process.env.MOUNTKIT_TEST_PG_URL, max: 2 });
          pools.push(pool);
          const bus = pgPubSub(pool, { channel: `mk_test_${process.pid}_${channels++}` });
          buses.push(bus);
          return bus;
        },
      };
    });
  }
}
