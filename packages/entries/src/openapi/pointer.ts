// JSON Pointer helpers for the document walks: a walk keeps a parent-linked trail per container and spells a
// pointer only for what it reports, instead of building one string per node of a multi-MB document.

/** `~` and `/` escaped per RFC 6901; most keys need neither, so the test comes first. */
export const escapeToken = (s: string): string => (s.includes("~") || s.includes("/") ? s.replace(/~/g, "~0").replace(/\//g, "~1") : s);

/** Where a container sits: its parent's trail and its key (or index) there. */
export interface Trail {
  parent: Trail | undefined;
  key: string | number;
}

/** The JSON Pointer of a trail (empty for the root). */
export function pointerOf(trail: Trail | undefined, ...more: Array<string | number>): string {
  const tokens: string[] = [];
  for (let t = trail; t; t = t.parent) tokens.push(typeof t.key === "number" ? String(t.key) : escapeToken(t.key));
  tokens.reverse();
  for (const k of more) tokens.push(typeof k === "number" ? String(k) : escapeToken(k));
  return tokens.length ? `/${tokens.join("/")}` : "";
}

/**
 * `pointerOf` that remembers what it spelled for each trail, so that many pointers under one long key (thousands of
 * `$ref`s under a 7 KB path template) escape that key once, not once each (issue #24).
 */
export function pointerSpeller(): (trail: Trail | undefined) => string {
  const spelled = new Map<Trail, string>();
  const spell = (trail: Trail | undefined): string => {
    if (!trail) return "";
    let s = spelled.get(trail);
    if (s === undefined) {
      s = `${spell(trail.parent)}/${typeof trail.key === "number" ? String(trail.key) : escapeToken(trail.key)}`;
      spelled.set(trail, s);
    }
    return s;
  };
  return spell;
}
