// Full-text search at scale. Ranking BM25 costs one score per matching row, and an OR of common words
// matches a large share of a big brain (at 1M edges, "likes" alone matched 300k rows), so ranking every
// match cannot stay under recall's budget. Above RANK_BUDGET matches, the rows holding every query word
// that occurs in the brain are ranked first; when those give `limit` visible hits they are the answer,
// else the search falls back to ranking every match (exact, as below the budget). SQLite's search uses it;
// PostgreSQL's bounds its work its own way (memory-search-pg.ts).
import { type Kysely, type RawBuilder, sql } from "kysely";

/** Matching rows above which ranking all of them is replaced by ranking the rows that hold every word. */
export const RANK_BUDGET = 20_000;

/** How many rows `where` matches, counted up to `cap + 1` only (a streamed index scan, never a full count). */
export async function countUpTo(db: Kysely<any>, from: RawBuilder<unknown>, where: RawBuilder<unknown>, cap: number): Promise<number> {
  const r = await sql<{ n: number }>`select count(*) as n from (select 1 as one from ${from} where ${where} limit ${cap + 1}) c`.execute(
    db,
  );
  return Number(r.rows[0]?.n ?? 0);
}

/**
 * The words to require all of, or null to rank every match: null below the budget, with one word, or when
 * fewer than two of the words occur. `matches(words, any)` is the engine's match condition.
 */
export async function wordsToRequire(
  db: Kysely<any>,
  from: RawBuilder<unknown>,
  words: string[],
  matches: (words: string[], any: boolean) => RawBuilder<unknown>,
  budget: number,
): Promise<string[] | null> {
  if (words.length < 2) return null;
  if ((await countUpTo(db, from, matches(words, true), budget)) <= budget) return null;
  const present: string[] = [];
  for (const w of words) if ((await countUpTo(db, from, matches([w], true), 0)) > 0) present.push(w);
  return present.length >= 2 ? present : null;
}
