// BM25 of FTS5 rows computed here, the way FTS5's bm25() computes it, for searches past the rank budget.
// FTS5's bm25() learns each phrase's document count by reading that phrase's whole doclist on every query:
// at 1M facts, "gave talk wonka corp" read 700k postings (~70 ms) to rank 1,000 rows. Here the row and token
// totals come from FTS5's own averages record (one small row) and each common word's document count from a
// cache, counted again once the table has grown or shrunk by a tenth, so ranking a bounded set of rows costs
// only those rows.
import { type Kysely, sql } from "kysely";

/** FTS5's bm25() defaults. */
const K1 = 1.2;
const B = 0.75;

/**
 * A text's tokens as the FTS5 `unicode61 remove_diacritics 2` tokenizer reads them: runs of letters, digits
 * and private-use characters, folded to lower case without diacritics.
 */
export function ftsTokens(text: string): string[] {
  return (
    text
      .normalize("NFD")
      .replace(/\p{M}+/gu, "")
      .toLowerCase()
      .match(/[\p{L}\p{N}\p{Co}]+/gu) ?? []
  );
}

/** SQLite's variable-length integer (big-endian groups of 7 bits, the ninth byte whole), as FTS5 writes it. */
function varint(bytes: Uint8Array, at: number): [value: number, next: number] {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const byte = bytes[at + i] ?? 0;
    v = v * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) return [v, at + i + 1];
  }
  return [v * 256 + (bytes[at + 8] ?? 0), at + 9];
}

/** FTS5's averages record (rowid 1 of the `_data` table): the row count, then the tokens of each column. */
export function decodeAverages(block: Uint8Array): { rows: number; tokens: number } {
  const [rows, next] = varint(block, 0);
  const [tokens] = varint(block, next);
  return { rows, tokens };
}

export interface FtsStatistics {
  rows: number;
  tokens: number;
}

/** How often `phrase` (its tokens in a row) occurs in `doc`. */
function occurrences(doc: string[], phrase: string[]): number {
  let n = 0;
  outer: for (let i = 0; i + phrase.length <= doc.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (doc[i + j] !== phrase[j]) continue outer;
    n++;
  }
  return n;
}

/** How often `needle` occurs in `haystack`, overlapping occurrences included. */
function count(haystack: string, needle: string): number {
  let n = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) n++;
  return n;
}

/**
 * The number of tokens of index text that is already the tokenizer's output (lower-case ASCII letters and digits,
 * words one space apart), or -1 for any other text.
 */
function plainLength(text: string): number {
  let spaces = 0;
  let previous = 32;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32) {
      if (previous === 32) return -1;
      spaces++;
    } else if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57))) return -1;
    previous = c;
  }
  return text.length && previous !== 32 ? spaces + 1 : -1;
}

/** A row's length in tokens and each phrase's occurrences in it. */
function frequencies(text: string, phrases: string[][]): { length: number; tf: number[] } {
  const length = plainLength(text);
  if (length >= 0) {
    // the index's own text, almost always: counted on the string, no token array (an episode has hundreds)
    const padded = ` ${text} `;
    return { length, tf: phrases.map((p) => (p.length ? count(padded, ` ${p.join(" ")} `) : 0)) };
  }
  const doc = ftsTokens(text);
  return { length: doc.length, tf: phrases.map((p) => (p.length ? occurrences(doc, p) : 0)) };
}

/** FTS5's bm25() of one row's text: negative, lower is better, so it sorts with FTS5's `rank`. */
export function bm25(text: string, phrases: string[][], documentCounts: number[], stats: FtsStatistics): number {
  const avgdl = stats.rows > 0 ? stats.tokens / stats.rows : 1;
  const { length, tf } = frequencies(text, phrases);
  let score = 0;
  tf.forEach((n, i) => {
    if (!n) return;
    // a cached count may be a little older than the totals: never more documents than rows
    const df = Math.min(Math.max(documentCounts[i] ?? 0, 0), stats.rows);
    let idf = Math.log((stats.rows - df + 0.5) / (df + 0.5));
    if (!(idf > 0)) idf = 1e-6;
    score += (idf * (n * (K1 + 1))) / (n + K1 * (1 - B + (B * length) / avgdl));
  });
  return -score;
}

/**
 * Counted document frequencies per database (two SQLite files may hold a brain of the same id), FTS table and word,
 * with the table's row count when counted.
 */
const countedByDb = new WeakMap<object, Map<string, { df: number; rows: number }>>();
const MAX_COUNTED = 50_000;
/** Counts below this are not cached. */
const CACHE_FROM = 1_000;

/** The statistics of a brain's FTS5 table and a cached document count per word (`phrase` quotes one for MATCH). */
export function ftsRanker(db: Kysely<any>, ftsName: string, phrase: (w: string) => string) {
  const fts = sql.table(ftsName);
  const cache = countedByDb.get(db) ?? new Map<string, { df: number; rows: number }>();
  countedByDb.set(db, cache);
  return {
    async statistics(): Promise<FtsStatistics> {
      const r = await sql<{ block: Uint8Array }>`select block from ${sql.table(`${ftsName}_data`)} where id = 1`.execute(db);
      const block = r.rows[0]?.block;
      return block ? decodeAverages(block) : { rows: 0, tokens: 0 };
    },
    async documentCounts(words: string[], stats: FtsStatistics): Promise<number[]> {
      const out: number[] = [];
      for (const w of words) {
        const key = `${ftsName}\u0000${w}`;
        const hit = cache.get(key);
        // a tenth more (or fewer) rows than when counted: count again
        if (hit && Math.abs(stats.rows - hit.rows) <= hit.rows / 10) {
          out.push(hit.df);
          continue;
        }
        const c = await sql<{ n: number }>`select count(*) as n from ${fts} where ${fts} match ${phrase(w)}`.execute(db);
        const df = Number(c.rows[0]?.n ?? 0);
        cache.delete(key);
        // a rare word is counted again each time (its posting list is short): a few new rows change its weight a lot
        if (df >= CACHE_FROM) cache.set(key, { df, rows: stats.rows });
        if (cache.size > MAX_COUNTED) cache.delete(cache.keys().next().value!);
        out.push(df);
      }
      return out;
    },
  };
}
