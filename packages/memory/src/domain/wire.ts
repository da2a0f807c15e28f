// Wire forms of records (ISO-8601 times, open ends as null), opaque cursors and `asOf` parsing.
import { decodeCursor as decodeKeyset, encodeCursor as encodeKeyset, isCursorId, isCursorInteger, iso } from "@mountkit/core";
import { memoryError } from "../errors.js";
import type { Scope } from "./scope.js";
import type { EdgeRecord, EntityRecord, EpisodeRecord, PageAfter, PlaybookRecord } from "./types.js";

const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

/** A record's scope on the wire: every field, null when unscoped on that axis. */
export const scopeJson = (r: Scope) => ({ userId: r.userId ?? null, agentId: r.agentId ?? null, sessionId: r.sessionId ?? null });

export function edgeJson(e: EdgeRecord, score?: number) {
  return {
    id: e.id,
    source: e.source,
    target: e.target,
    relation: e.relation,
    fact: e.fact,
    tValid: isoOrNull(e.tValid),
    tInvalid: isoOrNull(e.tInvalid),
    tIngested: iso(e.tIngested),
    tExpired: isoOrNull(e.tExpired),
    episodeId: e.episodeId,
    invalidationReason: e.invalidationReason,
    invalidatedBy: e.invalidatedBy,
    ...scopeJson(e),
    ...(score === undefined ? {} : { score }),
  };
}
export type EdgeJson = ReturnType<typeof edgeJson>;

export function entityJson(e: EntityRecord) {
  return { id: e.id, name: e.name, kind: e.kind, aliases: e.aliases, createdAt: iso(e.createdAt), updatedAt: iso(e.updatedAt) };
}

export function episodeJson(e: EpisodeRecord) {
  return {
    id: e.id,
    content: e.content,
    metadata: e.metadata,
    occurredAt: iso(e.occurredAt),
    createdAt: iso(e.createdAt),
    status: e.status,
    error: e.error,
    entityIds: e.entityIds,
    edgeIds: e.edgeIds,
    processedAt: isoOrNull(e.processedAt),
    ...scopeJson(e),
  };
}
export type EpisodeJson = ReturnType<typeof episodeJson>;

export function playbookSummaryJson(p: PlaybookRecord) {
  return { slug: p.slug, title: p.title, episodes: p.episodeIds, createdAt: iso(p.createdAt), updatedAt: iso(p.updatedAt) };
}

export function encodeCursor(after: PageAfter | null): string | null {
  return after ? encodeKeyset([after.createdAt, after.id]) : null;
}

export function decodeCursor(cursor: string | undefined): PageAfter | null {
  if (cursor === undefined || cursor === "") return null;
  const value = decodeKeyset(cursor);
  if (!value || value.length !== 2 || !isCursorInteger(value[0]) || !isCursorId(value[1]))
    throw memoryError("invalid_cursor", { details: [{ path: "cursor", message: "not a cursor returned by this API" }] });
  return { createdAt: value[0], id: value[1] };
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** What `parseInstant` accepts, as a validation message says it. */
export const INSTANT_FORMS = "expected YYYY-MM-DD or an ISO-8601 timestamp with a timezone";

/**
 * `YYYY-MM-DD` means the end of that UTC day; otherwise an ISO-8601 timestamp with a zone.
 * Returns epoch ms or null when the text is not such a date.
 */
export function parseInstant(text: string, { endOfDay }: { endOfDay: boolean }): number | null {
  const d = DATE_ONLY.exec(text);
  if (d) {
    const [y, m, day] = [Number(d[1]), Number(d[2]), Number(d[3])];
    const start = Date.UTC(y, m - 1, day);
    const check = new Date(start);
    if (check.getUTCFullYear() !== y || check.getUTCMonth() !== m - 1 || check.getUTCDate() !== day) return null;
    return endOfDay ? start + 86_400_000 - 1 : start;
  }
  if (!DATE_TIME.test(text)) return null;
  const t = Date.parse(text);
  if (Number.isNaN(t)) return null;
  // Date.parse rolls over impossible days (Feb 30): compare the date part back
  const datePart = text.slice(0, 10);
  const offsetMatch = /([+-])(\d{2}):(\d{2})$/.exec(text);
  const offsetMs = offsetMatch ? (offsetMatch[1] === "-" ? -1 : 1) * (Number(offsetMatch[2]) * 60 + Number(offsetMatch[3])) * 60_000 : 0;
  if (iso(t + offsetMs).slice(0, 10) !== datePart) return null;
  return t;
}
