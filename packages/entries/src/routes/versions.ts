// An entry's version on the wire: its ETag is its `dateModified` (every change moves it forward by at least 1 ms),
// If-Match makes a write conditional on it (412 when stale), If-None-Match makes a read answer 304.
import { entityTags, ifMatchHolds, ifNoneMatchHits, type RequestContext } from "@mountkit/core";
import type * as z from "zod";
import type { EntriesApi } from "../api.js";
import { principalOf } from "../auth/middleware.js";
import { entriesError, errorSchema } from "../errors.js";
import type { Entry } from "../store/types.js";

export const etagOf = (e: Pick<Entry, "dateModified">) => `"${e.dateModified.toString(36)}"`;

/** The response headers of a representation of `e`. */
export const versionHeaders = (e: Pick<Entry, "dateModified">) => ({
  etag: etagOf(e),
  "last-modified": new Date(e.dateModified).toUTCString(),
});

/** Whether the request's If-None-Match names `e` as it is (the GET answers 304). */
export const notModified = (ctx: RequestContext<any, any, any>, e: Pick<Entry, "dateModified">) =>
  ifNoneMatchHits(entityTags(ctx.headers["if-none-match"]), etagOf(e));

/**
 * The version a write must find (the domain's `expectModified`), from If-Match: none without the header or with
 * `*` (the entry need only exist); 412 when the entry is already past every tag the header names. The domain
 * compares again as it writes, so a change landing in between still answers 412. A caller who is not the owner
 * gets the domain's 403, whatever the header says.
 */
export async function expectedVersion(
  api: EntriesApi,
  ctx: RequestContext<any, any, any>,
  params: { typeId: string; id: string },
): Promise<number | undefined> {
  const list = entityTags(ctx.headers["if-match"]);
  if (list === undefined || list === "*") return undefined;
  const current = await api.get(params);
  if (current.ownerId !== principalOf(ctx).sub) return undefined;
  if (!ifMatchHolds(list, etagOf(current))) throw entriesError("precondition_failed");
  return current.dateModified;
}

export const VERSION_HEADERS = {
  ETag: { description: "The entry's version, for `If-Match` and `If-None-Match`", required: true },
  "Last-Modified": { description: "`dateModified` as an HTTP date", required: true },
};

/** A response carrying the entry with its version headers. */
export const versioned = (description: string, schema: z.ZodType) => ({ description, schema, headers: VERSION_HEADERS });

export const stale = {
  description: "`If-Match` names a version the entry has moved past: nothing changed; read it again",
  schema: errorSchema,
};

/** A write waits a bounded time for the database's write lock, and a catalogued type's for the validation address. */
export const unavailable = {
  description: "Busy or unavailable (the database's write lock, the validation address): nothing was saved; retry later",
  schema: errorSchema,
  headers: { "Retry-After": { description: "Seconds to wait before retrying (when the database was busy)" } },
};
