// Display-side handling of the hidden block `<!-- cs:key=value;... -->` that ends stored message bodies.
const OPEN = "<!-- cs:";
const CLOSE = "-->";

/** The body for display: the last `<!-- cs:` through its closing `-->` is removed, with the whitespace before it. */
export function displayBody(body: string | null): string {
  if (body === null) return "";
  const start = body.lastIndexOf(OPEN);
  if (start === -1) return body;
  const close = body.indexOf(CLOSE, start + OPEN.length);
  if (close === -1) return body;
  return body.slice(0, start).replace(/\s+$/, "") + body.slice(close + CLOSE.length);
}

/** Reads the last block's URL-encoded `key=value` pairs; undefined when the body has none. */
export function readMetadata(body: string | null): Record<string, string> | undefined {
  if (!body) return undefined;
  const start = body.lastIndexOf(OPEN);
  if (start === -1) return undefined;
  const close = body.indexOf(CLOSE, start + OPEN.length);
  if (close === -1) return undefined;
  const out: Record<string, string> = {};
  for (const part of body
    .slice(start + OPEN.length, close)
    .trim()
    .split(";")) {
    if (!part) continue;
    const eq = part.indexOf("=");
    const dec = (s: string) => {
      try {
        return decodeURIComponent(s.trim());
      } catch {
        return s.trim();
      }
    };
    const key = dec(eq === -1 ? part : part.slice(0, eq));
    // defineProperty: a key named `__proto__` is data, never the object's prototype
    if (key)
      Object.defineProperty(out, key, {
        value: eq === -1 ? "" : dec(part.slice(eq + 1)),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return out;
}
