// Hybrid recall: full-text over facts and episodes, graph expansion from named entities, optional
// vectors, fused by reciprocal rank and filtered bi-temporally at `asOf`.
import { iso } from "@mountkit/core";
import { type EdgeFilter, type EpisodeFilter, edgeMatches, episodeFilterOf, episodeMatches } from "../domain/scope.js";
import { type EdgeRecord, type EntityRecord, type EpisodeRecord, edgeVisibleAt, episodeVisibleAt } from "../domain/types.js";
import type { Embedder } from "../embeddings.js";
import type { MemoryStore } from "../store/types.js";
import { reciprocalRankFusion } from "./fusion.js";
import { expandFromEntities } from "./graph.js";
import { namedPeople, spokenBy } from "./query.js";
import { analyseQuestion, answersType, feedbackQuery, inWindow } from "./question.js";

export interface RecallWeights {
  edgeText: number;
  graph: number;
  episodeEdges: number;
  vectors: number;
  episodeText: number;
  edgeEpisodes: number;
  /** Score factor of an episode spoken by a person the question names. */
  speaker: number;
  /** Score factor of an episode holding the kind of answer the question asks for (a date for "when"). */
  answerType: number;
  /** Score factor of an episode that happened in a period the question names ("in June 2023"). */
  dateWindow: number;
  /** RRF weight of the pseudo-relevance-feedback query's episodes (0: no second query). */
  feedback: number;
}

export const DEFAULT_WEIGHTS: RecallWeights = {
  edgeText: 1,
  graph: 0.8,
  episodeEdges: 0.6,
  vectors: 1,
  episodeText: 1,
  edgeEpisodes: 0.25,
  speaker: 2,
  answerType: 1.3,
  dateWindow: 2,
  // measured on LoCoMo 1-5 it costs 0.01-0.015 at every weight tried (0.1-0.5): off unless a host opts in
  feedback: 0,
};

/** Top episodes the feedback query learns from, and how many words it takes from them. */
const FEEDBACK_DOCS = 5;
const FEEDBACK_TERMS = 8;

export interface RecallInput {
  brainId: string;
  query: string;
  asOf: number;
  /** Transaction time: what the memory believed then. */
  knownAt: number;
  limit: number;
  /**
   * Scope and filters (docs/memory.md#scopes-and-filters): facts must pass all of it, episodes its scope and metadata.
   * The stores apply it in their searches; what vectors and citations bring in is checked here too.
   */
  filter?: EdgeFilter;
}

export interface RecallResult {
  edges: Array<EdgeRecord & { score: number }>;
  episodes: EpisodeRecord[];
  entities: Map<string, EntityRecord>;
  context: string;
}

export interface RecallDeps {
  store: MemoryStore;
  embedder?: Embedder;
  weights?: Partial<RecallWeights>;
}

const day = (ms: number | null) => (ms === null ? null : iso(ms).slice(0, 10));

