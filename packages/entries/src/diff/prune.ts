// Drops from both documents what cannot yield a change before the library compares them: path items that are equal and
// reach no changed component, then the components no remaining path item reaches. The library resolves every `$ref` at each use and walks the whole document (about 3 s
// for a 1 MB spec, 20 s for 7 MB, measured), so a few changed operations in a large spec would otherwise cost that much.

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Structural equality, key order ignored (documents are depth-checked before they get here). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], bb[i])) return false;
    return true;
  }
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (!Object.hasOwn(b, k) || !deepEqual((a as Json)[k], (b as Json)[k])) return false;
  return true;
}

/** `components/<kind>/<name>` of an internal reference, `""` for an external one, undefined for one pointing elsewhere. */
function componentOf(ref: string): string | undefined {
  if (!ref.startsWith("#")) return "";
  const m = /^#\/components\/([^/]+)\/([^/]+)/.exec(ref);
  return m ? `${m[1]}/${decodeURIComponent(m[2]!).replace(/~1/g, "/").replace(/~0/g, "~")}` : undefined;
}

/** The components a node refers to; undefined when a reference points outside `components` (no pruning then). */
function refsOf(node: unknown): Set<string> | undefined {
  const out = new Set<string>();
  const stack = [node];
  while (stack.length) {
    const n = stack.pop();
    if (typeof n !== "object" || n === null) continue;
    if (Array.isArray(n)) {
      for (const v of n) stack.push(v);
      continue;
    }
    const ref = (n as Json).$ref;
    if (typeof ref === "string") {
      const c = componentOf(ref);
      if (c === undefined) return undefined;
      if (c) out.add(c);
    }
    for (const k in n) stack.push((n as Json)[k]);
  }
  return out;
}

function components(doc: Json): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (!isObject(doc.components)) return out;
  for (const [kind, group] of Object.entries(doc.components))
    if (isObject(group)) for (const [name, value] of Object.entries(group)) out.set(`${kind}/${name}`, value);
  return out;
}

/** Components that differ between the two sides, or refer (directly or not) to one that does. */
function affectedComponents(base: Map<string, unknown>, head: Map<string, unknown>): Set<string> | undefined {
  const users = new Map<string, string[]>();
  const affected = new Set<string>();
  for (const key of new Set([...base.keys(), ...head.keys()])) {
    if (!base.has(key) || !head.has(key) || !deepEqual(base.get(key), head.get(key))) affected.add(key);
    for (const side of [base, head]) {
      if (!side.has(key)) continue;
      const refs = refsOf(side.get(key));
      if (!refs) return undefined;
      for (const r of refs) users.set(r, [...(users.get(r) ?? []), key]);
    }
  }
  const queue = [...affected];
  while (queue.length)
    for (const user of users.get(queue.pop()!) ?? []) {
      if (affected.has(user)) continue;
      affected.add(user);
      queue.push(user);
    }
  return affected;
}

/** Removes unchanged path items from both documents, in place; changes nothing when references make that unsafe. */
export function pruneUnchanged(base: Json, head: Json): { pruned: number } {
  if (!isObject(base.paths) || !isObject(head.paths)) return { pruned: 0 };
  const affected = affectedComponents(components(base), components(head));
  if (!affected) return { pruned: 0 };
  const bp = base.paths;
  const hp = head.paths;
  let pruned = 0;
  for (const key of Object.keys(bp)) {
    if (!Object.hasOwn(hp, key) || !deepEqual(bp[key], hp[key])) continue;
    const refs = refsOf(bp[key]);
    if (!refs || [...refs].some((r) => affected.has(r))) continue;
    delete bp[key];
    delete hp[key];
    pruned++;
  }
  for (const doc of [base, head]) dropUnreached(doc, reached(doc));
  return { pruned };
}

/** Components the remaining path items refer to, directly or through other components. */
function reached(doc: Json): Set<string> {
  const all = components(doc);
  const seen = new Set<string>();
  const queue = [...(refsOf(doc.paths) ?? [])];
  while (queue.length) {
    const key = queue.pop()!;
    if (seen.has(key)) continue;
    seen.add(key);
    for (const r of refsOf(all.get(key)) ?? []) queue.push(r);
  }
  return seen;
}

/**
 * Drops reusable components nothing left refers to: the library would compare them too, and the kit reports changes
 * in components only where they are used (rules.ts). Security schemes stay: requirements name them, not `$ref`s.
 */
function dropUnreached(doc: Json, keep: Set<string>): void {
  if (!isObject(doc.components)) return;
  for (const [kind, group] of Object.entries(doc.components)) {
    if (kind === "securitySchemes" || !isObject(group)) continue;
    for (const name of Object.keys(group)) if (!keep.has(`${kind}/${name}`)) delete group[name];
  }
}
