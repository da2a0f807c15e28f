// Keyset cursor over conversations (updatedAt desc, id desc): the last row's position, opaque to clients.
// Strict on the way in: only a position this service wrote reaches a store, so every store answers alike.
import { decodeCursor, encodeCursor, isCursorId, isCursorInstant } from "@mountkit/core";
import { supportError } from "../errors.js";

export interface ConversationPosition {
  updatedAt: string;
  id: string;
}

export const encodeConversationCursor = (pos: ConversationPosition): string => encodeCursor([pos.updatedAt, pos.id]);

export function decodeConversationCursor(cursor: string): ConversationPosition {
  const v = decodeCursor(cursor);
  if (v && v.length === 2 && isCursorInstant(v[0]) && isCursorId(v[1])) return { updatedAt: v[0], id: v[1] };
  throw supportError("invalid_request", {
    message: "invalid cursor",
    details: [{ path: "query.cursor", message: "not a cursor returned by this API" }],
  });
}
