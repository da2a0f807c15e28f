// The memory service's storage contract. Every data operation is scoped by brainId; records are plain
// JSON with epoch-ms times; listings are keyset-paginated newest first. A SQL store implements the
// search operations natively (SQLite FTS5, PostgreSQL tsvector) and runs `createEpisode` and
// `commitExtraction` in one transaction each.
import type { JobStore, NewJob, QuotaCounter } from "@mountkit/core/jobs";
import type { WebhookStore } from "@mountkit/core/webhooks";
import type { EdgeFilter, EpisodeFilter, ScopeFilter } from "../domain/scope.js";
import type {
  ApiKeyRecord,
  BrainRecord,
  EdgeRecord,
  EntityRecord,
  EpisodeRecord,
  EpisodeStatus,
  Page,
  PageAfter,
  PlaybookRecord,
} from "../domain/types.js";
import type { EpisodeJob } from "./episode-job.js";
import type { StoreErasure } from "./erasure-types.js";

export interface SearchHit<T> {
  item: T;
  /** Engine-specific relevance, higher is better; only the order within one call is meaningful. */
  score: number;
}

/** The extraction job created together with its episode. */
export type { EpisodeJob } from "./episode-job.js";

/**
 * An edge already stored that the commit closes: a supersession ends its validity (`tInvalid`, the record
 * stays current knowledge, `tExpired` null); a correction expires the record (`tExpired`), because what it
 * said was wrong, and leaves its validity as it was (`tInvalid` null).
 */
export interface EdgeInvalidation {
  id: string;
  tInvalid: number | null;
  tExpired: number | null;
  reason: string;
  invalidatedBy: string | null;
}

/** What a commit applied, as the store reads it back in the commit's transaction (for the commit's events). */
export interface AppliedCommit {
  /** The episode as committed (`done`). */
  episode: EpisodeRecord;
  /** The edges of `invalidate` the commit closed (those already expired are left alone), as they are after it. */
  closed: EdgeRecord[];
}

/** Everything one extraction writes, applied all-or-nothing. */
export interface ExtractionCommit {
  brainId: string;
  episodeId: string;
  now: number;
  /** New entities. */
  createEntities: EntityRecord[];
  /** Existing entities that changed (a longer name, a kind, aliases): their full new values. */
  updateEntities: Array<Pick<EntityRecord, "id" | "name" | "kind" | "aliases" | "keys" | "updatedAt">>;
  createEdges: EdgeRecord[];
  invalidate: EdgeInvalidation[];
  /** Entities the episode mentions (new or existing) and edges it produced, recorded on the episode. */
  entityIds: string[];
  edgeIds: string[];
  /**
   * Adds the episode to this playbook, creating it when absent. Every playbook holding the episode of an
   * edge `invalidate` closes is updated at `now` too (one of its facts changed).
   */
  playbook: { slug: string; title: string } | null;
  /**
   * The brain's `brainVersion` the extraction resolved against. When another commit of the brain landed
   * since, nothing is written and `conflict` is answered (the pipeline resolves again). Absent: no check.
   */
  expectVersion?: number;
  /**
   * The jobs of the commit's events (docs/memory.md#webhooks), made from what it applied (the episode as committed,
   * the edges it closed as they are after it) and queued on `jobs` in the commit's transaction.
   */
  enqueue?: (applied: AppliedCommit) => readonly NewJob[];
}

export type CommitResult = { committed: true } | { committed: false; reason: "already_done" | "episode_not_found" | "conflict" };

export type InvalidateResult = { ok: true; edge: EdgeRecord } | { ok: false; reason: "not_found" | "already_invalid" };

/** Where a bi-temporal read looks: valid time `asOf`; transaction time `knownAt`, which defaults to `asOf`. */
export interface BitemporalPoint {
  asOf: number;
  knownAt?: number;
}

/**
 * Daily quota with holds: a call holds a unit while it runs and the unit is used only when the call
 * succeeds, so a failing call in flight never makes a good one answer 429 (it waits for the outcome
 * instead). Exact across every process sharing the store. A hold left by a crashed process lapses after
 * its ttl.
 */
export interface QuotaHolds {
  /**
   * `held`: a unit is held for the call; `exhausted`: `limit` calls already succeeded this period;
   * `busy`: the remaining units are all held by calls in flight (ask again once they settle).
   */
  hold(input: { key: string; period: string; limit: number; id: string; now: number; ttlMs: number }): Promise<{
    state: "held" | "exhausted" | "busy";
    used: number;
  }>;
  /** Ends a hold: a success turns it into a used unit, a failure frees it. Answers the units used. */
  settle(input: { key: string; period: string; id: string; success: boolean; limit: number }): Promise<{ used: number }>;
}

/**
 * An `Idempotency-Key` an episode is stored under (docs/memory.md#idempotent-and-batch-ingest). Unique per brain in
 * the store itself (a unique index on SQL), so concurrent retries through any number of processes store one episode.
 */
