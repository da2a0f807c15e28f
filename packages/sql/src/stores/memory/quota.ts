// The memory service's QuotaHolds on SQL: used units in core's quota_counters (so sqlQuotaCounter reads
// the same counts), calls in flight as rows of memory_quota_holds. Each step runs in one transaction
// serialised on the counter row (PostgreSQL FOR UPDATE, SQLite's write lock taken by the first insert),
// so the decision is exact across every process on the database.
import type { QuotaHolds } from "@mountkit/memory";
import type { Kysely } from "kysely";
import type { SqlDatabase } from "../../db.js";

interface QuotaDb {
  quota_counters: { key: string; period: string; used: number };
  memory_quota_holds: { key: string; period: string; id: string; expires_at: number };
}

export function sqlQuotaHolds(database: SqlDatabase): QuotaHolds {
  const db = database.kysely as unknown as Kysely<QuotaDb>;
  const pg = database.dialect === "postgres";

  async function lockedUsed(trx: Kysely<QuotaDb>, key: string, period: string): Promise<number> {
    await trx
      .insertInto("quota_counters")
      .values({ key, period, used: 0 })
      .onConflict((oc) => oc.columns(["key", "period"]).doNothing())
      .execute();
    let q = trx.selectFrom("quota_counters").select("used").where("key", "=", key).where("period", "=", period);
    if (pg) q = q.forUpdate();
    return Number((await q.executeTakeFirstOrThrow()).used);
  }

  return {
    async hold({ key, period, limit, id, now, ttlMs }) {
      return db.transaction().execute(async (trx) => {
        const used = await lockedUsed(trx, key, period);
        if (used >= limit) return { state: "exhausted" as const, used };
        await trx
          .deleteFrom("memory_quota_holds")
          .where("key", "=", key)
          .where("period", "=", period)
          .where("expires_at", "<=", now)
          .execute();
        const live = await trx
          .selectFrom("memory_quota_holds")
          .select((eb) => eb.fn.countAll().as("n"))
          .where("key", "=", key)
          .where("period", "=", period)
          .executeTakeFirstOrThrow();
        if (used + Number(live.n) >= limit) return { state: "busy" as const, used };
        await trx
          .insertInto("memory_quota_holds")
          .values({ key, period, id, expires_at: now + ttlMs })
          .execute();
        return { state: "held" as const, used };
      });
    },
    async settle({ key, period, id, success, limit }) {
      return db.transaction().execute(async (trx) => {
        const used = await lockedUsed(trx, key, period);
        const gone = await trx
          .deleteFrom("memory_quota_holds")
          .where("key", "=", key)
          .where("period", "=", period)
          .where("id", "=", id)
          .executeTakeFirst();
        // a hold that lapsed (its call outlived the ttl) still counts its success while room is left
        if (!success || (Number(gone.numDeletedRows) === 0 && used >= limit)) return { used };
        await trx
          .updateTable("quota_counters")
          .set({ used: used + 1 })
          .where("key", "=", key)
          .where("period", "=", period)
          .execute();
        return { used: used + 1 };
      });
    },
  };
}
