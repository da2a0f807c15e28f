// Opaque cursors: base64url JSON of a keyset position. Anything that does not decode is a 400, never a crash.
import { entriesError } from "../errors.js";
import type { EntryPosition } from "../store/types.js";

const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

function dec(cursor: string): unknown {
  try {
    return JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw entriesError("invalid_cursor");
  }
}

export const entryCursor = {
  encode: (p: EntryPosition) => enc(["e", p.dateCreated, p.id]),
  decode(cursor: string): EntryPosition {
    const v = dec(cursor);
    if (!Array.isArray(v) || v[0] !== "e" || typeof v[1] !== "number" || typeof v[2] !== "string") throw entriesError("invalid_cursor");
    return { dateCreated: v[1], id: v[2] };
  },
};

export const offsetCursor = {
  encode: (offset: number) => enc(["o", offset]),
  decode(cursor: string): number {
    const v = dec(cursor);
    if (!Array.isArray(v) || v[0] !== "o" || !Number.isSafeInteger(v[1]) || v[1] < 0) throw entriesError("invalid_cursor");
    return v[1];
  },
};
