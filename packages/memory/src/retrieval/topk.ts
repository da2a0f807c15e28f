// Top-k selection with a bounded min-heap: O(n log k) instead of sorting every candidate.

export interface Scored<T> {
  item: T;
  score: number;
}

export function topK<T>(candidates: Iterable<Scored<T>>, k: number): Array<Scored<T>> {
  if (k <= 0) return [];
  const heap: Array<Scored<T>> = [];
  const less = (a: Scored<T>, b: Scored<T>) => a.score < b.score;
  const up = (i: number) => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(heap[i]!, heap[p]!)) break;
      [heap[i], heap[p]] = [heap[p]!, heap[i]!];
      i = p;
    }
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && less(heap[l]!, heap[m]!)) m = l;
      if (r < heap.length && less(heap[r]!, heap[m]!)) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  };
  for (const c of candidates) {
    if (heap.length < k) {
      heap.push(c);
      up(heap.length - 1);
    } else if (c.score > heap[0]!.score) {
      heap[0] = c;
      down(0);
    }
  }
  return heap.sort((a, b) => b.score - a.score);
}
