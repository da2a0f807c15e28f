// Records and helpers the store conformance suite (src/testing.ts) builds its cases from; the record
// makers are also exported from `@mountkit/memory/testing` for stores' own tests.
import type { EdgeRecord, EntityRecord, EpisodeRecord } from "../domain/types.js";
import type { EpisodeJob, ExtractionCommit, MemoryStore } from "../store/types.js";
import { nameKeys } from "../text/names.js";

/** Declares one case: a fresh store from the factory for each, closed after it. */
export type StoreTest = (title: string, fn: (store: MemoryStore) => Promise<void>) => void;

export const T0 = Date.UTC(2024, 0, 1);
export const DAY = 86_400_000;
let seq = 0;
/** Ids unique across the processes sharing one test database. */
export const uid = (p: string) => `${p}_${process.pid}_${++seq}`;

export function episode(brainId: string, over: Partial<EpisodeRecord> = {}): EpisodeRecord {
  return {
    id: uid("ep"),
    brainId,
    content: "Alice Moreau lives in Paris.",
    metadata: { source: "test" },
    occurredAt: T0,
    createdAt: T0,
    status: "queued",
    error: null,
    entityIds: [],
    edgeIds: [],
    processedAt: null,
    ...over,
  };
}

export function entity(brainId: string, name: string, over: Partial<EntityRecord> = {}): EntityRecord {
  return {
    id: uid("ent"),
    brainId,
    name,
    kind: "person",
    aliases: [],
    keys: nameKeys([name, ...(over.aliases ?? [])]),
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}

export function edge(brainId: string, episodeId: string, source: string, target: string, over: Partial<EdgeRecord> = {}): EdgeRecord {
  return {
    id: uid("edge"),
    brainId,
    source,
    target,
    relation: "lives_in",
    fact: "Alice lives in Paris",
    tValid: T0,
    tInvalid: null,
    tIngested: T0,
    tExpired: null,
    episodeId,
    invalidationReason: null,
    invalidatedBy: null,
    ...over,
  };
}

export function commitOf(ep: EpisodeRecord, over: Partial<ExtractionCommit> = {}): ExtractionCommit {
  return {
    brainId: ep.brainId,
    episodeId: ep.id,
    now: T0 + 1000,
    createEntities: [],
    updateEntities: [],
    createEdges: [],
    invalidate: [],
    entityIds: [],
    edgeIds: [],
    playbook: null,
    ...over,
  };
}

/** Stores the episode with its extraction job, as the service does (queue `memory.extract`, three attempts). */
export async function addEpisode(store: MemoryStore, ep: EpisodeRecord, job: Partial<EpisodeJob> = {}): Promise<void> {
  await store.createEpisode({
    episode: ep,
    job: { id: uid("job"), queue: "memory.extract", payload: { brainId: ep.brainId, episodeId: ep.id }, maxAttempts: 3, ...job },
  });
}

/** A brain holding one extracted episode: Alice Moreau lives in Paris. */
export async function seeded(store: MemoryStore, brainId = uid("brain")) {
  await store.createBrain({ brain: { id: brainId, name: brainId, createdAt: T0 } });
  const ep = episode(brainId);
  await addEpisode(store, ep);
  const alice = entity(brainId, "Alice Moreau", { aliases: ["Alice"] });
  const paris = entity(brainId, "Paris", { kind: "place" });
  const e1 = edge(brainId, ep.id, alice.id, paris.id);
  await store.commitExtraction(
    commitOf(ep, { createEntities: [alice, paris], createEdges: [e1], entityIds: [alice.id, paris.id], edgeIds: [e1.id] }),
  );
  return { brainId, ep, alice, paris, e1 };
}
