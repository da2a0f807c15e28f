// Full-text search of the SQL memory store on PostgreSQL: Okapi BM25 (k1 = 1.2, b = 0.75) over the brain's
// own documents, in SQL, with work bounded at any size.
// - Each query word's document frequency comes first: counted exactly when the word is rare (its GIN posting
//   list is short), taken from the planner's statistics when it is common (counting 500k postings would cost
//   more than the whole recall budget).
// - When the words' matches together stay within the budget, every match is ranked: exact BM25.
// - Past it, the candidates are the rows holding every word present plus the rows holding any rare word, at
//   most `pool` of the former, the newest first (memory's prior: what was learned last). The planner reads
//   them from the `*_newest` index and stops after `pool` when most rows match, or from the GIN index when
//   few do. A common word adds little to a score (low idf); a row holding only common words is ranked only
//   when these candidates leave fewer than `limit` visible hits.
// - Only a candidate's query words are read from its tsvector (setweight + ts_filter), not the whole
//   vector, so a long episode costs little more than a short fact.
// - The plans lean on the planner's statistics, so a search starts a background ANALYZE of a table that
//   changed by more than a tenth since its last one (checked at most once every 5 s per table).
import type { SearchHit } from "@mountkit/memory";
import { type RawBuilder, sql } from "kysely";
import { refreshStatistics } from "./pg-statistics.js";
import { type At, cols, type Db, type Kind, type Row, table, visible } from "./rows.js";
import { countUpTo } from "./search-scale.js";

/** Options of one search; the budgets have engine defaults. */
export interface PgSearchOptions {
  /** Matches up to which every match is ranked exactly. */
  budget: number;
  /** Rows holding every word that are ranked when past the budget, newest first: at least this, and 3 per hit asked for. */
  pool: number;
}

/** Ranking costs up to ~10 µs a candidate (a long episode's tsvector is read and filtered): 1,000 stay near 10 ms. */
export const PG_SEARCH_DEFAULTS: PgSearchOptions = { budget: 1_000, pool: 100 };

/** Newest first, in the order of each table's `*_newest` index, so a pool is read from the index and stops early. */
const NEWEST: Record<Kind, RawBuilder<unknown>> = {
  episodes: sql`t.created_at desc, t.id desc`,
  entities: sql`t.created_at desc, t.id desc`,
  edges: sql`t.t_ingested desc, t.id desc`,
};

const tsq = (lexeme: string) => sql`plainto_tsquery('simple', ${lexeme})`;

/** The planner's estimate of the rows of the brain holding `lexeme` (pg_statistic's frequent lexemes). */
async function estimate(db: Db, from: RawBuilder<unknown>, brainId: string, lexeme: string): Promise<number> {
  const r = await sql<{
    "QUERY PLAN": Array<{ Plan: { "Plan Rows": number } }>;
  }>`explain (format json) select 1 from ${from} where t.brain_id = ${brainId} and t.search @@ ${tsq(lexeme)}`.execute(db);
  const plan = r.rows[0]?.["QUERY PLAN"];
  const parsed = typeof plan === "string" ? JSON.parse(plan) : plan;
  return Number(parsed?.[0]?.Plan?.["Plan Rows"] ?? 0);
}

/** Rows of the brain matching `where`, counted up to `cap + 1` (search-scale.ts). */
const countInBrain = (db: Db, from: RawBuilder<unknown>, brainId: string, where: RawBuilder<unknown>, cap: number) =>
  countUpTo(db, from, sql`t.brain_id = ${brainId} and (${where})`, cap);

interface Frequency {
  lexeme: string;
  /** Documents holding it: exact when rare, estimated when common. */
  df: number;
  rare: boolean;
}

/** Document frequency of each query lexeme; absent lexemes are left out. */
async function frequencies(db: Db, from: RawBuilder<unknown>, brainId: string, lexemes: string[], budget: number): Promise<Frequency[]> {
  const out: Frequency[] = [];
  for (const lexeme of lexemes) {
    const guess = await estimate(db, from, brainId, lexeme);
    if (guess > budget) {
      out.push({ lexeme, df: guess, rare: false });
      continue;
    }
    const n = await countInBrain(db, from, brainId, sql`t.search @@ ${tsq(lexeme)}`, budget);
    if (n > budget) out.push({ lexeme, df: Math.max(guess, n), rare: false });
    else if (n > 0) out.push({ lexeme, df: n, rare: true });
  }
  return out;
}

/** The best `limit` hits of the query lexemes among the brain's `kind` rows visible at `at`, best first. */
export async function searchPg<T>(
  root: Db,
  kind: Kind,
  brainId: string,
  text: string,
  limit: number,
  at: At,
  map: (r: Row) => T,
  options: PgSearchOptions = PG_SEARCH_DEFAULTS,
): Promise<Array<SearchHit<T>>> {
  void refreshStatistics(root, table(kind));
  // The planner prefers a sequential scan when most rows match, but it then reads every row's tsvector
  // (a long episode's is TOASTed) where the GIN bitmap reads none: one transaction with sequential scans off
  return root.transaction().execute(async (db) => {
    await sql`set local enable_seqscan = off`.execute(db);
    return rankedHits(db, kind, brainId, text, limit, at, map, options);
  });
}

