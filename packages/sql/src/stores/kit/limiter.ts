// Shared limits on the database so every process sees the same counts. The rate limiter keeps the
// exact sliding log (core's `slidingLogDecision`) in one row per key, read and rewritten under a row lock
// (PostgreSQL FOR UPDATE, SQLite's write lock), and `peek` reads it without either; the quota is one conditional upsert, atomic by itself.
import { type QuotaCounter, type RateLimiter, slidingLogDecision } from "@mountkit/core/jobs";
import type { Kysely } from "kysely";
import type { SqlDatabase } from "../../db.js";

interface LimiterDb {
  rate_limit_logs: { key: string; log: string; expires_at: number };
  quota_counters: { key: string; period: string; used: number };
}

/** Rows whose log has fully left its window are deleted every this many hits. */
const SWEEP_EVERY = 1000;

export function sqlRateLimiter(database: SqlDatabase): RateLimiter {
  const db = database.kysely as Kysely<LimiterDb>;
  const pg = database.dialect === "postgres";
  let hits = 0;
  return {
    async hit(key, options) {
      const decision = await db.transaction().execute(async (trx) => {
        await trx
          .insertInto("rate_limit_logs")
          .values({ key, log: "[]", expires_at: 0 })
          .onConflict((oc) => oc.column("key").doNothing())
          .execute();
        let read = trx.selectFrom("rate_limit_logs").select("log").where("key", "=", key);
        if (pg) read = read.forUpdate();
        const row = await read.executeTakeFirstOrThrow();
        const d = slidingLogDecision(JSON.parse(row.log) as number[], options);
        const last = d.log.length ? d.log[d.log.length - 1]! : options.now;
        await trx
          .updateTable("rate_limit_logs")
          .set({ log: JSON.stringify(d.log), expires_at: last + options.windowMs })
          .where("key", "=", key)
          .execute();
        return d;
      });
      if (++hits % SWEEP_EVERY === 0) await db.deleteFrom("rate_limit_logs").where("expires_at", "<", options.now).execute();
      const { log: _, ...result } = decision;
      return result;
    },
    async peek(key, options) {
      // a plain read: no row is created and no lock taken, so a peek never waits on a writer's lock
      const row = await db.selectFrom("rate_limit_logs").select("log").where("key", "=", key).executeTakeFirst();
      const { log: _, ...result } = slidingLogDecision(row ? (JSON.parse(row.log) as number[]) : [], options, false);
      return result;
    },
  };
}

export function sqlQuotaCounter(database: SqlDatabase): QuotaCounter {
  const db = database.kysely as Kysely<LimiterDb>;
  async function used(key: string, period: string): Promise<number> {
    const row = await db.selectFrom("quota_counters").select("used").where("key", "=", key).where("period", "=", period).executeTakeFirst();
    return row ? Number(row.used) : 0;
  }
  return {
    async consume(key, period, limit) {
      if (limit <= 0) return { allowed: false, used: await used(key, period) };
      // the increment happens only while under the limit: concurrent callers can never overshoot it
      const row = await db
        .insertInto("quota_counters")
        .values({ key, period, used: 1 })
        .onConflict((oc) =>
          oc
            .columns(["key", "period"])
            .doUpdateSet((eb) => ({ used: eb("quota_counters.used", "+", 1) }))
            .where("quota_counters.used", "<", limit),
        )
        .returning("used")
        .executeTakeFirst();
      if (row) return { allowed: true, used: Number(row.used) };
      return { allowed: false, used: await used(key, period) };
    },
    async refund(key, period) {
      await db
        .updateTable("quota_counters")
        .set((eb) => ({ used: eb("used", "-", 1) }))
        .where("key", "=", key)
        .where("period", "=", period)
        .where("used", ">", 0)
        .execute();
    },
    used,
  };
}
