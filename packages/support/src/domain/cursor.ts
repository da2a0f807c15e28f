// Keyset pages over conversations (updatedAt desc, id desc): the last row's position as an opaque cursor.
// Strict on the way in: only a position this service wrote reaches a store, so every store answers alike.
import { decodeCursor, encodeCursor, isCursorId, isCursorInstant } from "@mountkit/core";
import { supportError } from "../errors.js";
import type { ListConversationsQuery } from "../store/types.js";
import type { ConversationPage, ConversationPosition, CustomerScope } from "./backend.js";
import { isOpen, OPEN_STATUSES } from "./status.js";
import type { Summary } from "./views.js";

export type { ConversationPage, ConversationPosition };

export const encodeConversationCursor = (pos: ConversationPosition): string => encodeCursor([pos.updatedAt, pos.id]);

export function decodeConversationCursor(cursor: string): ConversationPosition {
  const v = decodeCursor(cursor);
  if (v && v.length === 2 && isCursorInstant(v[0]) && isCursorId(v[1])) return { updatedAt: v[0], id: v[1] };
  throw supportError("invalid_request", {
    message: "invalid cursor",
    details: [{ path: "query.cursor", message: "not a cursor returned by this API" }],
  });
}

const newestFirst = (x: Summary, y: Summary) =>
  x.updatedAt === y.updatedAt ? (x.id < y.id ? 1 : x.id > y.id ? -1 : 0) : x.updatedAt < y.updatedAt ? 1 : -1;

/** A page cut from a whole list (a remote backend that answers everything at once), in the stores' order. */
export function pageOf(list: readonly Summary[], page: ConversationPage): Summary[] {
  const { after } = page;
  const kept = list
    .filter((c) => !page.openOnly || isOpen(c.status))
    .filter((c) => !after || c.updatedAt < after.updatedAt || (c.updatedAt === after.updatedAt && c.id < after.id))
    .sort(newestFirst);
  return page.limit === undefined ? kept : kept.slice(0, page.limit);
}

/** The store query for one page of a customer's conversations (backends that keep them in the store). */
export function storePage({ productSlug, customerId, after, limit, openOnly }: CustomerScope & ConversationPage): ListConversationsQuery {
  return { productSlug, customerId, after, limit, ...(openOnly ? { statuses: [...OPEN_STATUSES] } : {}) };
}