async function rankedHits<T>(
  db: Db,
  kind: Kind,
  brainId: string,
  text: string,
  limit: number,
  at: At,
  map: (r: Row) => T,
  options: PgSearchOptions,
): Promise<Array<SearchHit<T>>> {
  const t = sql.table(table(kind));
  const from = sql`${t} t`;
  const pool = Math.max(options.pool, limit * 3);
  const lex = await sql<{
    lexemes: string[];
  }>`select array(select distinct unnest(tsvector_to_array(to_tsvector('simple', ${text})))) as lexemes`.execute(db);
  const lexemes = lex.rows[0]?.lexemes ?? [];
  if (!lexemes.length) return [];
  const freq = await frequencies(db, from, brainId, lexemes, options.budget);
  if (!freq.length) return [];
  const total = freq.reduce((s, f) => s + f.df, 0);
  const words = freq.map((f) => f.lexeme);
  // one tsquery per condition: one GIN lookup, or one read of a row's tsvector when the planner filters rows
  const allOf = (ws: string[]) => sql`t.search @@ plainto_tsquery('simple', ${ws.join(" ")})`;
  const anyOf = (ws: string[]) => sql`t.search @@ replace(plainto_tsquery('simple', ${ws.join(" ")})::text, ' & ', ' | ')::tsquery`;
  // `whole`: the candidates are every match when fewer than this many, and their own counts are then the
  // exact document frequencies (null: always every match)
  const rank = (candidates: RawBuilder<unknown>, whole: number | null) => score(db, kind, brainId, candidates, freq, limit, at, whole);
  const ids = (where: RawBuilder<unknown>, most: number | null) =>
    sql`(select t.id from ${from} where t.brain_id = ${brainId} and (${where}) ${most === null ? sql`` : sql`order by ${NEWEST[kind]} limit ${most}`})`;

  // the words' matches together: their sum bounds it; when every word is rare the union is counted
  const within =
    total <= options.budget ||
    (freq.every((f) => f.rare) && (await countInBrain(db, from, brainId, anyOf(words), options.budget)) <= options.budget);
  let rows: Row[];
  if (within) rows = await rank(ids(anyOf(words), null), null);
  else if (freq.length === 1) rows = await rank(ids(anyOf(words), pool), pool);
  else {
    // past the budget: every word present, plus the rare words' rows
    const rare = freq.filter((f) => f.rare);
    const rareTotal = rare.reduce((s, f) => s + f.df, 0);
    const parts = [ids(allOf(words), pool)];
    if (rare.length && rareTotal <= options.budget) parts.push(ids(anyOf(rare.map((f) => f.lexeme)), null));
    rows = await rank(sql.join(parts, sql` union `), 0);
    // every candidate was hidden at `at` or too few: rank the newest rows holding any word
    if (rows.length < limit) rows = await rank(ids(anyOf(words), pool), pool);
  }
  return rows.map((row) => ({ item: map(row), score: Number(row.score) }));
}

/**
 * BM25 of the candidate ids (a subquery); the best `limit` visible at `at`. Document frequencies are the
 * candidates' own counts when they are every match (fewer than `whole`, or `whole` null), else `freq`'s.
 */
async function score(
  db: Db,
  kind: Kind,
  brainId: string,
  candidates: RawBuilder<unknown>,
  freq: Frequency[],
  limit: number,
  at: At,
  whole: number | null,
): Promise<Row[]> {
  const t = sql.table(table(kind));
  const lexemes = freq.map((f) => f.lexeme);
  const dfs = freq.map((f) => f.df);
  const r = await sql<Row>`
    with st as (
      select coalesce(max(docs), 0)::float8 as docs, greatest(coalesce(max(terms)::float8 / nullif(max(docs), 0), 1), 1)::float8 as avgdl
      from memory_text_stats where brain_id = ${brainId} and kind = ${kind}
    ),
    cand as materialized (
      select t.id, t.n_terms, (${visible[kind](at)}) as ok, ts_filter(setweight(t.search, 'A', ${lexemes}::text[]), '{a}') as hit
      from ${t} t
      where t.brain_id = ${brainId} and t.id in (select c0.id from (${candidates}) c0)
    ),
    x as materialized (
      select c.id, c.n_terms, c.ok, u.lexeme, coalesce(array_length(u.positions, 1), 1)::float8 as tf
      from cand c cross join lateral unnest(c.hit) u
    ),
    given as (select * from unnest(${lexemes}::text[], ${dfs}::float8[]) as g(lexeme, n)),
    own as (select lexeme, count(*)::float8 as n from x group by lexeme),
    d as (
      select g.lexeme, case when ${whole === null ? sql`true` : sql`(select count(*) from cand) < ${whole}`} then coalesce(o.n, 0) else g.n end as n
      from given g left join own o on o.lexeme = g.lexeme
    ),
    sc as (
      select x.id, sum(ln(1 + greatest(st.docs - d.n + 0.5, 0.5) / (d.n + 0.5)) * (x.tf * 2.2) / (x.tf + 1.2 * (0.25 + 0.75 * x.n_terms / st.avgdl))) as score
      from x
      cross join st
      join d on d.lexeme = x.lexeme
      where x.ok
      group by x.id
      order by score desc, x.id
      limit ${limit}
    )
    select ${cols(kind)}, sc.score from sc join ${t} t on t.brain_id = ${brainId} and t.id = sc.id
    order by sc.score desc, t.id`.execute(db);
  return r.rows;
}
