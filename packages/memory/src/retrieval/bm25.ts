// Okapi BM25 over an incrementally maintained inverted index; the in-memory store's full-text search.
// Documents live in integer slots with parallel arrays so scoring 100k postings stays in the low
// milliseconds. SQL stores use their engine's ranking (FTS5 bm25(), tsvector ts_rank) instead.
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

interface Postings {
  docs: number[];
  tfs: number[];
}

export function bm25Index(options: Bm25Options = {}): Bm25Index {
  const k1 = options.k1 ?? 1.2;
  const b = options.b ?? 0.75;
  const analyze = options.analyze ?? defaultTerms;
  const postings = new Map<string, Postings>();
  const slotOf = new Map<string, number>();
  const idOf: Array<string | undefined> = [];
  const termsOf: Array<Map<string, number> | undefined> = [];
  const free: number[] = [];
  let lengths = new Float64Array(1024);
  let scores = new Float64Array(1024);
  let totalLength = 0;

  const grow = (slot: number) => {
    if (slot < lengths.length) return;
    const size = Math.max(slot + 1, lengths.length * 2);
    const l = new Float64Array(size);
    l.set(lengths);
    lengths = l;
    scores = new Float64Array(size);
  };

  const remove = (id: string) => {
    const slot = slotOf.get(id);
    if (slot === undefined) return;
    for (const t of termsOf[slot]!.keys()) {
      const p = postings.get(t)!;
      const i = p.docs.indexOf(slot);
      const last = p.docs.length - 1;
      p.docs[i] = p.docs[last]!;
      p.tfs[i] = p.tfs[last]!;
      p.docs.pop();
      p.tfs.pop();
      if (!p.docs.length) postings.delete(t);
    }
    totalLength -= lengths[slot]!;
    lengths[slot] = 0;
    termsOf[slot] = undefined;
    idOf[slot] = undefined;
    slotOf.delete(id);
    free.push(slot);
  };

  return {
    add(id, text) {
      remove(id);
      const ts = analyze(text);
      const tf = new Map<string, number>();
      for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1);
      const slot = free.pop() ?? idOf.length;
      grow(slot);
      slotOf.set(id, slot);
      idOf[slot] = id;
      termsOf[slot] = tf;
      lengths[slot] = ts.length;
      totalLength += ts.length;
      for (const [t, n] of tf) {
        let p = postings.get(t);
        if (!p) postings.set(t, (p = { docs: [], tfs: [] }));
        p.docs.push(slot);
        p.tfs.push(n);
      }
    },
    remove,
    has: (id) => slotOf.has(id),
    get size() {
      return slotOf.size;
    },
    search(query, { limit, accept }) {
      const n = slotOf.size;
      if (!n || limit <= 0) return [];
      const avg = totalLength / n || 1;
      const touched: number[] = [];
      for (const t of new Set(analyze(query))) {
        const p = postings.get(t);
        if (!p) continue;
        const idf = Math.log(1 + (n - p.docs.length + 0.5) / (p.docs.length + 0.5));
        const { docs, tfs } = p;
        for (let i = 0; i < docs.length; i++) {
          const d = docs[i]!;
          const f = tfs[i]!;
          if (scores[d] === 0) touched.push(d);
          scores[d]! += (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * lengths[d]!) / avg));
        }
      }
      const pick = (k: number, filter: boolean) => {
        function* candidates() {
          for (const d of touched) if (!filter || accept!(idOf[d]!)) yield { item: d, score: scores[d]! };
        }
        return topK(candidates(), k);
      };
      let best: Array<Scored<number>>;
      if (!accept) best = pick(limit, false);
      else {
        // filter the best few first; only when too many of them are rejected, filter everything
        const wide = Math.min(touched.length, limit * 4);
        best = pick(wide, false).filter((h) => accept(idOf[h.item]!));
        if (best.length < limit && touched.length > wide) best = pick(limit, true);
        best = best.slice(0, limit);
      }
      const out = best.map((h) => ({ item: idOf[h.item]!, score: h.score }));
      for (const d of touched) scores[d] = 0;
      return out;
    },
  };
}
