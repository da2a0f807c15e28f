// One walk over a document to find its `$ref`s: internal ones are checked, same-origin external ones resolved, others reported.
import type { StepBudget } from "./limits.js";
import { pointerSpeller, type Trail } from "./pointer.js";
import type { SpecIssue } from "./spec-types.js";

export interface RefReport {
  warnings: SpecIssue[];
  /** References deliberately not followed (another origin, no URL to resolve against): not defects of the document. */
  notices: SpecIssue[];
  /** The path item under `paths[key]`, following its `$ref` (internal or resolved external). */
  pathItem(key: string): unknown;
}

/** Fetches and parses a same-origin document; rejects when it cannot. */
export type ExternalLoader = (url: URL) => Promise<unknown>;

const unescapeToken = (s: string) => s.replace(/~1/g, "/").replace(/~0/g, "~");
const isObject = (v: unknown): v is Record<string, unknown> & { $ref?: unknown } => typeof v === "object" && v !== null;

/** Resolves JSON Pointer fragments inside one document; undefined when absent. */
export type PointerResolver = (fragment: string) => unknown;

/** The tokens of a fragment (`#/a/b`, `/a/b`, `#` or empty for the root); undefined when it is no pointer. */
function pointerTokens(fragment: string): string[] | undefined {
  let pointer = fragment.startsWith("#") ? fragment.slice(1) : fragment;
  if (pointer === "") return [];
  try {
    pointer = decodeURIComponent(pointer);
  } catch {
    return undefined;
  }
  if (!pointer.startsWith("/")) return undefined;
  return pointer.slice(1).split("/").map(unescapeToken);
}

const IN_PROGRESS = Symbol("in progress");

interface Frame {
  fragment: string;
  tokens: string[];
  next: number;
  node: unknown;
  /** The reference met at token `next` was followed: its target is in `node`, and the token is taken from it. */
  followed: boolean;
}

/**
 * A resolver over `root` that remembers every fragment it resolved. A pointer may run through another internal
 * `$ref` (`#/components/schemas/A/properties/b/items` where `b` is a `$ref`): the reference is followed on the way,
 * as the resolvers of the references do. Each distinct fragment is resolved once, with an explicit stack rather than
 * recursion, so pointers that run through references that run through references cost work linear in their text
 * (a 900-byte chain of them took minutes when each was followed afresh, issue #24); a fragment met again while it is
 * being resolved is a cycle, and resolves to nothing. Each token spends one step of `budget`.
 */
export function pointerResolver(root: unknown, budget?: StepBudget): PointerResolver {
  const done = new Map<string, unknown>();
  const open = (fragment: string): Frame | undefined => {
    const tokens = pointerTokens(fragment);
    budget?.spend(1 + (tokens?.length ?? 0));
    if (!tokens) {
      done.set(fragment, undefined);
      return undefined;
    }
    done.set(fragment, IN_PROGRESS);
    return { fragment, tokens, next: 0, node: root, followed: false };
  };
  return (fragment) => {
    if (done.has(fragment)) {
      const known = done.get(fragment);
      return known === IN_PROGRESS ? undefined : known;
    }
    const first = open(fragment);
    if (!first) return undefined;
    const stack: Frame[] = [first];
    try {
      while (stack.length) {
        const top = stack[stack.length - 1]!;
        let result: unknown = top.node;
        let finished = top.next >= top.tokens.length;
        if (!finished) {
          const token = top.tokens[top.next]!;
          const node = top.node;
          if (!top.followed && isObject(node) && !Object.hasOwn(node, token) && typeof node.$ref === "string") {
            top.followed = true;
            const ref = node.$ref;
            if (!ref.startsWith("#")) top.node = undefined;
            else if (done.has(ref)) {
              const known = done.get(ref);
              top.node = known === IN_PROGRESS ? undefined : known;
            } else {
              const inner = open(ref);
              if (inner) {
                stack.push(inner);
                continue;
              }
              top.node = undefined;
            }
          }
          top.followed = false;
          const at = top.node;
          if (!isObject(at) || !Object.hasOwn(at, token)) {
            result = undefined;
            finished = true;
          } else {
            top.node = at[token];
            top.next++;
            continue;
          }
        }
        if (finished) {
          stack.pop();
          done.set(top.fragment, result);
          const parent = stack[stack.length - 1];
          if (parent) parent.node = result;
        }
      }
    } catch (e) {
      // out of steps mid-way: what was being resolved is not known, not missing
      for (const f of stack) done.delete(f.fragment);
      throw e;
    }
    return done.get(fragment);
  };
}

/** Resolves one fragment inside `root` (see pointerResolver; several fragments of one document share a resolver). */
export function resolvePointer(root: unknown, fragment: string): unknown {
  return pointerResolver(root)(fragment);
}

interface FoundRef {
  ref: string;
  /** JSON Pointer of the object holding the `$ref`. */
  at: string;
}

