// Records of the memory domain as stores keep them: plain JSON, epoch-millisecond times, no methods.

export type EpisodeStatus = "queued" | "processing" | "done" | "failed";
export type EntityKind = "person" | "organization" | "place" | "product" | "date" | "other";

export interface BrainRecord {
  id: string;
  name: string;
  createdAt: number;
}

/** An API key as stored: only a hash of the secret, never the secret itself. */
export interface ApiKeyRecord {
  id: string;
  brainId: string;
  /** SHA-256 hex of the full key. */
  hash: string;
  /** First characters of the key, shown in listings so a human can tell keys apart. */
  prefix: string;
  label: string | null;
  createdAt: number;
  revokedAt: number | null;
}

export interface EpisodeRecord {
  id: string;
  brainId: string;
  content: string;
  metadata: Record<string, unknown>;
  /** Reference time of the content: facts are valid from then unless the text dates them. */
  occurredAt: number;
  /** Ingestion time. */
  createdAt: number;
  status: EpisodeStatus;
  error: string | null;
  entityIds: string[];
  edgeIds: string[];
  processedAt: number | null;
  /** Scope within the brain (docs/memory.md#scopes-and-filters); absent: unscoped on that axis. */
  userId?: string;
  agentId?: string;
  sessionId?: string;
}

export interface EntityRecord {
  id: string;
  brainId: string;
  name: string;
  kind: EntityKind;
  aliases: string[];
  /**
   * Normalised lookup keys (full names, aliases, distinctive tokens) used by entity resolution.
   * A SQL store keeps them in a side table indexed by (brain_id, key).
   */
  keys: string[];
  createdAt: number;
  updatedAt: number;
}

/** A fact between two entities, bi-temporal: validity in the world and knowledge in the system. */
export interface EdgeRecord {
  id: string;
  brainId: string;
  source: string;
  target: string;
  relation: string;
  fact: string;
  tValid: number | null;
  tInvalid: number | null;
  tIngested: number;
  tExpired: number | null;
  episodeId: string;
  invalidationReason: string | null;
  /** The edge whose arrival invalidated this one, when invalidation was automatic. */
  invalidatedBy: string | null;
  /** The scope of the episode the fact came from (docs/memory.md#scopes-and-filters); absent: unscoped on that axis. */
  userId?: string;
  agentId?: string;
  sessionId?: string;
}

export interface PlaybookRecord {
  brainId: string;
  slug: string;
  title: string;
  episodeIds: string[];
  createdAt: number;
  updatedAt: number;
}

/** Keyset position for newest-first listings: the last item's (createdAt, id). */
export interface PageAfter {
  createdAt: number;
  id: string;
}

export interface Page<T> {
  items: T[];
  /** Position after the last item when more may follow, else null. */
  next: PageAfter | null;
}

/**
 * The two axes of a bi-temporal read (docs/memory.md#time-two-axes). Valid time: `tValid <= asOf < tInvalid`, what was true
 * then. Transaction time: `tIngested <= knownAt < tExpired`, what the memory believed then. Without
 * `knownAt` a store reads both axes at `asOf`, one point on each.
 */
export function edgeVisibleAt(
  e: Pick<EdgeRecord, "tValid" | "tInvalid" | "tIngested" | "tExpired">,
  asOf: number,
  knownAt: number = asOf,
): boolean {
  return (
    (e.tValid === null || e.tValid <= asOf) &&
    (e.tInvalid === null || asOf < e.tInvalid) &&
    e.tIngested <= knownAt &&
    (e.tExpired === null || knownAt < e.tExpired)
  );
}

/** An episode happened by `asOf` (valid time) and was stored by `knownAt` (transaction time). */
/** Oldest first: `createdAt`, then id (the order the stores give records of one time, and keyset pages). */
export const byAge = (a: { createdAt: number; id: string }, b: { createdAt: number; id: string }) =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function episodeVisibleAt(e: Pick<EpisodeRecord, "createdAt" | "occurredAt">, asOf: number, knownAt: number = asOf): boolean {
  return e.occurredAt <= asOf && e.createdAt <= knownAt;
}
