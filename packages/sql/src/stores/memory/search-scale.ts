// Full-text search at scale. Ranking BM25 costs one score per matching row (about 2 µs for a fact, more for
// a long episode on SQLite), and an OR of common words matches a large share of a big brain (at 1M edges,
// "likes" alone matched 300k rows, and the rows holding all of "gave talk wonka corp" were 25k), so ranking
// every match, or every row holding every word, cannot stay under recall's budget. Above RANK_BUDGET matches
// SQLite ranks bounded tiers of the newest rows (tieredSearch); PostgreSQL bounds its work its own way
// (search-pg.ts), with the same prior.
import { type Kysely, type RawBuilder, sql } from "kysely";
import { sqlCount } from "../../limits.js";

/** Matching rows above which ranking all of them is replaced by ranking bounded tiers (SQLite). */
export const RANK_BUDGET = 5_000;

/** Rows ranked per tier past the budget (SQLite): a few ms over facts. */
export const RANK_POOL = 1_000;

/** Tokens of text ranked per tier at most (SQLite), so that a tier of long rows (episodes) holds fewer of them. */
export const RANK_TOKENS = 50_000;

/** How many rows `where` matches, counted up to `cap + 1` only (a streamed index scan, never a full count). */
export async function countUpTo(db: Kysely<any>, from: RawBuilder<unknown>, where: RawBuilder<unknown>, cap: number): Promise<number> {
  const r = await sql<{
    n: number;
  }>`select count(*) as n from (select 1 as one from ${from} where ${where} limit ${sqlCount(cap + 1)}) c`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}

/** The best visible rows (at most `limit`, best first) of a match expression. */
export interface SearchTiers<R> {
  /** FTS5's own ranking of every match, the best `pool` of them filtered (null: every match). */
  ranked(expr: string, pool: number | null): Promise<R[]>;
  /** The newest `n` matches of `expr`, ranked by the BM25 of every query word (fts-rank.ts). */
  newest(expr: string, n: number): Promise<R[]>;
  /** Whether more than `n` rows match. */
  moreThan(expr: string, n: number): Promise<boolean>;
  /**
   * A search's first step in one round trip: whether more than `budget` rows match; when not, `ranked(expr, pool)` too
   * and whether more than `pool` rows match (over the budget, nothing is ranked).
   */
  opening(expr: string, budget: number, pool: number): Promise<{ over: true } | { over: false; ranked: R[]; overPool: boolean }>;
  phrase(word: string): string;
}

/**
 * SQLite's search. Up to `budget` matches, every match is ranked (exact). Past it, bounded tiers of the newest
 * rows (memory's prior: what was learned last), each ranked with the BM25 of every query word:
 * 1. the newest `pool` rows holding every word present in the brain;
 * 2. when they give fewer than `limit` visible hits, the newest `pool` rows holding any word, merged with the
 *    first tier by score (a row's score does not depend on the tier that found it);
 * 3. when still fewer, every match (exact).
 */
export async function tieredSearch<R extends Ranked>(
  words: string[],
  limit: number,
  budget: number,
  pool: number,
  io: SearchTiers<R>,
): Promise<R[]> {
  const any = words.map(io.phrase).join(" OR ");
  const best = bestPool(limit);
  // the filter left fewer than `limit` from a full pool: rank every match after the filter
  const exact = async () => {
    const r = await io.ranked(any, best);
    return r.length < limit && (await io.moreThan(any, best)) ? io.ranked(any, null) : r;
  };
  const open = await io.opening(any, budget, best);
  if (!open.over) return open.ranked.length < limit && open.overPool ? io.ranked(any, null) : open.ranked;
  const present: string[] = [];
  for (const w of words) if (await io.moreThan(io.phrase(w), 0)) present.push(w);
  const first = present.length > 1 ? await io.newest(present.map(io.phrase).join(" AND "), pool) : [];
  if (first.length >= limit) return first;
  const merged = new Map<string, R>();
  for (const r of [...first, ...(await io.newest(any, pool))]) merged.set(r.id, r);
  if (merged.size < limit) return exact();
  return [...merged.values()].sort(byRank).slice(0, limit);
}

/** The best rows read back and filtered bi-temporally for `limit` hits: most are visible at a recent point. */
export const bestPool = (limit: number) => limit * 4 + 50;

/** A row with its rank (lower is better) and id. */
type Ranked = Record<string, any>;

/** Best first: lower rank, then id (the order the SQL searches use). */
export const byRank = (a: Ranked, b: Ranked) => Number(a.rank) - Number(b.rank) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
