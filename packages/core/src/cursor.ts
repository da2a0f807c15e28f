// Opaque page cursors: base64url JSON arrays of a keyset position. Decoding is strict, because a cursor's
// values go straight into store queries: only safe integers and NUL-free ids of bounded length pass.

/** Cursors the kit writes stay well under this; anything longer is not one of ours. */
const CURSOR = /^[A-Za-z0-9_-]{1,1000}$/;

// btoa/atob rather than Buffer: the core also runs on fetch runtimes without Node's globals
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Unpadded base64url of `bytes`, as Node's `Buffer#toString("base64url")` writes it, on every runtime. */
export function base64url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function encodeCursor(position: readonly (string | number)[]): string {
  return base64url(utf8.encode(JSON.stringify(position)));
}

/** The position array inside a cursor, or null when the text is not a base64url JSON array. */
export function decodeCursor(cursor: string): unknown[] | null {
  if (!CURSOR.test(cursor)) return null;
  try {
    const bin = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    const v: unknown = JSON.parse(fromUtf8.decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
    return Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

/** A non-negative safe integer: an epoch-ms time, an offset or a sequence number. */
export const isCursorInteger = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/** An id as stores hold them: non-empty, bounded, no NUL. */
export const isCursorId = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= 500 && !v.includes("\0");

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/;

/** An ISO-8601 UTC timestamp as the kit writes them (`2026-01-02T03:04:05.678Z`). */
export const isCursorInstant = (v: unknown): v is string => typeof v === "string" && ISO_INSTANT.test(v) && !Number.isNaN(Date.parse(v));
