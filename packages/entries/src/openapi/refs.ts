// One walk over a document to find its `$ref`s: internal ones are checked, same-origin external ones resolved, others reported.
import type { SpecIssue } from "./parse.js";
import { pointerOf, type Trail } from "./pointer.js";

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
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/**
 * Resolves a JSON Pointer fragment (`#/components/schemas/A`, `/a/b`) inside `root`; undefined when absent. A pointer
 * may run through another internal `$ref` (`#/components/schemas/A/properties/b/items` where `b` is a `$ref`): the
 * reference is followed on the way, as the resolvers of the references do.
 */
export function resolvePointer(root: unknown, fragment: string, hops = 0): unknown {
  let pointer = fragment.startsWith("#") ? fragment.slice(1) : fragment;
  if (pointer === "") return root;
  try {
    pointer = decodeURIComponent(pointer);
  } catch {
    return undefined;
  }
  if (!pointer.startsWith("/")) return undefined;
  let node: unknown = root;
  for (const raw of pointer.slice(1).split("/")) {
    const token = unescapeToken(raw);
    if (isObject(node) && !Object.hasOwn(node, token) && typeof (node as { $ref?: unknown }).$ref === "string" && hops < 16) {
      const ref = (node as { $ref: string }).$ref;
      node = ref.startsWith("#") ? resolvePointer(root, ref, hops + 1) : undefined;
    }
    if (!isObject(node) || !Object.hasOwn(node, token)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

interface FoundRef {
  ref: string;
  /** JSON Pointer of the object holding the `$ref`. */
  at: string;
}

/** Every `$ref` string of the document, skipping `example` values and `x-` extensions (data, not references). */
export function collectRefs(root: unknown): FoundRef[] {
  const found: FoundRef[] = [];
  const seen = new Set<object>();
  // pointers are spelled only for objects holding a `$ref` (see pointer.ts)
  const stack: Array<[unknown, Trail | undefined]> = [[root, undefined]];
  while (stack.length) {
    const [node, trail] = stack.pop()!;
    if (!isObject(node) || seen.has(node)) continue;
    // YAML aliases share objects: visit each once, or a small document could walk forever.
    seen.add(node);
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
}

/** Checks every reference; fetches same-origin external documents (once each) to resolve theirs. */
export async function checkRefs(document: Record<string, unknown>, options: CheckRefsOptions = {}): Promise<RefReport> {
  const warnings: SpecIssue[] = [];
  const notices: SpecIssue[] = [];
  const refs = collectRefs(document);
  const base = options.baseUrl ? new URL(options.baseUrl) : undefined;
  const internal = new Map<string, boolean>();
  const externalDocs = new Map<string, Promise<{ ok: true; value: unknown } | { ok: false; message: string; notice?: boolean }>>();
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
                (value) => ({ ok: true as const, value }),
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
        ok = resolvePointer(document, ref) !== undefined;
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
          const value = resolvePointer(r.value, fragment || "#");
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
      if (ref.startsWith("#")) return resolvePointer(document, ref);
      try {
        const u = base ? new URL(ref, base) : new URL(ref);
        return targets.get(u.href);
      } catch {
        return undefined;
      }
    },
  };
}
