// HTTP conditional requests (RFC 9110 §13): entity tags and the If-Match / If-None-Match lists that name them.

/** `"*"`, or the entity tags of the list as written (`"abc"`, `W/"abc"`); undefined when the header is absent or empty. */
export type EntityTagList = "*" | string[];

/**
 * Parses an If-Match / If-None-Match value. A comma may sit inside a tag's quotes, so the list is scanned rather
 * than split; a member that is not a well-formed entity tag is kept as written and never matches anything.
 */
export function entityTags(header: string | undefined): EntityTagList | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (value === "*") return "*";
  const tags: string[] = [];
  let i = 0;
  while (i < value.length) {
    while (i < value.length && (value[i] === "," || value[i] === " " || value[i] === "\t")) i++;
    if (i >= value.length) break;
    const start = i;
    if (value.startsWith('W/"', i)) i += 2;
    if (value[i] === '"') {
      const close = value.indexOf('"', i + 1);
      i = close < 0 ? value.length : close + 1;
    } else {
      while (i < value.length && value[i] !== ",") i++;
    }
    tags.push(value.slice(start, i).trim());
  }
  return tags.length ? tags : undefined;
}

const WELL_FORMED = /^(W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;

/** Strong comparison: both strong and equal. */
export const strongMatch = (a: string, b: string) => WELL_FORMED.test(a) && !a.startsWith("W/") && !b.startsWith("W/") && a === b;

/** Weak comparison: equal once a `W/` prefix is dropped from either. */
export const weakMatch = (a: string, b: string) =>
  WELL_FORMED.test(a) && WELL_FORMED.test(b) && a.replace(/^W\//, "") === b.replace(/^W\//, "");

/** Whether If-Match lets a write go ahead on a resource whose current tag is `current` (null: it does not exist). */
export function ifMatchHolds(list: EntityTagList | undefined, current: string | null): boolean {
  if (list === undefined) return true;
  if (current === null) return false;
  return list === "*" || list.some((t) => strongMatch(t, current));
}

/** Whether If-None-Match names the current representation (a GET then answers 304 Not Modified). */
export function ifNoneMatchHits(list: EntityTagList | undefined, current: string): boolean {
  if (list === undefined) return false;
  return list === "*" || list.some((t) => weakMatch(t, current));
}
