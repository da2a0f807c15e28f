// The customers' ratings listed for agents (docs/support.md#ratings): newest first a page at a time, with a summary
// (count, average, count per score) over the whole filter. Only the service's own store keeps ratings.
import { decodeCursor, encodeCursor, isCursorId, isCursorInstant } from "@mountkit/core";
import { supportError } from "../errors.js";
import type { RatedConversation, RatingCounts, RatingQuery } from "../store/rating-types.js";
import type { StoreCx } from "./conversation-writes.js";

export interface RatingSummary {
  count: number;
  /** Mean score rounded to two decimals; null when nothing matches. */
  average: number | null;
  byScore: RatingCounts;
}

export interface RatingsPage {
  items: RatedConversation[];
  summary: RatingSummary;
  /** The next page's cursor; null on the last page. */
  next: string | null;
}

export interface RatingsQuery extends RatingQuery {
  /** A `next` of an earlier page. */
  cursor?: string;
  limit: number;
}

export type AgentRatings = (q: RatingsQuery) => Promise<RatingsPage>;

function decodeRatingCursor(cursor: string): { ratedAt: string; id: string } {
  const v = decodeCursor(cursor);
  if (v && v.length === 2 && isCursorInstant(v[0]) && isCursorId(v[1])) return { ratedAt: v[0], id: v[1] };
  throw supportError("invalid_request", {
    message: "invalid cursor",
    details: [{ path: "query.cursor", message: "not a cursor returned by this API" }],
  });
}

/** An instant in the form the clock writes (`toISOString()`), so stores compare it as text. */
function instant(value: string | undefined, path: string): string | undefined {
  if (value === undefined) return undefined;
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw supportError("invalid_request", { message: `invalid ${path}`, details: [{ path, message: "not a timestamp" }] });
  return new Date(t).toISOString();
}

export function summarize(byScore: RatingCounts): RatingSummary {
  let count = 0;
  let sum = 0;
  for (const [score, n] of Object.entries(byScore)) {
    count += n;
    sum += Number(score) * n;
  }
  return { count, average: count ? Math.round((sum / count) * 100) / 100 : null, byScore };
}

export function agentRatings(x: StoreCx): AgentRatings {
  return async (q) => {
    const filter: RatingQuery = {
      productSlug: q.productSlug,
      ...(q.score !== undefined ? { score: q.score } : {}),
      ...(q.since !== undefined ? { since: instant(q.since, "query.since") } : {}),
      ...(q.until !== undefined ? { until: instant(q.until, "query.until") } : {}),
    };
    const after = q.cursor ? decodeRatingCursor(q.cursor) : undefined;
    const [rows, counts] = await Promise.all([
      x.store.ratings.list({ ...filter, ...(after ? { after } : {}), limit: q.limit + 1 }),
      x.store.ratings.counts(filter),
    ]);
    const items = rows.slice(0, q.limit);
    const last = items[items.length - 1];
    const next = rows.length > q.limit && last ? encodeCursor([last.ratedAt, last.conversationId]) : null;
    return { items, summary: summarize(counts), next };
  };
}
