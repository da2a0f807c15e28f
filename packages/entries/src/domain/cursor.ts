// Opaque cursors: base64url JSON of a keyset position. Anything that does not decode to a position this
// service wrote (safe integers, NUL-free ids) is a 400 on every store, never a crash.
import { decodeCursor, encodeCursor, isCursorId, isCursorInteger } from "@mountkit/core";
import { entriesError } from "../errors.js";
import type { EntryPosition } from "../store/types.js";

export const entryCursor = {
  encode: (p: EntryPosition) => encodeCursor(["e", p.dateCreated, p.id]),
  decode(cursor: string): EntryPosition {
    const v = decodeCursor(cursor);
    if (!v || v.length !== 3 || v[0] !== "e" || !isCursorInteger(v[1]) || !isCursorId(v[2])) throw entriesError("invalid_cursor");
    return { dateCreated: v[1], id: v[2] };
  },
};

/** A cursor holding one integer under `tag`: anything else is a 400. */
function integerCursor(tag: string) {
  return {
    encode: (n: number) => encodeCursor([tag, n]),
    decode(cursor: string): number {
      const v = decodeCursor(cursor);
      if (!v || v.length !== 2 || v[0] !== tag || !isCursorInteger(v[1])) throw entriesError("invalid_cursor");
      return v[1];
    },
  };
}

/** A position in an inventory's operations. */
export const offsetCursor = integerCursor("o");

/** A position in an entry's revisions, newest first: the number of the last one seen. */
export const revisionCursor = integerCursor("r");
