// The hidden metadata block at the end of stored message bodies: `<!-- cs:key=value;key=value -->`.
// Written by the service on customer messages; parsed for identity and dedup; stripped by clients for display.
const OPEN = "<!-- cs:";
const CLOSE = "-->";

export type Metadata = Record<string, string>;

/** Decodes a percent-encoded value; a malformed escape is kept as written rather than failing the read. */
function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Where the block sits: start of the last `<!-- cs:` and the index just past its closing `-->`. */
function locate(body: string): { start: number; inner: string; end: number } | undefined {
  const start = body.lastIndexOf(OPEN);
  if (start === -1) return undefined;
  const close = body.indexOf(CLOSE, start + OPEN.length);
  if (close === -1) return undefined;
  return { start, inner: body.slice(start + OPEN.length, close), end: close + CLOSE.length };
}

/** Serialises a block; keys and values are URL-encoded so `;`, `=` and `-->` cannot break it. */
export function formatMetadata(meta: Metadata): string {
  const pairs = Object.entries(meta).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
  return `${OPEN}${pairs.join(";")} ${CLOSE}`;
}

/** Appends a block to a body, separated by a blank line (removed again by `stripMetadata`). */
export function withMetadata(body: string, meta: Metadata): string {
  return `${body}\n\n${formatMetadata(meta)}`;
}

/** Reads the last block of a body; `undefined` when there is none. */
export function parseMetadata(body: string | null | undefined): Metadata | undefined {
  if (!body) return undefined;
  const at = locate(body);
  if (!at) return undefined;
  const meta: Metadata = {};
  for (const part of at.inner.trim().split(";")) {
    if (!part) continue;
    const eq = part.indexOf("=");
    const key = decode((eq === -1 ? part : part.slice(0, eq)).trim());
    if (!key) continue;
    // defineProperty: a key named `__proto__` is data, never the object's prototype
    Object.defineProperty(meta, key, {
      value: eq === -1 ? "" : decode(part.slice(eq + 1).trim()),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return meta;
}

/**
 * The body for display, exactly as docs/support.md#messages says: from the last `<!-- cs:` through the closing `-->`
 * is removed, together with the whitespace before it. Text after the block, if any, is kept.
 */
export function stripMetadata(body: string): string;
export function stripMetadata(body: string | null): string | null;
export function stripMetadata(body: string | null): string | null {
  if (body === null) return null;
  const at = locate(body);
  if (!at) return body;
  return body.slice(0, at.start).replace(/\s+$/, "") + body.slice(at.end);
}
