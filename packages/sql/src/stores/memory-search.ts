// Full-text search of the SQL memory store, ranked with BM25 on both engines: FTS5's bm25() over the
// brain's own FTS5 table on SQLite (memory-fts.ts), the Okapi formula over the brain's own documents on
// PostgreSQL (memory-search-pg.ts). On SQLite, past a budget of matches, the rows holding every query word
// are ranked first (memory-search-scale.ts).
import { type SearchHit, searchTerms } from "@mountkit/memory";
import { sql } from "kysely";
import type { ftsTables } from "./memory-fts.js";
import { type At, cols, type Db, type Kind, type Row, table, visible } from "./memory-rows.js";
import { PG_SEARCH_DEFAULTS, searchPg } from "./memory-search-pg.js";
import { RANK_BUDGET, wordsToRequire } from "./memory-search-scale.js";

/** What a search reads besides its arguments. */
export interface MemorySearchContext {
  db: Db;
  /** The engine is PostgreSQL (else SQLite). */
  pg: boolean;
  /** SQLite: the brains' FTS5 tables. */
  ftsByBrain: ReturnType<typeof ftsTables>;
  /** Matching rows past which the rows holding every word are ranked first (default per engine). */
  rankBudget?: number;
}

const ftsPhrase = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** The best `limit` hits of `query` among the brain's `kind` rows visible at `at`, best first. */
export async function searchMemory<T>(
  ctx: MemorySearchContext,
  kind: Kind,
  brainId: string,
  query: string,
  limit: number,
  at: At,
  map: (r: Row) => T,
): Promise<Array<SearchHit<T>>> {
  const { db, pg, ftsByBrain } = ctx;
  const terms = [...new Set(searchTerms(query))];
  if (!terms.length || limit <= 0) return [];
  const t = sql.table(table(kind));
  if (!pg) {
    const name = await ftsByBrain.find(kind, brainId);
    if (!name) return [];
    const fts = sql.table(name);
    const match = terms.map(ftsPhrase).join(" OR ");
    // FTS5 ranks its own matches first (ORDER BY rank on the FTS table alone, no row lookups), then only
    // the best `pool` are read and filtered bi-temporally. Most hits are visible at a recent point; when
    // the filter leaves fewer than `limit` from a full pool, every match is ranked after the filter.
    const ranked = async (expr: string, pool: number | null) =>
      sql<Row>`
        select ${cols(kind)}, f.rank as rank
        from (select rowid, rank from ${fts} where ${fts} match ${expr} order by rank ${pool === null ? sql`` : sql`limit ${pool}`}) f
        cross join ${t} t
        where t.rowid = f.rowid and t.brain_id = ${brainId} and ${visible[kind](at)}
        order by f.rank, t.id limit ${limit}`.execute(db);
    const pool = limit * 4 + 50;
    // past RANK_BUDGET matches, the rows holding every word go first (memory-search-scale.ts)
    const all = await wordsToRequire(
      db,
      fts,
      terms,
      (ws, any) => sql`${fts} match ${ws.map(ftsPhrase).join(any ? " OR " : " AND ")}`,
      ctx.rankBudget ?? RANK_BUDGET,
    );
    let r = all ? await ranked(all.map(ftsPhrase).join(" AND "), pool) : null;
    if (!r || r.rows.length < limit) {
      r = await ranked(match, pool);
      if (r.rows.length < limit) {
        const matches = await sql<{ n: number }>`select count(*) as n from ${fts} where ${fts} match ${match}`.execute(db);
        if (Number(matches.rows[0]?.n) > pool) r = await ranked(match, null);
      }
    }
    // bm25 (the rank column) is lower-is-better
    return r.rows.map((row) => ({ item: map(row), score: -Number(row.rank) }));
  }
  // PostgreSQL: BM25 in SQL with bounded work (memory-search-pg.ts)
  const budget = ctx.rankBudget ?? PG_SEARCH_DEFAULTS.budget;
  return searchPg(db, kind, brainId, terms.join(" "), limit, at, map, { ...PG_SEARCH_DEFAULTS, budget });
}