export async function recall(deps: RecallDeps, input: RecallInput): Promise<RecallResult> {
  const { store } = deps;
  const w = { ...DEFAULT_WEIGHTS, ...deps.weights };
  const { brainId, query, asOf, knownAt, limit, filter } = input;
  const depth = Math.max(30, limit * 3);
  const episodeFilter = filter && episodeFilterOf(filter);
  const scoped = { ...(filter ? { filter } : {}) };
  const scopedEpisodes = { ...(episodeFilter ? { filter: episodeFilter } : {}) };

  const vector =
    deps.embedder && store.searchVectors
      ? await deps.embedder.embed([query]).then(
          (v) => v[0],
          () => undefined,
        )
      : undefined;
  const [edgeHits, graphEdges, textHits, people, edgeVec, episodeVec] = await Promise.all([
    store.searchEdges({ brainId, query, limit: depth, asOf, knownAt, ...scoped }),
    expandFromEntities(store, { brainId, query, asOf, knownAt, limit: depth, ...scoped }),
    store.searchEpisodes({ brainId, query, limit: depth * 2, asOf, knownAt, ...scopedEpisodes }),
    namedPeople(store, brainId, query),
    vector ? store.searchVectors!({ brainId, kind: "edge", vector, limit: depth }) : Promise.resolve([]),
    vector ? store.searchVectors!({ brainId, kind: "episode", vector, limit: depth }) : Promise.resolve([]),
  ]);

  // what the people a question names said themselves outranks what others said with the same words;
  // an episode holding the kind of answer asked for, or dated in the period named, outranks one that doesn't
  const question = analyseQuestion(query, asOf);
  const rerank = (hits: typeof textHits) =>
    hits
      .map((h) => {
        let score = h.score;
        if (spokenBy(h.item, people)) score *= w.speaker;
        if (answersType(h.item, question.answer)) score *= w.answerType;
        if (question.windows.length && inWindow(h.item, question.windows)) score *= w.dateWindow;
        return { item: h.item, score };
      })
      .sort((a, b) => b.score - a.score)
      .slice(0, depth);
  const episodeHits = rerank(textHits);
  // pseudo-relevance feedback: what the best hits share finds the question's other evidence
  const feedback =
    w.feedback > 0 && episodeHits.length >= 2
      ? feedbackQuery(
          query,
          episodeHits.slice(0, FEEDBACK_DOCS).map((h) => h.item),
          FEEDBACK_TERMS,
        )
      : "";
  const feedbackHits = feedback
    ? rerank(await store.searchEpisodes({ brainId, query: feedback, limit: depth, asOf, knownAt, ...scopedEpisodes }))
    : [];
  const byId = new Map<string, EdgeRecord>();
  for (const h of edgeHits) byId.set(h.item.id, h.item);
  for (const e of graphEdges) byId.set(e.id, e);
  const episodeIds = episodeHits.map((h) => h.item.id);
  // the episodes passed the filter's scope and metadata: their facts are checked for the rest of it
  const factFilter = filter && { ...filter, metadata: undefined };
  const fromEpisodes = (await store.edgesOfEpisodes({ brainId, episodeIds: episodeIds.slice(0, limit) })).filter(
    (e) => edgeVisibleAt(e, asOf, knownAt) && edgeMatches(e, factFilter),
  );
  for (const e of fromEpisodes) byId.set(e.id, e);
  const vecEdgeIds = edgeVec.map((h) => h.item).filter((id) => !byId.has(id) || edgeVisibleAt(byId.get(id)!, asOf, knownAt));
  for (const e of await filteredEdges(
    store,
    brainId,
    vecEdgeIds.filter((id) => !byId.has(id)),
    filter,
  ))
    if (edgeVisibleAt(e, asOf, knownAt)) byId.set(e.id, e);

  const episodeRank = new Map(episodeIds.map((id, i) => [id, i]));
  const fusedEdges = reciprocalRankFusion([
    { ids: edgeHits.map((h) => h.item.id), weight: w.edgeText },
    { ids: graphEdges.map((e) => e.id), weight: w.graph },
    {
      ids: [...fromEpisodes].sort((a, b) => episodeRank.get(a.episodeId)! - episodeRank.get(b.episodeId)!).map((e) => e.id),
      weight: w.episodeEdges,
    },
    { ids: vecEdgeIds.filter((id) => byId.has(id)), weight: w.vectors },
  ])
    .filter((f) => byId.has(f.id))
    .slice(0, limit);
  const edges = fusedEdges.map((f) => ({ ...byId.get(f.id)!, score: Math.round(f.score * 1e6) / 1e6 }));

  const fusedEpisodes = reciprocalRankFusion([
    { ids: episodeIds, weight: w.episodeText },
    { ids: feedbackHits.map((h) => h.item.id), weight: w.feedback },
    { ids: edges.map((e) => e.episodeId), weight: w.edgeEpisodes },
    { ids: episodeVec.map((h) => h.item), weight: w.vectors },
  ]).slice(0, limit * 2);
  const episodes = await rankedEpisodes(
    store,
    { brainId, asOf, knownAt, limit, filter: episodeFilter },
    fusedEpisodes.map((f) => f.id),
    edges,
    [...feedbackHits, ...episodeHits].map((h) => h.item),
  );

  const entityIds = [...new Set(edges.flatMap((e) => [e.source, e.target]))];
  const entities = new Map((await store.getEntities({ brainId, ids: entityIds })).map((e) => [e.id, e]));
  return { edges, episodes, entities, context: renderContext(edges, episodes, asOf) };
}

