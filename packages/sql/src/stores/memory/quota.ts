// The memory service's QuotaHolds on SQL: used units in core's quota_counters (so sqlQuotaCounter reads
// the same counts), calls in flight as rows of memory_quota_holds. Each step is one transaction serialised
// on the counter row (PostgreSQL FOR UPDATE, SQLite's write lock taken by the first insert), so the decision
// is exact across every process on the database. Each step's decision is written in SQL, so its statements
// go together: on SQLite one round trip to the writer per step (BEGIN, statements and COMMIT), where it took
// five or six when the decision was read back between them.
import type { QuotaHolds } from "@mountkit/memory";
import { type Kysely, sql } from "kysely";
import { type BatchItem, executeBatch } from "../../batch.js";
import type { SqlDatabase } from "../../db.js";

interface QuotaDb {
  quota_counters: { key: string; period: string; used: number };
  memory_quota_holds: { key: string; period: string; id: string; expires_at: number };
}

export function sqlQuotaHolds(database: SqlDatabase): QuotaHolds {
  const db = database.kysely as unknown as Kysely<QuotaDb>;
  const pg = database.dialect === "postgres";

  /** The counter row, created at 0 if missing, then locked (PostgreSQL; SQLite's write lock is already held). */
  const lockCounter = (trx: Kysely<QuotaDb>, key: string, period: string): BatchItem[] => [
    trx
      .insertInto("quota_counters")
      .values({ key, period, used: 0 })
      .onConflict((oc) => oc.columns(["key", "period"]).doNothing()),
    ...(pg ? [trx.selectFrom("quota_counters").select("used").where("key", "=", key).where("period", "=", period).forUpdate()] : []),
  ];
  const usedOf = (trx: Kysely<QuotaDb>, key: string, period: string) =>
    trx.selectFrom("quota_counters").select("used").where("key", "=", key).where("period", "=", period);
  const usedIn = (rows: unknown[]) => Number((rows[0] as { used: unknown }).used);

  return {
    async hold({ key, period, limit, id, now, ttlMs }) {
      return db.transaction().execute(async (trx) => {
        const answers = await executeBatch(
          trx,
          pg,
          [
            ...lockCounter(trx, key, period),
            trx.deleteFrom("memory_quota_holds").where("key", "=", key).where("period", "=", period).where("expires_at", "<=", now),
            // held only while the units used and the live holds leave room
            sql`insert into memory_quota_holds (key, period, id, expires_at)
              select ${key}, ${period}, ${id}, ${now + ttlMs}
              where (select c.used from quota_counters c where c.key = ${key} and c.period = ${period})
                + (select count(*) from memory_quota_holds h where h.key = ${key} and h.period = ${period}) < ${limit}`,
            usedOf(trx, key, period),
          ],
          { commits: true },
        );
        const inserted = answers.at(-2)!;
        const used = usedIn(answers.at(-1)!.rows);
        if (Number(inserted.numAffectedRows ?? 0) > 0) return { state: "held" as const, used };
        return { state: used >= limit ? ("exhausted" as const) : ("busy" as const), used };
      });
    },
    async settle({ key, period, id, success, limit }) {
      return db.transaction().execute(async (trx) => {
        const answers = await executeBatch(
          trx,
          pg,
          [
            ...lockCounter(trx, key, period),
            // a hold that lapsed (its call outlived the ttl) still counts its success while room is left
            ...(success
              ? [
                  sql`update quota_counters set used = used + 1
                    where key = ${key} and period = ${period}
                      and (used < ${limit} or exists (
                        select 1 from memory_quota_holds h where h.key = ${key} and h.period = ${period} and h.id = ${id}))`,
                ]
              : []),
            trx.deleteFrom("memory_quota_holds").where("key", "=", key).where("period", "=", period).where("id", "=", id),
            usedOf(trx, key, period),
          ],
          { commits: true },
        );
        return { used: usedIn(answers.at(-1)!.rows) };
      });
    },
  };
}
