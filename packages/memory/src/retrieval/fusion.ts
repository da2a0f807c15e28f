// Reciprocal rank fusion: each ranked list votes weight / (k + rank); robust to lists whose raw
// scores are not comparable (BM25, graph distance, cosine).

export interface RankedList {
  ids: readonly string[];
  weight?: number;
}

export function reciprocalRankFusion(lists: readonly RankedList[], k = 60): Array<{ id: string; score: number }> {
  const scores = new Map<string, number>();
  for (const list of lists) {
    const w = list.weight ?? 1;
    const seen = new Set<string>();
    list.ids.forEach((id, rank) => {
      if (seen.has(id)) return;
      seen.add(id);
      scores.set(id, (scores.get(id) ?? 0) + w / (k + rank + 1));
    });
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}
