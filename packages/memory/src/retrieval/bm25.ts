// Okapi BM25 over an incrementally maintained inverted index; the in-memory store's full-text search.
// SQL stores use their engine's own ranking (FTS5 bm25(), tsvector ts_rank) behind the same interface.
import { terms as defaultTerms } from "../text/tokenize.js";
import { type Scored, topK } from "./topk.js";

export interface Bm25Options {
  k1?: number;
  b?: number;
  /** Text to index terms; default: folded, stop words removed, stemmed. */
  analyze?: (text: string) => string[];
}

export interface Bm25Index {
  add(id: string, text: string): void;
  remove(id: string): void;
  has(id: string): boolean;
  readonly size: number;
  /** Best `limit` documents for `query`; `accept` filters before the cut so filtered hits never starve the result. */
  search(query: string, options: { limit: number; accept?: (id: string) => boolean }): Array<Scored<string>>;
}

export function bm25Index(options: Bm25Options = {}): Bm25Index {
  const k1 = options.k1 ?? 1.2;
  const b = options.b ?? 0.75;
  const analyze = options.analyze ?? defaultTerms;
  const postings = new Map<string, Map<string, number>>();
  const lengths = new Map<string, number>();
  const docTerms = new Map<string, string[]>();
  let totalLength = 0;

  const remove = (id: string) => {
    const ts = docTerms.get(id);
    if (!ts) return;
    for (const t of new Set(ts)) {
      const p = postings.get(t);
      p?.delete(id);
      if (p && p.size === 0) postings.delete(t);
    }
    totalLength -= lengths.get(id) ?? 0;
    lengths.delete(id);
    docTerms.delete(id);
  };

  return {
    add(id, text) {
      remove(id);
      const ts = analyze(text);
      docTerms.set(id, ts);
      lengths.set(id, ts.length);
      totalLength += ts.length;
      for (const t of ts) {
        let p = postings.get(t);
        if (!p) postings.set(t, (p = new Map()));
        p.set(id, (p.get(id) ?? 0) + 1);
      }
    },
    remove,
    has: (id) => lengths.has(id),
    get size() {
      return lengths.size;
    },
    search(query, { limit, accept }) {
      const n = lengths.size;
      if (!n) return [];
      const avg = totalLength / n || 1;
      const scores = new Map<string, number>();
      for (const t of new Set(analyze(query))) {
        const p = postings.get(t);
        if (!p) continue;
        const idf = Math.log(1 + (n - p.size + 0.5) / (p.size + 0.5));
        for (const [id, tf] of p) {
          const len = lengths.get(id)!;
          const s = (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * len) / avg));
          scores.set(id, (scores.get(id) ?? 0) + s);
        }
      }
      function* candidates() {
        for (const [item, score] of scores) if (!accept || accept(item)) yield { item, score };
      }
      return topK(candidates(), limit);
    },
  };
}