export interface IdempotencyClaim {
  key: string;
  /** Digest of the request the key was first used with; a retry with another body is told apart by it. */
  fingerprint: string;
  /** When the key may be used again for a new episode (epoch ms). */
  expiresAt: number;
}

/**
 * `createEpisode`'s answer: `undefined` when the episode was stored; the episode already stored under the claim's key,
 * with that first request's fingerprint, when the key is taken (nothing written).
 */
export type CreateEpisodeOutcome = undefined | { duplicate: EpisodeRecord; fingerprint: string };

export interface ListInput {
  brainId: string;
  limit: number;
  after?: PageAfter | null;
}

export interface MemoryStore extends StoreErasure {
  // --- brains and keys (keys are global: a key's hash finds its brain) ---
  createBrain(input: { brain: BrainRecord }): Promise<BrainRecord>;
  getBrain(input: { brainId: string }): Promise<BrainRecord | null>;
  listBrains(): Promise<BrainRecord[]>;
  createApiKey(input: { key: ApiKeyRecord }): Promise<void>;
  /** The key with this hash, revoked or not (the caller checks `revokedAt`). */
  findApiKey(input: { hash: string }): Promise<ApiKeyRecord | null>;
  /** Revokes an active key by id; false when no active key has that id. */
  revokeApiKey(input: { id: string; now: number }): Promise<boolean>;
  listApiKeys(input: { brainId?: string }): Promise<ApiKeyRecord[]>;

  // --- episodes ---
  /**
   * Stores the episode and enqueues its extraction job in one atomic step. With `idempotency`: when the brain holds
   * the key, unexpired (`expiresAt` after the new episode's `createdAt`) and its episode still stored, nothing is
   * written and that episode is answered; otherwise the key is (re)claimed for this episode in the same step.
   */
  createEpisode(input: { episode: EpisodeRecord; job: EpisodeJob; idempotency?: IdempotencyClaim }): Promise<CreateEpisodeOutcome>;
  getEpisode(input: { brainId: string; id: string }): Promise<EpisodeRecord | null>;
  getEpisodes(input: { brainId: string; ids: string[] }): Promise<EpisodeRecord[]>;
  /** `filter`: scope and metadata equality (domain/scope.ts `episodeMatches`), in the store's indexes. */
  listEpisodes(input: ListInput & { filter?: EpisodeFilter }): Promise<Page<EpisodeRecord>>;
  /**
   * Moves an episode to `processing` or `failed`; never leaves `done` (commit owns that). `enqueue`: when the
   * status changed, the jobs for the episode as changed (its events), queued on `jobs` in the same transaction.
   */
  setEpisodeStatus(input: {
    brainId: string;
    id: string;
    status: Exclude<EpisodeStatus, "done" | "queued">;
    error?: string | null;
    now: number;
    enqueue?: (episode: EpisodeRecord) => readonly NewJob[];
  }): Promise<void>;
  /**
   * Full-text search over episode content; only episodes visible at (`asOf`, `knownAt`) (see episodeVisibleAt).
   * An episode whose metadata names a conversation (`conversationKey` in domain/conversation.ts) is
   * indexed with the two turns before it and the one after it in that conversation (`searchableText`),
   * on every store alike, so that recall ranks the same everywhere (conformance suite, src/testing.ts).
   */
  searchEpisodes(
    input: BitemporalPoint & { brainId: string; query: string; limit: number; filter?: EpisodeFilter },
  ): Promise<Array<SearchHit<EpisodeRecord>>>;

  // --- entities ---
  getEntity(input: { brainId: string; id: string }): Promise<EntityRecord | null>;
  getEntities(input: { brainId: string; ids: string[] }): Promise<EntityRecord[]>;
  /** `scope`: only entities a fact of that scope touches (entities themselves are the brain's, shared by its scopes). */
  listEntities(input: ListInput & { scope?: ScopeFilter }): Promise<Page<EntityRecord>>;
  /**
   * Entities having any of these lookup keys (see EntityRecord.keys): in the order of `keys`, oldest first within a key
   * (`createdAt`, then id), each once, at most `limit`.
   */
  findEntitiesByKeys(input: { brainId: string; keys: string[]; limit: number }): Promise<EntityRecord[]>;
  /** Full-text search over entity names and aliases. */
  searchEntities(input: { brainId: string; query: string; limit: number }): Promise<Array<SearchHit<EntityRecord>>>;

