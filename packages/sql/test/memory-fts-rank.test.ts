// BM25 computed outside FTS5 (stores/memory/fts-rank.ts) for SQLite searches past the rank budget: on a real FTS5 table in
// a SQLite file, with the tokenizer the store uses, it gives every row the score FTS5's own bm25() gives it, for plain
// index text and for text the tokenizer has to split and fold; the averages record decodes to the table's totals.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { FTS_TOKENIZER } from "../src/stores/memory/fts.js";
import { bm25, decodeAverages, ftsTokens } from "../src/stores/memory/fts-rank.js";

const dir = mkdtempSync(join(tmpdir(), "mountkit-fts-rank-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function table(texts: string[]) {
  const db = new Database(join(dir, `t${Math.random().toString(36).slice(2)}.sqlite`));
  db.exec(`create virtual table f using fts5(terms, tokenize = '${FTS_TOKENIZER}')`);
  const insert = db.prepare("insert into f (rowid, terms) values (?, ?)");
  for (const [i, t] of texts.entries()) insert.run(i + 1, t);
  return db;
}

const phrase = (w: string) => `"${w.replace(/"/g, '""')}"`;

function compare(texts: string[], words: string[]) {
  const db = table(texts);
  try {
    const stats = decodeAverages((db.prepare("select block from f_data where id = 1").get() as { block: Buffer }).block);
    const counts = words.map((w) => (db.prepare("select count(*) as n from f where f match ?").get(phrase(w)) as { n: number }).n);
    const fts = db.prepare("select rowid, terms, rank from f where f match ? order by rowid").all(words.map(phrase).join(" OR ")) as Array<{
      rowid: number;
      terms: string;
      rank: number;
    }>;
    expect(fts.length).toBeGreaterThan(0);
    for (const row of fts) expect(bm25(row.terms, words.map(ftsTokens), counts, stats)).toBeCloseTo(row.rank, 10);
    return { stats, rows: fts.length };
  } finally {
    db.close();
  }
}

it("scores plain index text as FTS5's bm25() does: repeated words, lengths, common and rare words", () => {
  const texts = Array.from({ length: 300 }, (_, i) =>
    [`ann${i % 7}`, "lik", i % 3 ? "jazz" : "jazz jazz", i % 11 ? "" : "rare", "filler ".repeat(i % 9).trim()].filter(Boolean).join(" "),
  );
  const { stats, rows } = compare(texts, ["jazz", "rare", "lik", "ann3", "absent"]);
  expect(rows).toBe(300);
  const tokens = texts.reduce((n, t) => n + t.split(" ").length, 0);
  expect(stats).toEqual({ rows: 300, tokens });
  // long rows: past 16,383 tokens the total takes a third varint byte
  const long = compare(
    Array.from({ length: 40 }, (_, i) => `w${i} ${"x ".repeat(500)}y`),
    ["x", "y", "w3"],
  );
  expect(long.stats).toEqual({ rows: 40, tokens: 40 * 502 });
});

it("scores text the tokenizer splits and folds (apostrophes, diacritics, capitals, punctuation) as FTS5 does", () => {
  const texts = [
    "O'Neil met Zoë in Kraków",
    "o neil likes CAFÉ au lait, café noir",
    "zoe zoe zoë ZOE",
    "naïve résumé of o'neil's cafe",
    "plain words only",
    "日本語 text and ١٢٣ digits",
  ];
  compare(texts, ["o'neil", "zoe", "cafe", "krakow", "neil", "text"]);
  expect(ftsTokens("O'Neil's Café—Zoë")).toEqual(["o", "neil", "s", "cafe", "zoe"]);
});

it("a cached count older than the totals never makes a score NaN: more documents than rows weigh as every row", () => {
  const stats = { rows: 5, tokens: 10 };
  const stale = bm25("alpha beta", [["alpha"]], [9], stats);
  expect(Number.isFinite(stale)).toBe(true);
  expect(stale).toBeCloseTo(bm25("alpha beta", [["alpha"]], [5], stats), 12);
  expect(stale).toBeLessThan(0);
});