/**
 * The best `limit` episodes of `ranked` that happened by `asOf`, then every episode a returned edge cites
 * that is not among them yet, whatever its `occurredAt` ("Mei worked at Nintendo from 2015 until 2018",
 * told in 2024, is the source of what an `asOf` of 2016 answers). Cited episodes count among the ranked
 * ones whatever their occurredAt, so each edge's `episodeId` is always in the answer.
 */
async function rankedEpisodes(
  store: MemoryStore,
  at: { brainId: string; asOf: number; knownAt: number; limit: number; filter?: EpisodeFilter },
  ranked: string[],
  edges: EdgeRecord[],
  loaded: EpisodeRecord[],
): Promise<EpisodeRecord[]> {
  const { brainId, asOf, knownAt, limit, filter } = at;
  const cited = [...new Set(edges.map((e) => e.episodeId))];
  const citedSet = new Set(cited);
  const known = new Map(loaded.map((e) => [e.id, e]));
  const missing = [...new Set([...ranked, ...cited])].filter((id) => !known.has(id));
  // episodes read by id (vector hits, citations) pass the filter as the searched ones did
  for (const e of await store.getEpisodes({ brainId, ids: missing })) if (episodeMatches(e, filter)) known.set(e.id, e);
  const top = ranked
    .map((id) => known.get(id))
    .filter((e): e is EpisodeRecord => !!e && (citedSet.has(e.id) || episodeVisibleAt(e, asOf, knownAt)))
    .slice(0, limit);
  const shown = new Set(top.map((e) => e.id));
  const rest = cited.filter((id) => !shown.has(id)).map((id) => known.get(id));
  return [...top, ...rest.filter((e): e is EpisodeRecord => !!e)];
}

/** The edges with these ids that pass `filter` (vector hits: the vector index knows no scope). */
async function filteredEdges(store: MemoryStore, brainId: string, ids: string[], filter: EdgeFilter | undefined): Promise<EdgeRecord[]> {
  if (!ids.length) return [];
  const edges = await store.getEdges({ brainId, ids });
  if (!filter) return edges;
  const sources = filter.metadata ? await store.getEpisodes({ brainId, ids: [...new Set(edges.map((e) => e.episodeId))] }) : [];
  const byId = new Map(sources.map((e) => [e.id, e]));
  return edges.filter((e) => edgeMatches(e, filter, (id) => byId.get(id)));
}

const MAX_EPISODE_CHARS = 400;

/** The compact text an agent pastes into a prompt: facts with validity, then their sources. */
export function renderContext(edges: EdgeRecord[], episodes: EpisodeRecord[], asOf: number): string {
  const lines: string[] = [`Memory as of ${iso(asOf)}.`];
  lines.push(edges.length ? "Facts:" : "Facts: none found.");
  for (const e of edges) {
    const from = day(e.tValid) ?? "unknown";
    const until = e.tInvalid === null ? "present" : day(e.tInvalid);
    lines.push(`- ${e.fact.replace(/\s+/g, " ")} (valid ${from} to ${until}) [${e.id}]`);
  }
  if (episodes.length) {
    lines.push("Sources:");
    for (const ep of episodes) {
      const text = ep.content.replace(/\s+/g, " ");
      lines.push(
        `- [${day(ep.occurredAt)}] ${text.length > MAX_EPISODE_CHARS ? `${text.slice(0, MAX_EPISODE_CHARS - 1)}…` : text} [${ep.id}]`,
      );
    }
  }
  return lines.join("\n");
}
