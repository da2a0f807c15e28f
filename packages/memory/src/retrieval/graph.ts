// Graph expansion: entities the query names pull in the edges they take part in, ranked by how
// strongly their endpoints matched and how many query terms the fact shares.
import type { EdgeFilter } from "../domain/scope.js";
import type { EdgeRecord } from "../domain/types.js";
import type { MemoryStore } from "../store/types.js";
import { terms } from "../text/tokenize.js";

export async function expandFromEntities(
  store: MemoryStore,
  input: { brainId: string; query: string; asOf: number; knownAt: number; limit: number; maxEntities?: number; filter?: EdgeFilter },
): Promise<EdgeRecord[]> {
  const hits = await store.searchEntities({ brainId: input.brainId, query: input.query, limit: input.maxEntities ?? 5 });
  if (!hits.length) return [];
  const top = hits[0]!.score;
  // keep entities matching about as well as the best one: a name shared by every message adds noise
  const matched = new Map(hits.filter((h) => h.score >= top * 0.5).map((h) => [h.item.id, h.score / top]));
  const edges = await store.edgesOfEntities({
    brainId: input.brainId,
    entityIds: [...matched.keys()],
    asOf: input.asOf,
    knownAt: input.knownAt,
    limit: input.limit * 4,
    ...(input.filter ? { filter: input.filter } : {}),
  });
  const q = new Set(terms(input.query));
  const scored = edges.map((e) => {
    const endpoint = (matched.get(e.source) ?? 0) + (matched.get(e.target) ?? 0);
    const overlap = terms(e.fact).filter((t) => q.has(t)).length;
    return { e, score: endpoint + overlap };
  });
  scored.sort((a, b) => b.score - a.score || (b.e.tValid ?? 0) - (a.e.tValid ?? 0));
  return scored.slice(0, input.limit).map((s) => s.e);
}
