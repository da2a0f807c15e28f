// Rows of the SQL memory store: column lists, row-to-record mappers, the bi-temporal visibility filter,
// the table/column helpers and the context shared by its reads, writes, pages and full-text search.
import type { ApiKeyRecord, BrainRecord, EdgeRecord, EntityRecord, EpisodeRecord, PlaybookRecord } from "@mountkit/memory";
import { type Kysely, type RawBuilder, sql } from "kysely";
import { scopeOfRow } from "./filters.js";
import type { ftsTables } from "./fts.js";

export const EPISODE_COLS = [
  "brain_id",
  "id",
  "content",
  "metadata",
  "occurred_at",
  "created_at",
  "status",
  "error",
  "entity_ids",
  "edge_ids",
  "processed_at",
  "user_id",
  "agent_id",
  "session_id",
] as const;
export const ENTITY_COLS = ["brain_id", "id", "name", "kind", "aliases", "keys", "created_at", "updated_at"] as const;
export const EDGE_COLS = [
  "brain_id",
  "id",
  "source",
  "target",
  "relation",
  "fact",
  "t_valid",
  "t_invalid",
  "t_ingested",
  "t_expired",
  "episode_id",
  "invalidation_reason",
  "invalidated_by",
  "user_id",
  "agent_id",
  "session_id",
] as const;

export type Row = Record<string, any>;
export type Db = Kysely<any>;
export type Kind = "episodes" | "entities" | "edges";

export const num = (v: unknown): number => Number(v);
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export function toEpisode(r: Row): EpisodeRecord {
  return {
    id: r.id,
    brainId: r.brain_id,
    content: r.content,
    metadata: JSON.parse(r.metadata),
    occurredAt: num(r.occurred_at),
    createdAt: num(r.created_at),
    status: r.status,
    error: r.error,
    entityIds: JSON.parse(r.entity_ids),
    edgeIds: JSON.parse(r.edge_ids),
    processedAt: numOrNull(r.processed_at),
    ...scopeOfRow(r),
  };
}

export function toEntity(r: Row): EntityRecord {
  return {
    id: r.id,
    brainId: r.brain_id,
    name: r.name,
    kind: r.kind,
    aliases: JSON.parse(r.aliases),
    keys: JSON.parse(r.keys),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

export function toEdge(r: Row): EdgeRecord {
  return {
    id: r.id,
    brainId: r.brain_id,
    source: r.source,
    target: r.target,
    relation: r.relation,
    fact: r.fact,
    tValid: numOrNull(r.t_valid),
    tInvalid: numOrNull(r.t_invalid),
    tIngested: num(r.t_ingested),
    tExpired: numOrNull(r.t_expired),
    episodeId: r.episode_id,
    invalidationReason: r.invalidation_reason,
    invalidatedBy: r.invalidated_by,
    ...scopeOfRow(r),
  };
}

export function toPlaybook(r: Row): PlaybookRecord {
  return {
    brainId: r.brain_id,
    slug: r.slug,
    title: r.title,
    episodeIds: JSON.parse(r.episode_ids),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

export const toBrain = (r: Row): BrainRecord => ({ id: r.id, name: r.name, createdAt: num(r.created_at) });
export const toKey = (r: Row): ApiKeyRecord => ({
  id: r.id,
  brainId: r.brain_id,
  hash: r.hash,
  prefix: r.prefix,
  label: r.label,
  createdAt: num(r.created_at),
  revokedAt: numOrNull(r.revoked_at),
});

/** Keeps `rows` in the order of `ids` (the contract of the get-many operations). */
export function inOrder<T extends { id: string }>(ids: string[], rows: T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const r = byId.get(id);
    return r ? [r] : [];
  });
}

/**
 * A bi-temporal point: valid time `asOf`, transaction time `knownAt` (`asOf` when absent); null: no filter. `where`:
 * a further condition on alias `t` (scope and filters, filters.ts), ANDed wherever the point is.
 */
export type At = { asOf: number; knownAt?: number; where?: RawBuilder<unknown> } | null;

/** Bi-temporal visibility (domain `edgeVisibleAt`/`episodeVisibleAt`) as SQL on alias `t`. */
const visibleAt: Record<Kind, (at: At) => RawBuilder<unknown>> = {
  episodes: (at) => (at === null ? sql`1 = 1` : sql`t.occurred_at <= ${at.asOf} and t.created_at <= ${at.knownAt ?? at.asOf}`),
  entities: () => sql`1 = 1`,
  edges: (at) => {
    if (at === null) return sql`1 = 1`;
    const { asOf } = at;
    const knownAt = at.knownAt ?? asOf;
    return sql`(t.t_valid is null or t.t_valid <= ${asOf}) and (t.t_invalid is null or ${asOf} < t.t_invalid) and t.t_ingested <= ${knownAt} and (t.t_expired is null or ${knownAt} < t.t_expired)`;
  },
};

/** Visible at the point, and passing its `where` when it has one. */
export const visible: Record<Kind, (at: At) => RawBuilder<unknown>> = {
  episodes: (at) => withWhere(visibleAt.episodes(at), at),
  entities: (at) => withWhere(visibleAt.entities(at), at),
  edges: (at) => withWhere(visibleAt.edges(at), at),
};

const withWhere = (base: RawBuilder<unknown>, at: At) => (at?.where ? sql`${base} and ${at.where}` : base);

export const COLS: Record<Kind, readonly string[]> = { episodes: EPISODE_COLS, entities: ENTITY_COLS, edges: EDGE_COLS };

/** The table holding `kind`. */
export const table = (k: Kind) => `memory_${k}`;
/** `kind`'s columns on `alias`, for a raw select list. */
export const cols = (k: Kind, alias = "t") => sql.raw(COLS[k].map((c) => `${alias}.${c}`).join(", "));

/** What a search reads besides its arguments (search.ts). */
export interface MemorySearchContext {
  db: Db;
  /** The engine is PostgreSQL (else SQLite). */
  pg: boolean;
  /** SQLite: the brains' FTS5 tables. */
  ftsByBrain: ReturnType<typeof ftsTables>;
  /** Matching rows past which bounded sets of the newest rows are ranked instead of every match (default per engine). */
  rankBudget?: number;
}

/** What the store's parts share: the database, its engine and the full-text tables. */
export interface MemoryStoreContext {
  db: Db;
  /** The engine is PostgreSQL (else SQLite). */
  pg: boolean;
  /** SQLite: one FTS5 table per brain and kind, so BM25 statistics are the brain's own. */
  ftsByBrain: ReturnType<typeof ftsTables>;
  /** What full-text search reads (search.ts). */
  search: MemorySearchContext;
}
