// Where one document has a `$ref` and the other the same place written out, api-smart-diff compares the reference
// object with the inline schema (a schema moved into `components` unchanged reads as removed properties and an added
// `allOf`). This pass resolves such a reference on its side so the library compares like with like. It descends only
// where both sides are written out, so its work is bounded by the inline side, cycles included; nodes it changes are
// copied, never written in place (a resolved target is shared by every place that refers to it).

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null;
const isRef = (v: unknown): v is Json & { $ref: string } => isObject(v) && !Array.isArray(v) && typeof v.$ref === "string";

/** The target of an internal reference, with the reference's siblings (3.1 allows a `description` beside it) on top. */
function resolve(root: Json, node: Json & { $ref: string }): unknown {
  const ref = node.$ref;
  if (!ref.startsWith("#/")) return node;
  let at: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    } catch {
      return node;
    }
    if (!isObject(at) || !Object.hasOwn(at, token)) return node;
    at = (at as Json)[token];
  }
  if (!isObject(at) || Array.isArray(at)) return node;
  const { $ref: _, ...siblings } = node;
  return Object.keys(siblings).length ? { ...at, ...siblings } : at;
}

/** References followed in a row (a `$ref` to a `$ref` ...) before giving up on one place. */
const MAX_HOPS = 32;

function settle(root: Json, node: unknown, other: unknown): unknown {
  let n = node;
  for (let hops = 0; hops < MAX_HOPS && isRef(n) && !isRef(other); hops++) {
    const next = resolve(root, n);
    if (next === n) break;
    n = next;
  }
  return n;
}

type Node = Json | unknown[];
const copy = (n: Node): Node => (Array.isArray(n) ? [...n] : { ...n });

function align(b: unknown, a: unknown, roots: [Json, Json]): [unknown, unknown] {
  if (!isObject(b) || !isObject(a)) return [b, a];
  b = settle(roots[0], b, a);
  a = settle(roots[1], a, b);
  if (!isObject(b) || !isObject(a) || isRef(b) || isRef(a) || Array.isArray(b) !== Array.isArray(a)) return [b, a];
  const bn = b as Node;
  const an = a as Node;
  let nb = bn;
  let na = an;
  const keys = Array.isArray(bn)
    ? [...bn.keys()].filter((i) => i < (an as unknown[]).length)
    : Object.keys(bn).filter((k) => Object.hasOwn(an, k));
  for (const k of keys) {
    const cb = (bn as Record<string | number, unknown>)[k];
    const ca = (an as Record<string | number, unknown>)[k];
    const [xb, xa] = align(cb, ca, roots);
    if (xb !== cb) {
      if (nb === bn) nb = copy(bn);
      (nb as Record<string | number, unknown>)[k] = xb;
    }
    if (xa !== ca) {
      if (na === an) na = copy(an);
      (na as Record<string | number, unknown>)[k] = xa;
    }
  }
  return [nb, na];
}

/** Resolves, under `paths`, each `$ref` whose counterpart in the other document is written out (both replaced, not mutated). */
export function alignReferences(base: Json, head: Json): void {
  const [b, a] = align(base.paths, head.paths, [base, head]);
  base.paths = b;
  head.paths = a;
}
