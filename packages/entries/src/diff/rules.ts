// The kit's rules on top of api-smart-diff's verdicts, each for a case the library leaves unclassified or judges against
// what a client sees (docs/entries.md#spec-diffs): security requirements, removed response properties, OpenAPI 3.1 type
// lists, a new security scheme nobody requires yet, and changes inside reusable components (judged where they are used).
import type { ChangeKind } from "./types.js";

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** One change as the library reports it. */
export interface LibraryDiff {
  action: "add" | "remove" | "replace" | "rename";
  path: Array<string | number>;
  description?: string;
  before?: unknown;
  after?: unknown;
  type: string;
}

export interface Verdict {
  kind: ChangeKind;
  rule?: string;
  message?: string;
}

const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

/** `[method, path]` when the diff is inside an operation. */
export function operationOf(path: LibraryDiff["path"]): { method: string; path: string } | undefined {
  if (path[0] !== "paths" || path.length < 3 || !METHODS.has(String(path[2]))) return undefined;
  return { method: String(path[2]).toUpperCase(), path: String(path[1]) };
}

type Requirement = Record<string, string[]>;

/** A requirement list; none (or an empty list) means anyone may call. */
function requirements(v: unknown): Requirement[] {
  if (!Array.isArray(v) || v.length === 0) return [{}];
  return v.filter(isObject).map((r) => Object.fromEntries(Object.entries(r).map(([k, s]) => [k, Array.isArray(s) ? s.map(String) : []])));
}

/** `a` asks for no more than `b`: each scheme of `a` is in `b`, with no scope `b` lacks. */
const within = (a: Requirement, b: Requirement) => Object.entries(a).every(([k, scopes]) => b[k] && scopes.every((s) => b[k]!.includes(s)));

/** A client that met one of the `before` alternatives may fail every `after` alternative. */
export function securityNarrowed(before: unknown, after: unknown): boolean {
  const b = requirements(before);
  const a = requirements(after);
  return b.some((old) => !a.some((now) => within(now, old)));
}

const describe = (v: unknown) =>
  requirements(v)
    .map(
      (r) =>
        Object.entries(r)
          .map(([k, s]) => (s.length ? `${k} (${s.join(", ")})` : k))
          .join(" + ") || "none",
    )
    .join(" or ");

function effectiveSecurity(doc: Json, op: { method: string; path: string } | undefined): unknown {
  const item = op && isObject(doc.paths) ? doc.paths[op.path] : undefined;
  const operation = isObject(item) ? item[op!.method.toLowerCase()] : undefined;
  return isObject(operation) && "security" in operation ? operation.security : doc.security;
}

function securityVerdict(d: LibraryDiff, base: Json, head: Json): Verdict | undefined {
  const op = operationOf(d.path);
  const at = op ? d.path.indexOf("security") : d.path[0] === "security" ? 0 : -1;
  if (at < 0 || (op && at !== 3)) return undefined;
  const before = effectiveSecurity(base, op);
  const after = effectiveSecurity(head, op);
  const where = op ? `${op.method} ${op.path}` : "the API (operations without their own)";
  const narrowed = securityNarrowed(before, after);
  return {
    kind: narrowed ? "breaking" : "non-breaking",
    rule: "security-requirements",
    message: `[Changed] security requirements of ${where}: before ${describe(before)}; now ${describe(after)}${narrowed ? " (a client that met the old ones may be refused)" : ""}`,
  };
}

/** Where a schema node sits: what a client sends, or what it receives. */
function direction(path: LibraryDiff["path"]): "request" | "response" | undefined {
  if (path[0] !== "paths") return undefined;
  if (path.includes("responses")) return "response";
  if (path.includes("requestBody") || path.includes("parameters")) return "request";
  return undefined;
}

const typeSet = (v: unknown): Set<string> | undefined => {
  const list = typeof v === "string" ? [v] : Array.isArray(v) && v.every((t) => typeof t === "string") ? (v as string[]) : undefined;
  if (!list) return undefined;
  const s = new Set(list);
  if (s.has("number")) s.add("integer");
  return s;
};

/** 3.1 `type` lists: a request that accepts fewer types breaks senders, a response that may hold more breaks readers. */
function typeListVerdict(d: LibraryDiff): Verdict | undefined {
  if (d.action !== "replace" || d.path[d.path.length - 1] !== "type" || !(Array.isArray(d.before) || Array.isArray(d.after)))
    return undefined;
  const dir = direction(d.path);
  const b = typeSet(d.before);
  const a = typeSet(d.after);
  if (!dir || !b || !a) return undefined;
  const lost = [...b].some((t) => !a.has(t));
  const gained = [...a].some((t) => !b.has(t));
  const breaking = dir === "request" ? lost : gained;
  return { kind: breaking ? "breaking" : "non-breaking", rule: `${dir}-type-list` };
}

/** A property removed from a response: a client reading it breaks (the library calls it non-breaking). */
function removedResponseProperty(d: LibraryDiff): Verdict | undefined {
  if (d.action !== "remove" || direction(d.path) !== "response" || d.path[d.path.length - 2] !== "properties") return undefined;
  return { kind: "breaking", rule: "response-property-removed" };
}

function nodeAt(doc: unknown, path: LibraryDiff["path"]): unknown {
  let at = doc;
  for (const k of path) {
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Json)[k as string];
  }
  return at;
}

/**
 * The library diffs a 3.1 `type` list item by item (`["string", "null"]` to `["string", "number", "null"]` reads as
 * one replaced and one added item); this merges those into one replacement of the whole list, judged by typeListVerdict.
 */
export function collapseTypeLists(diffs: LibraryDiff[], base: Json, head: Json): LibraryDiff[] {
  const out: LibraryDiff[] = [];
  const merged = new Map<string, LibraryDiff>();
  for (const d of diffs) {
    const n = d.path.length;
    if (n < 2 || d.path[n - 2] !== "type" || typeof d.path[n - 1] !== "number") {
      out.push(d);
      continue;
    }
    const path = d.path.slice(0, -1);
    const key = JSON.stringify(path);
    if (merged.has(key)) continue;
    const one: LibraryDiff = { action: "replace", path, before: nodeAt(base, path), after: nodeAt(head, path), type: d.type };
    merged.set(key, one);
    out.push(one);
  }
  return out;
}

const REUSABLE = new Set(["schemas", "responses", "parameters", "requestBodies", "headers", "examples", "links", "callbacks", "pathItems"]);

/**
 * The kit's verdict on one library diff: `null` drops it (a change inside a reusable component, which the library
 * also reports, resolved, at each place the component is used, where its effect on clients is judged), undefined
 * keeps the library's.
 */
export function kitVerdict(d: LibraryDiff, base: Json, head: Json): Verdict | null | undefined {
  if (d.path[0] === "components" && REUSABLE.has(String(d.path[1]))) return null;
  if (d.path[0] === "components" && d.path[1] === "securitySchemes" && d.path.length === 3 && d.action === "add")
    return { kind: "non-breaking", rule: "security-scheme-added" };
  return securityVerdict(d, base, head) ?? typeListVerdict(d) ?? removedResponseProperty(d);
}
