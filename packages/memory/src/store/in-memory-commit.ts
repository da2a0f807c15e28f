// The in-memory store's extraction commit: validated whole before anything is written, optimistic on
// the brain's version, then entities, invalidations, edges and the episode's playbook in one step.
import type { EdgeRecord, EntityRecord } from "../domain/types.js";
import {
  addTo,
  type BrainData,
  cloneEdge,
  cloneEntity,
  cloneEpisode,
  clonePlaybook,
  type MemoryState,
  one,
  paginate,
  touchPlaybooks,
} from "./in-memory-data.js";
import type { CommitResult, ExtractionCommit, MemoryStore } from "./types.js";

type CommitMethods = Pick<MemoryStore, "brainVersion" | "commitExtraction" | "getPlaybook" | "listPlaybooks">;

const entityText = (e: EntityRecord) => [e.name, ...e.aliases].join(" \n ");

function indexEntity(d: BrainData, e: EntityRecord): void {
  for (const k of e.keys) addTo(d.entityKeys, k, e.id);
  d.entityText.add(e.id, entityText(e));
}

/** Throws before anything is written when the commit names an entity or edge the brain does not hold. */
function validate(d: BrainData, c: ExtractionCommit): void {
  for (const u of c.updateEntities) if (!d.entities.has(u.id)) throw new Error(`unknown entity ${u.id}`);
  for (const inv of c.invalidate) if (!d.edges.has(inv.id)) throw new Error(`unknown edge ${inv.id}`);
  const created = new Set(c.createEntities.map((n) => n.id));
  for (const e of c.createEdges) {
    const known = (id: string) => d.entities.has(id) || created.has(id);
    if (!known(e.source) || !known(e.target)) throw new Error(`edge ${e.id} references an unknown entity`);
  }
}

function writeEntities(d: BrainData, c: ExtractionCommit): void {
  for (const e of c.createEntities) {
    d.entities.set(e.id, cloneEntity(e));
    indexEntity(d, e);
  }
  for (const u of c.updateEntities) {
    const e = d.entities.get(u.id)!;
    Object.assign(e, { name: u.name, kind: u.kind, aliases: [...u.aliases], keys: [...u.keys], updatedAt: u.updatedAt });
    indexEntity(d, e);
  }
}

/** Writes the commit's edges; answers the stored edges it closed. */
function writeEdges(d: BrainData, c: ExtractionCommit): EdgeRecord[] {
  const closed: EdgeRecord[] = [];
  for (const inv of c.invalidate) {
    const e = d.edges.get(inv.id)!;
    if (e.tExpired !== null) continue;
    closed.push(e);
    if (inv.tInvalid !== null) e.tInvalid = e.tInvalid === null ? inv.tInvalid : Math.min(e.tInvalid, inv.tInvalid);
    e.tExpired = inv.tExpired;
    e.invalidationReason = inv.reason;
    e.invalidatedBy = inv.invalidatedBy;
  }
  const edgeIds: string[] = [];
  for (const e of c.createEdges) {
    d.edges.set(e.id, cloneEdge(e));
    d.edgeText.add(e.id, e.fact);
    addTo(d.edgesBySource, e.source, e.id);
    addTo(d.edgesByEntity, e.source, e.id);
    addTo(d.edgesByEntity, e.target, e.id);
    edgeIds.push(e.id);
  }
  d.edgesByEpisode.set(c.episodeId, [...(d.edgesByEpisode.get(c.episodeId) ?? []), ...edgeIds]);
  return closed;
}

function feedPlaybook(d: BrainData, c: ExtractionCommit): void {
  if (!c.playbook) return;
  const p = d.playbooks.get(c.playbook.slug);
  if (p) {
    if (!p.episodeIds.includes(c.episodeId)) p.episodeIds.push(c.episodeId);
    p.updatedAt = c.now;
  } else {
    d.playbooks.set(c.playbook.slug, {
      brainId: c.brainId,
      slug: c.playbook.slug,
      title: c.playbook.title,
      episodeIds: [c.episodeId],
      createdAt: c.now,
      updatedAt: c.now,
    });
  }
}

async function commit({ data, versions, jobs }: MemoryState, c: ExtractionCommit): Promise<CommitResult> {
  const d = data.get(c.brainId);
  const episode = d?.episodes.get(c.episodeId);
  if (!d || !episode) return { committed: false, reason: "episode_not_found" };
  if (episode.status === "done") return { committed: false, reason: "already_done" };
  const version = versions.get(c.brainId) ?? 0;
  if (c.expectVersion !== undefined && c.expectVersion !== version) return { committed: false, reason: "conflict" };
  // Validate before writing anything so a bad commit leaves no partial state.
  validate(d, c);
  versions.set(c.brainId, version + 1);
  writeEntities(d, c);
  const closed = writeEdges(d, c);
  feedPlaybook(d, c);
  touchPlaybooks(d, new Set(closed.map((e) => e.episodeId)), c.now);
  episode.status = "done";
  episode.error = null;
  episode.entityIds = [...c.entityIds];
  episode.edgeIds = [...c.edgeIds];
  episode.processedAt = c.now;
  for (const j of c.enqueue?.({ episode: cloneEpisode(episode), closed: closed.map(cloneEdge) }) ?? []) await jobs.enqueue(j);
  return { committed: true };
}

export function commitMethods(state: MemoryState): CommitMethods {
  const { data, versions } = state;
  return {
    async brainVersion({ brainId }) {
      return versions.get(brainId) ?? 0;
    },
    async commitExtraction(c) {
      return commit(state, c);
    },
    async getPlaybook({ brainId, slug }) {
      return one(data.get(brainId)?.playbooks, slug, clonePlaybook);
    },
    async listPlaybooks({ brainId, limit, after }) {
      return paginate(
        data.get(brainId)?.playbooks.values() ?? [],
        (p) => ({ createdAt: p.updatedAt, id: p.slug }),
        limit,
        after,
        clonePlaybook,
      );
    },
  };
}