/** Every `$ref` string of the document, skipping `example` values and `x-` extensions (data, not references). */
export function collectRefs(root: unknown, budget?: StepBudget): FoundRef[] {
  const found: FoundRef[] = [];
  const seen = new Set<object>();
  const pointerOf = pointerSpeller();
  // pointers are spelled only for objects holding a `$ref` (see pointer.ts)
  const stack: Array<[unknown, Trail | undefined]> = [[root, undefined]];
  while (stack.length) {
    const [node, trail] = stack.pop()!;
    if (!isObject(node) || seen.has(node)) continue;
    // YAML aliases share objects: visit each once, or a small document could walk forever.
    seen.add(node);
    budget?.spend();
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) if (isObject(node[i])) stack.push([node[i], { parent: trail, key: i }]);
      continue;
    }
    for (const key in node) {
      const v = (node as Record<string, unknown>)[key];
      if (key === "$ref") {
        if (typeof v === "string") found.push({ ref: v, at: pointerOf(trail) });
        continue;
      }
      if (!isObject(v) || key === "example" || key.startsWith("x-")) continue;
      stack.push([v, { parent: trail, key }]);
    }
  }
  return found;
}

export interface CheckRefsOptions {
  /** Where the document was fetched from; relative references resolve against it. */
  baseUrl?: string;
  load?: ExternalLoader;
  /** Distinct external documents fetched at most. */
  maxDocuments?: number;
  /** Work allowed (see limits.ts); none: unbounded. */
  budget?: StepBudget;
  /** The document's resolver, when the caller shares it with other checks. */
  resolve?: PointerResolver;
}

/** Checks every reference; fetches same-origin external documents (once each) to resolve theirs. */
export async function checkRefs(document: Record<string, unknown>, options: CheckRefsOptions = {}): Promise<RefReport> {
  const warnings: SpecIssue[] = [];
  const notices: SpecIssue[] = [];
  const budget = options.budget;
  const refs = collectRefs(document, budget);
  const resolve = options.resolve ?? pointerResolver(document, budget);
  const base = options.baseUrl ? new URL(options.baseUrl) : undefined;
  const internal = new Map<string, boolean>();
  const externalDocs = new Map<
    string,
    Promise<{ ok: true; value: unknown; resolve: PointerResolver } | { ok: false; message: string; notice?: boolean }>
  >();
  const maxDocs = options.maxDocuments ?? 20;

  const loadDoc = (url: URL) => {
    const key = url.href;
    let p = externalDocs.get(key);
    if (!p) {
      p =
        externalDocs.size >= maxDocs
          ? Promise.resolve({ ok: false as const, notice: true, message: `not fetched: more than ${maxDocs} external documents` })
          : options.load
            ? options.load(url).then(
                (value) => ({ ok: true as const, value, resolve: pointerResolver(value, budget) }),
                (e: unknown) => ({ ok: false as const, message: `could not load ${key}: ${(e as Error).message}` }),
              )
            : Promise.resolve({ ok: false as const, notice: true, message: "external references are not fetched here" });
      externalDocs.set(key, p);
    }
    return p;
  };

  const targets = new Map<string, unknown>();
  const pending: Array<Promise<void>> = [];
  for (const { ref, at } of refs) {
    if (ref.startsWith("#")) {
      let ok = internal.get(ref);
      if (ok === undefined) {
        ok = resolve(ref) !== undefined;
        internal.set(ref, ok);
      }
      if (!ok) warnings.push({ path: at, message: `dangling reference ${ref}` });
      continue;
    }
    let target: URL;
    try {
      target = base ? new URL(ref, base) : new URL(ref);
    } catch {
      notices.push({ path: at, message: `reference ${ref} cannot be resolved without the document's URL` });
      continue;
    }
    if (!base || target.origin !== base.origin || (target.protocol !== "http:" && target.protocol !== "https:")) {
      notices.push({ path: at, message: `reference ${ref} points outside the document's origin: not fetched` });
      continue;
    }
    const fragment = target.hash;
    target.hash = "";
    pending.push(
      loadDoc(target).then((r) => {
        if (!r.ok) (r.notice ? notices : warnings).push({ path: at, message: r.message });
        else {
          const value = r.resolve(fragment || "#");
          if (value === undefined) warnings.push({ path: at, message: `dangling reference ${ref}` });
          else targets.set(`${target.href}${fragment}`, value);
        }
      }),
    );
  }
  await Promise.all(pending);

  const paths = (isObject(document.paths) ? document.paths : {}) as Record<string, unknown>;
  return {
    warnings,
    notices,
    pathItem(key) {
      const item = paths[key];
      if (!isObject(item) || typeof item.$ref !== "string") return item;
      const ref = item.$ref;
      if (ref.startsWith("#")) return resolve(ref);
      try {
        const u = base ? new URL(ref, base) : new URL(ref);
        return targets.get(u.href);
      } catch {
        return undefined;
      }
    },
  };
}
