// Full-text search of the SQL memory store, ranked with BM25 on both engines: FTS5's bm25() over the
// brain's own FTS5 table on SQLite (fts.ts), the Okapi formula over the brain's own documents on
// PostgreSQL (search-pg.ts). On SQLite, past a budget of matches, bounded tiers of the newest rows
// are ranked (search-scale.ts).
import { type SearchHit, searchTerms } from "@mountkit/memory";
import { sql } from "kysely";
import { executeBatch } from "../../batch.js";
import { sqlCount } from "../../limits.js";
import { bm25, type FtsStatistics, ftsRanker, ftsTokens } from "./fts-rank.js";
import { type At, cols, type Db, type Kind, type MemorySearchContext, type Row, table, visible } from "./rows.js";
import { PG_SEARCH_DEFAULTS, searchPg } from "./search-pg.js";
import { bestPool, byRank, RANK_BUDGET, RANK_POOL, RANK_TOKENS, type SearchTiers, tieredSearch } from "./search-scale.js";

const ftsPhrase = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** SQLite's searches of one brain's FTS5 table, for tieredSearch. */
function sqliteTiers(db: Db, ftsName: string, kind: Kind, brainId: string, words: string[], limit: number, at: At): SearchTiers<Row> {
  const fts = sql.table(ftsName);
  const t = sql.table(table(kind));
  const ranker = ftsRanker(db, ftsName, ftsPhrase);
  const phrases = words.map(ftsTokens);
  // the totals and word counts are read once per search, whichever tiers it ranks
  let weights: Promise<{ stats: FtsStatistics; counts: number[] }> | undefined;
  /** The visible rows among `rowids`, best first by their rank. */
  const visibleOf = async (ranks: Map<number, number>) => {
    if (!ranks.size) return [];
    // CROSS JOIN keeps the listed rowids the outer loop: with `rowid in (...)` the planner preferred the brain's index
    const r = await sql<Row>`
      select t.rowid as rowid_, ${cols(kind)} from json_each(${JSON.stringify([...ranks.keys()])}) j
      cross join ${t} t
      where t.rowid = j.value and t.brain_id = ${brainId} and ${visible[kind](at)}`.execute(db);
    return r.rows
      .map(({ rowid_, ...row }) => ({ ...row, rank: ranks.get(Number(rowid_))! }) as Row)
      .sort(byRank)
      .slice(0, limit);
  };
  /** More than `n` rows match: answers a row. */
  const moreThan = (expr: string, n: number) =>
    sql`select rowid from ${fts} where ${fts} match ${expr} order by rowid desc limit 1 offset ${sqlCount(n)}`;
  /**
   * FTS5 ranks its own matches first (ORDER BY rank on the FTS table alone, no row lookups), then only the best `pool`
   * are read and filtered bi-temporally. `unlessOver`: nothing is ranked when more than that many rows match (a LIMIT
   * of 0 skips the ranking; a condition in WHERE would be tested only after FTS5 had ranked every match).
   */
  const ranked = (expr: string, pool: number | null, unlessOver?: number) => {
    const cap =
      pool === null
        ? sql``
        : unlessOver === undefined
          ? sql`limit ${sqlCount(pool)}`
          : sql`limit (case when exists (${moreThan(expr, unlessOver)}) then 0 else ${sqlCount(pool)} end)`;
    return sql<Row>`
      select ${cols(kind)}, f.rank as rank
      from (select rowid, rank from ${fts} where ${fts} match ${expr} order by rank ${cap}) f
      cross join ${t} t
      where t.rowid = f.rowid and t.brain_id = ${brainId} and ${visible[kind](at)}
      order by f.rank, t.id limit ${sqlCount(limit)}`;
  };
  return {
    async ranked(expr, pool) {
      return (await ranked(expr, pool).execute(db)).rows;
    },
    // one message to a reader: the budget's check, the guarded ranking, and the pool's check
    async opening(expr, budget, pool) {
      const [over, best, overPool] = await executeBatch(db, false, [
        moreThan(expr, budget),
        ranked(expr, pool, budget),
        moreThan(expr, pool),
      ]);
      if (over!.rows.length > 0) return { over: true };
      return { over: false, ranked: best!.rows as Row[], overPool: overPool!.rows.length > 0 };
    },
    // FTS5 walks a match newest first and stops after `n` rows, fewer for long rows (RANK_TOKENS); the rows' own
    // text gives each word's occurrences
    async newest(expr, n) {
      weights ??= ranker.statistics().then(async (stats) => ({ stats, counts: await ranker.documentCounts(words, stats) }));
      const { stats, counts } = await weights;
      const avgdl = stats.rows ? stats.tokens / stats.rows : 1;
      const rows = Math.max(bestPool(limit), Math.min(n, Math.floor(RANK_TOKENS / avgdl)));
      const r = await sql<{ rowid: number; terms: string }>`
        select rowid, terms from ${fts} where ${fts} match ${expr} order by rowid desc limit ${sqlCount(rows)}`.execute(db);
      const scored = r.rows.map((row) => [Number(row.rowid), bm25(row.terms, phrases, counts, stats)] as [number, number]);
      scored.sort((a, b) => a[1] - b[1]);
      return visibleOf(new Map(scored.slice(0, bestPool(limit))));
    },
    async moreThan(expr, n) {
      return (await moreThan(expr, n).execute(db)).rows.length > 0;
    },
    phrase: ftsPhrase,
  };
}

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
  if (!pg) {
    const name = await ftsByBrain.find(kind, brainId);
    if (!name) return [];
    const rows = await tieredSearch(
      terms,
      limit,
      ctx.rankBudget ?? RANK_BUDGET,
      RANK_POOL,
      sqliteTiers(db, name, kind, brainId, terms, limit, at),
    );
    // bm25 (the rank column) is lower-is-better
    return rows.map((row) => ({ item: map(row), score: -Number(row.rank) }));
  }
  // PostgreSQL: BM25 in SQL with bounded work (search-pg.ts)
  const budget = ctx.rankBudget ?? PG_SEARCH_DEFAULTS.budget;
  return searchPg(db, kind, brainId, terms.join(" "), limit, at, map, { ...PG_SEARCH_DEFAULTS, budget });
}
