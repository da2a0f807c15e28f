// Erasure (docs/memory.md#erasure): what forgetting an episode or a subject removes, decided once for every
// store. A store answers a few reads (`ErasureReads`), `planErasure` decides, and the store applies the plan
// in one transaction (and, on SQLite, scrubs the file afterwards).
import type { EdgeRecord, EpisodeRecord, PlaybookRecord } from "./types.js";

/** What one erasure removed and changed: ids only, never erased content. */
export interface ErasureResult {
  episodes: string[];
  edges: string[];
  entities: string[];
  /** Edges kept because another episode supports them too, or that cited a removed edge or episode: they lost that citation. */
  uncited: string[];
  /** Playbooks that lost episodes (their content is rendered from the episodes left) and those left empty, deleted. */
  playbooksUpdated: string[];
  playbooksDeleted: string[];
}

export type ErasureKind = "episode" | "subject" | "brain";

/** The audit record of one erasure: what was asked and how much went, with no erased content (ids of gone records excluded). */
export interface ErasureRecord {
  id: string;
  brainId: string;
  kind: ErasureKind;
  /** The episode or entity id asked for (the brain's id for a whole brain). */
  target: string;
  at: number;
  counts: { episodes: number; edges: number; entities: number; playbooks: number };
}

/** The reads `planErasure` needs, answered by the store inside the erasure's transaction. */
export interface ErasureReads {
  episodes(ids: string[]): Promise<EpisodeRecord[]>;
  /** Episodes listing the entity among the entities they mention, or whose edges name it. */
  episodesNaming(entityId: string): Promise<string[]>;
  edgesOfEpisodes(episodeIds: string[]): Promise<EdgeRecord[]>;
  /** Every edge whose source or target is the entity, expired and invalid ones included. */
  edgesOfEntity(entityId: string): Promise<EdgeRecord[]>;
  /** For each of these edges listed in the `edgeIds` of an episode outside `exclude`: the first such episode. */
  otherSupport(edgeIds: string[], exclude: ReadonlySet<string>): Promise<Map<string, string>>;
  /** Edges whose `invalidatedBy` is one of `edgeIds` or whose reason cites one of them or one of `episodeIds` (`… by edge <id>: …`). */
  edgesCiting(edgeIds: string[], episodeIds: string[]): Promise<EdgeRecord[]>;
  /** Of `entityIds`, those an edge outside `goneEdges` names or an episode outside `goneEpisodes` lists. */
  supportedEntities(entityIds: string[], goneEpisodes: ReadonlySet<string>, goneEdges: ReadonlySet<string>): Promise<Set<string>>;
  playbooksHolding(episodeIds: string[]): Promise<PlaybookRecord[]>;
}

export interface ErasurePlan {
  episodes: EpisodeRecord[];
  removeEdges: string[];
  /** Kept edges whose cited episode is erased: they now cite another episode that supports them. */
  recite: Array<{ id: string; episodeId: string }>;
  /** Kept edges that cited a removed edge or episode: the citation and the cited fact leave their reason. */
  uncite: Array<{ id: string; invalidatedBy: string | null; reason: string | null }>;
  removeEntities: string[];
  /** Playbooks with their episode list after the erasure (empty: deleted). */
  playbooks: PlaybookRecord[];
  result: ErasureResult;
}

/**
 * A reason without what it quoted from a removed edge or episode: "superseded by edge X: <fact>" becomes
 * "superseded by an erased fact".
 */
export function erasedReason(reason: string | null, edgeIds: ReadonlySet<string>, episodeIds: ReadonlySet<string>): string | null {
  if (reason === null) return null;
  const m = /^([^:]*?) by (edge|episode) (\S+): /.exec(reason);
  if (!m) return reason;
  const gone = m[2] === "edge" ? edgeIds.has(m[3]!) : episodeIds.has(m[3]!);
  return gone ? `${m[1]} by an erased ${m[2] === "edge" ? "fact" : "episode"}` : reason;
}

/**
 * Decides an erasure. Episodes: those asked, plus, for a subject, every episode naming it (an episode that names
 * the subject and others is erased whole: its text names the subject). Edges: those of the erased episodes that
 * no other episode supports, plus every edge naming the subject. Entities: the subject, and every entity the
 * erased episodes or removed edges named that nothing left names. Edges kept lose citations of what went.
 */
export async function planErasure(reads: ErasureReads, input: { episodeIds: string[]; subjectId?: string }): Promise<ErasurePlan> {
  const episodeIds = new Set(input.episodeIds);
  if (input.subjectId) for (const id of await reads.episodesNaming(input.subjectId)) episodeIds.add(id);
  const episodes = await reads.episodes([...episodeIds]);
  const gone = new Set(episodes.map((e) => e.id));
  const cited = await reads.edgesOfEpisodes([...gone]);
  const listed = new Set(episodes.flatMap((e) => e.edgeIds));
  const support = await reads.otherSupport([...new Set([...cited.map((e) => e.id), ...listed])], gone);
  const subjectEdges = input.subjectId ? await reads.edgesOfEntity(input.subjectId) : [];
  const removed = new Set(subjectEdges.map((e) => e.id));
  const recite: ErasurePlan["recite"] = [];
  for (const e of cited) {
    if (removed.has(e.id)) continue;
    const other = support.get(e.id);
    if (other) recite.push({ id: e.id, episodeId: other });
    else removed.add(e.id);
  }
  const uncite: ErasurePlan["uncite"] = [];
  for (const e of await reads.edgesCiting([...removed], [...gone])) {
    if (removed.has(e.id)) continue;
    const invalidatedBy = e.invalidatedBy !== null && removed.has(e.invalidatedBy) ? null : e.invalidatedBy;
    const reason = erasedReason(e.invalidationReason, removed, gone);
    if (invalidatedBy !== e.invalidatedBy || reason !== e.invalidationReason) uncite.push({ id: e.id, invalidatedBy, reason });
  }
  const candidates = new Set(episodes.flatMap((e) => e.entityIds));
  for (const e of [...cited, ...subjectEdges]) if (removed.has(e.id)) candidates.add(e.source).add(e.target);
  if (input.subjectId) candidates.delete(input.subjectId);
  const kept = await reads.supportedEntities([...candidates], gone, removed);
  const removeEntities = [...(input.subjectId ? [input.subjectId] : []), ...[...candidates].filter((id) => !kept.has(id))];
  const playbooks = (await reads.playbooksHolding([...gone])).map((p) => ({
    ...p,
    episodeIds: p.episodeIds.filter((id) => !gone.has(id)),
  }));
  const result: ErasureResult = {
    episodes: [...gone],
    edges: [...removed],
    entities: removeEntities,
    uncited: [...new Set([...recite.map((r) => r.id), ...uncite.map((u) => u.id)])],
    playbooksUpdated: playbooks.filter((p) => p.episodeIds.length).map((p) => p.slug),
    playbooksDeleted: playbooks.filter((p) => !p.episodeIds.length).map((p) => p.slug),
  };
  return { episodes, removeEdges: [...removed], recite, uncite, removeEntities, playbooks, result };
}

/** The audit record of an erasure's result. */
export function erasureRecord(
  input: { id: string; brainId: string; kind: ErasureKind; target: string; at: number },
  r: ErasureResult,
): ErasureRecord {
  return {
    ...input,
    counts: {
      episodes: r.episodes.length,
      edges: r.edges.length,
      entities: r.entities.length,
      playbooks: r.playbooksUpdated.length + r.playbooksDeleted.length,
    },
  };
}
