// Scopes within a brain (userId, agentId, sessionId) and the filters of reads (docs/memory.md#scopes-and-filters):
// the record predicates the in-memory store and recall apply, the same rules the SQL stores write as indexed columns.
import type { EdgeRecord, EpisodeRecord } from "./types.js";

export const SCOPE_FIELDS = ["userId", "agentId", "sessionId"] as const;
export type ScopeField = (typeof SCOPE_FIELDS)[number];

/** Who a record belongs to within its brain; an absent field is unscoped on that axis. */
export type Scope = { [K in ScopeField]?: string };

/** A scope to read: absent field, any value; `null`, only records unscoped on that axis; a string, only that one. */
export type ScopeFilter = { [K in ScopeField]?: string | null };

/** A value metadata is compared to: equality of JSON scalars only. */
export type MetadataValue = string | number | boolean | null;

export interface EpisodeFilter extends ScopeFilter {
  /** Every key present in the episode's metadata with exactly this value. */
  metadata?: Record<string, MetadataValue>;
}

/** Filters of facts; `metadata` applies to the episode each fact came from. */
export interface EdgeFilter extends EpisodeFilter {
  /** The fact's relation is one of these. */
  relations?: readonly string[];
  /** The fact touches this entity (source or target). */
  entityId?: string;
  /** `tValid` within [validFrom, validTo] (epoch ms, inclusive); a fact with an unknown start never matches a range. */
  validFrom?: number;
  validTo?: number;
}

/** The record's scope, the set fields only. */
export function scopeOf(r: Scope): Scope {
  const out: Scope = {};
  for (const f of SCOPE_FIELDS) if (typeof r[f] === "string") out[f] = r[f];
  return out;
}

/**
 * The scope a fact extracted from `episode` is compared within: the same userId and agentId (unscoped matching
 * unscoped), any sessionId. A fact of one user never dedups, supersedes or ends another's; a user's later session
 * updates what an earlier one said.
 */
export function ownerScope(episode: Scope): ScopeFilter {
  return { userId: episode.userId ?? null, agentId: episode.agentId ?? null };
}

export function matchesScope(r: Scope, f: ScopeFilter | undefined): boolean {
  if (!f) return true;
  for (const k of SCOPE_FIELDS) {
    const want = f[k];
    if (want === undefined) continue;
    if ((r[k] ?? null) !== want) return false;
  }
  return true;
}

export function matchesMetadata(metadata: Record<string, unknown>, want: Record<string, MetadataValue> | undefined): boolean {
  if (!want) return true;
  for (const [k, v] of Object.entries(want)) if (!Object.hasOwn(metadata, k) || metadata[k] !== v) return false;
  return true;
}

export function episodeMatches(e: EpisodeRecord, f: EpisodeFilter | undefined): boolean {
  return !f || (matchesScope(e, f) && matchesMetadata(e.metadata, f.metadata));
}

/** The edge passes `f`; `episodeOf` finds its source episode when `f.metadata` is set (an edge of an unknown episode fails). */
export function edgeMatches(e: EdgeRecord, f: EdgeFilter | undefined, episodeOf?: (id: string) => EpisodeRecord | undefined): boolean {
  if (!f) return true;
  if (!matchesScope(e, f)) return false;
  if (f.relations && !f.relations.includes(e.relation)) return false;
  if (f.entityId !== undefined && e.source !== f.entityId && e.target !== f.entityId) return false;
  if (f.validFrom !== undefined && (e.tValid === null || e.tValid < f.validFrom)) return false;
  if (f.validTo !== undefined && (e.tValid === null || e.tValid > f.validTo)) return false;
  if (f.metadata) {
    const ep = episodeOf?.(e.episodeId);
    if (!ep || !matchesMetadata(ep.metadata, f.metadata)) return false;
  }
  return true;
}

/** True when the filter filters nothing (every field absent). */
export function isOpenFilter(f: EdgeFilter | undefined): boolean {
  if (!f) return true;
  return (
    SCOPE_FIELDS.every((k) => f[k] === undefined) &&
    f.relations === undefined &&
    f.entityId === undefined &&
    f.validFrom === undefined &&
    f.validTo === undefined &&
    (f.metadata === undefined || Object.keys(f.metadata).length === 0)
  );
}

/** The filters as the api and the wire take them (`relation`: one or several). */
export interface FilterInput extends ScopeFilter {
  relation?: string | readonly string[];
  entityId?: string;
  validFrom?: number;
  validTo?: number;
  metadata?: Record<string, MetadataValue>;
}

/** The store's fact filter of `f`; undefined when it filters nothing. */
export function edgeFilterOf(f: FilterInput): EdgeFilter | undefined {
  const out: EdgeFilter = { ...episodeFilterOf(f) };
  if (f.relation !== undefined) out.relations = typeof f.relation === "string" ? [f.relation] : [...f.relation];
  if (f.entityId !== undefined) out.entityId = f.entityId;
  if (f.validFrom !== undefined) out.validFrom = f.validFrom;
  if (f.validTo !== undefined) out.validTo = f.validTo;
  return isOpenFilter(out) ? undefined : out;
}

/** The store's episode filter of `f` (scope and metadata); undefined when it filters nothing. */
export function episodeFilterOf(f: FilterInput): EpisodeFilter | undefined {
  const out: EpisodeFilter = {};
  for (const k of SCOPE_FIELDS) if (f[k] !== undefined) out[k] = f[k];
  if (f.metadata !== undefined && Object.keys(f.metadata).length) out.metadata = f.metadata;
  return isOpenFilter(out) ? undefined : out;
}