  // --- edges ---
  getEdge(input: { brainId: string; id: string }): Promise<EdgeRecord | null>;
  getEdges(input: { brainId: string; ids: string[] }): Promise<EdgeRecord[]>;
  /**
   * Newest first by tIngested; optionally only edges touching one entity, and only edges visible at a
   * bi-temporal point `at` (see edgeVisibleAt; absent: every edge, expired and invalid ones included).
   */
  listEdges(input: ListInput & { entityId?: string; at?: BitemporalPoint; filter?: EdgeFilter }): Promise<Page<EdgeRecord>>;
  /**
   * Edges not yet expired (tExpired null) with this source (or any of these sources) and relation: dedup and
   * contradiction candidates, in the store's edge order within each source.
   */
  findCurrentEdges(input: {
    brainId: string;
    source: string | readonly string[];
    relation?: string;
    /** Only edges of this scope (the pipeline's `ownerScope` of the episode). */
    scope?: ScopeFilter;
  }): Promise<EdgeRecord[]>;
  /** Edges touching any of these entities visible at (`asOf`, `knownAt`) (see edgeVisibleAt), most recently valid first. */
  edgesOfEntities(
    input: BitemporalPoint & { brainId: string; entityIds: string[]; limit: number; filter?: EdgeFilter },
  ): Promise<EdgeRecord[]>;
  /** Edges extracted from these episodes. */
  edgesOfEpisodes(input: { brainId: string; episodeIds: string[] }): Promise<EdgeRecord[]>;
  /** Full-text search over edges' fact text, restricted to edges visible at (`asOf`, `knownAt`). */
  searchEdges(
    input: BitemporalPoint & { brainId: string; query: string; limit: number; filter?: EdgeFilter },
  ): Promise<Array<SearchHit<EdgeRecord>>>;
  /**
   * Ends an edge's validity at `tInvalid` unless it already ends by then (tInvalid <= the new one) or the
   * record is expired: atomic, for the 409 rule. An end in the future is brought forward. `enqueue`: when it
   * applied, the jobs for the edge as changed (its events), queued on `jobs` in the same transaction.
   * When it applied, every playbook holding the edge's episode is updated at `now` (its `updatedAt` never
   * moves back); `now` defaults to `tInvalid`.
   */
  invalidateEdge(input: {
    brainId: string;
    id: string;
    tInvalid: number;
    /** When the change is made (transaction time); default `tInvalid`. */
    now?: number;
    /** Null for a supersession or a manual invalidation: the record stays current knowledge. */
    tExpired: number | null;
    reason: string;
    invalidatedBy: string | null;
    enqueue?: (edge: EdgeRecord) => readonly NewJob[];
  }): Promise<InvalidateResult>;

  // --- extraction ---
  /**
   * Writes one extraction and marks the episode `done`, all-or-nothing. Idempotent: when the episode is
   * already done (a job re-run after a crash) nothing is written and `already_done` is returned.
   */
  commitExtraction(input: ExtractionCommit): Promise<CommitResult>;
  /**
   * How many extractions of the brain have been committed (0 before the first). Commits of one brain are
   * serialised and each increments it atomically: the optimistic check behind `expectVersion`, a second
   * guard after the queue's per-brain job groups (a job whose lease ran out may overlap its retry).
   */
  brainVersion?(input: { brainId: string }): Promise<number>;
  /**
   * What an extraction reads before it starts, in one step: moves the episode to `processing` (as `setEpisodeStatus`)
   * and answers it, with the brain's `brainVersion`; null when the episode is gone or done. Optional: without it the
   * pipeline calls `getEpisode`, `setEpisodeStatus` and `brainVersion` (three round trips to a database instead of one).
   * With `ahead`, it also answers up to that many of the brain's other queued episodes created no earlier, oldest first:
   * the ones its next jobs will extract, which the extractor may start on now (`Extractor.prepare`).
   */
  beginExtraction?(input: {
    brainId: string;
    id: string;
    now: number;
    ahead?: number;
  }): Promise<{ episode: EpisodeRecord; version: number; ahead?: EpisodeRecord[] } | null>;

  // --- playbooks ---
  getPlaybook(input: { brainId: string; slug: string }): Promise<PlaybookRecord | null>;
  /** Newest first by updatedAt; `after.createdAt` carries updatedAt and `after.id` the slug. */
  listPlaybooks(input: ListInput): Promise<Page<PlaybookRecord>>;

  // --- optional vectors (used only when an Embedder is configured) ---
  putEmbeddings?(input: { brainId: string; items: Array<{ kind: "edge" | "episode"; id: string; vector: number[] }> }): Promise<void>;
  searchVectors?(input: { brainId: string; kind: "edge" | "episode"; vector: number[]; limit: number }): Promise<Array<SearchHit<string>>>;

  /**
   * The durable queue (claim/complete/fail/counts): `createEpisode` enqueues extraction jobs into it, and the writes
   * that report events (`commitExtraction`, `setEpisodeStatus`, `invalidateEdge`) their events' jobs.
   */
  readonly jobs: JobStore;
  /** The brains' webhook subscriptions and deliveries (inMemoryWebhookStore, sqlWebhookStore). */
  readonly webhooks: WebhookStore;
  /** Daily quota counters, shared by every process using this store. */
  readonly quota: QuotaCounter;
  /** The daily quota the service enforces when present (see QuotaHolds); `quota` alone is reserve-and-refund. */
  readonly quotaHolds?: QuotaHolds;
  close?(): Promise<void>;
}
