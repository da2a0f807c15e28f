// Planner statistics on PostgreSQL: the memory store's full-text and vector searches pick their plans from
// them, so a search refreshes a table's statistics when a bulk write has made them stale.
import { sql } from "kysely";
import type { Db } from "./rows.js";

/** When each table's statistics were last looked at, per database handle. */
const checked = new WeakMap<Db, Map<string, number>>();
/** How often a table's statistics are looked at. */
export const STATISTICS_CHECK_MS = 5_000;

/**
 * The plans here lean on the planner's statistics: frequent lexemes, and how many rows hold every word. After
 * a bulk import they are missing or stale until autovacuum's next analyze, and searches meanwhile pick slow
 * plans (p95 70 ms instead of 30 ms on a freshly loaded 100k-edge brain; a vector search read the brain's
 * every vector instead of its HNSW index). At most once every 5 s per table, a
 * search reads how much changed since the last analyze. Past a tenth of the table (autovacuum's own default)
 * and at least 1,000 rows, it starts an ANALYZE in the background and does not wait for it. ANALYZE blocks no
 * reads or writes. An error, such as a role that does not own the table, is ignored.
 */
export function refreshStatistics(root: Db, name: string): Promise<void> {
  let seen = checked.get(root);
  if (!seen) checked.set(root, (seen = new Map()));
  const now = Date.now();
  if ((seen.get(name) ?? -Infinity) > now - STATISTICS_CHECK_MS) return Promise.resolve();
  seen.set(name, now);
  return analyzeIfStale(root, name).then(
    () => {},
    () => {},
  );
}

/** ANALYZE `name` when more than a tenth of it (and at least 1,000 rows) changed since its last analyze; true when it did. */
export async function analyzeIfStale(db: Db, name: string): Promise<boolean> {
  const r = await sql<{ live: string; changed: string }>`
    select n_live_tup as live, n_mod_since_analyze as changed from pg_stat_user_tables where relid = to_regclass(${name})`.execute(db);
  const row = r.rows[0];
  if (!row || Number(row.changed) <= Math.max(1_000, Number(row.live) * 0.1)) return false;
  await sql`analyze ${sql.table(name)}`.execute(db);
  return true;
}
