// Semantic checks no JSON Schema of the specification can express (duplicate operationIds, path parameters against
// their placeholders, body/formData rules, file uploads, required properties, response codes), one warning per defect.
import type { StepBudget } from "./limits.js";
import { pointerOf, type Trail } from "./pointer.js";
import { type PointerResolver, pointerResolver } from "./refs.js";
import type { ParsedSpec, SpecIssue } from "./spec-types.js";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const token = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const PATH_ITEM_KEYS = new Set([...METHODS, "parameters", "$ref", "summary", "description", "servers"]);
const FORM_TYPES = ["multipart/form-data", "application/x-www-form-urlencoded"];

/** What the checks share: the document's resolver (one cache of resolved pointers) and the work budget. */
interface Walk {
  resolve: PointerResolver;
  budget: StepBudget | undefined;
}

/** Follows internal `$ref`s (a few hops, never a loop); other values come back as they are. */
function deref(w: Walk, v: unknown): unknown {
  for (let hops = 0; hops < 16 && isObject(v) && typeof v.$ref === "string" && v.$ref.startsWith("#"); hops++) {
    w.budget?.spend();
    const next = w.resolve(v.$ref);
    if (next === undefined) return v;
    v = next;
  }
  return v;
}

interface Param {
  name: string;
  in: string;
  at: string;
  value: Record<string, unknown>;
}

function paramList(w: Walk, list: unknown, at: string): Param[] {
  if (!Array.isArray(list)) return [];
  const out: Param[] = [];
  list.forEach((raw, i) => {
    const p = deref(w, raw);
    if (isObject(p) && typeof p.name === "string" && typeof p.in === "string")
      out.push({ name: p.name, in: p.in, at: `${at}/${i}`, value: p });
  });
  return out;
}

const paramKey = (p: Param) => `${p.in}\u0000${p.name}`;

function duplicates(params: Param[], issues: SpecIssue[]) {
  const seen = new Set<string>();
  for (const p of params) {
    const k = paramKey(p);
    if (seen.has(k)) issues.push({ path: p.at, message: `duplicate parameter: "${p.name}" in ${p.in} is declared twice in this list` });
    seen.add(k);
  }
}

/** Media types that can carry a `file` parameter, vendor forms (`multipart/vnd.x+form-data;v=1`) included. */
const acceptsFiles = (consumes: unknown) =>
  Array.isArray(consumes) &&
  consumes.some(
    (c) =>
      typeof c === "string" &&
      (FORM_TYPES.some((f) => c.includes(f)) || /^multipart\/.*form-data/.test(c) || /x-www-form-urlencoded/.test(c)),
  );

function checkOperations(spec: ParsedSpec, w: Walk, issues: SpecIssue[]) {
  const doc = spec.document;
  const paths = isObject(doc.paths) ? doc.paths : {};
  const swagger = spec.kind === "swagger";
  const operationIds = new Map<string, string>();
  for (const [path, rawItem] of Object.entries(paths)) {
    if (!path.startsWith("/")) continue;
    const itemAt = `/paths/${token(path)}`;
    w.budget?.spend();
    const item = deref(w, rawItem);
    if (!isObject(item)) continue;
    const stray = Object.keys(item).filter((k) => !PATH_ITEM_KEYS.has(k) && !k.startsWith("x-"));
    if (stray.length) {
      const via = isObject(rawItem) && typeof rawItem.$ref === "string" ? ` (its $ref ${rawItem.$ref} points to something else)` : "";
      issues.push({ path: itemAt, message: `not a path item${via}: unexpected ${stray.map((k) => `\`${k}\``).join(", ")}` });
      continue;
    }
    const placeholders = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const placeholderSet = new Set(placeholders);
    const seenPlaceholder = new Set<string>();
    for (const name of placeholders) {
      if (seenPlaceholder.has(name)) issues.push({ path: itemAt, message: `duplicate path placeholder {${name}} in ${path}` });
      seenPlaceholder.add(name);
    }
    const shared = paramList(w, item.parameters, `${itemAt}/parameters`);
    duplicates(shared, issues);
    const reported = new Set<string>();
    const ops = METHODS.filter((m) => isObject(item[m]));
    for (const method of ops) {
      const op = item[method] as Record<string, unknown>;
      const opAt = `${itemAt}/${method}`;
      if (typeof op.operationId === "string") {
        const first = operationIds.get(op.operationId);
        if (first)
          issues.push({ path: `${opAt}/operationId`, message: `duplicate operationId "${op.operationId}": ${first} uses it already` });
        else operationIds.set(op.operationId, `${method.toUpperCase()} ${path}`);
      }
      const own = paramList(w, op.parameters, `${opAt}/parameters`);
      // each parameter and placeholder is looked at a few times below, through sets: lists of thousands are linear
      w.budget?.spend(own.length + shared.length + placeholderSet.size);
      duplicates(own, issues);
      // operation parameters override path-level ones of the same name and location
      const ownKeys = new Set(own.map(paramKey));
      const effective = [...own, ...shared.filter((s) => !ownKeys.has(paramKey(s)))];
      const pathParams = effective.filter((p) => p.in === "path");
      const pathParamNames = new Set(pathParams.map((p) => p.name));
      // OpenAPI 3.x's own test suite lists documents whose path parameters and placeholders differ as valid
      if (swagger)
        for (const name of placeholderSet)
          if (!pathParamNames.has(name))
            issues.push({ path: opAt, message: `path parameter {${name}} of ${path} is not declared (no parameter "${name}" in path)` });
      if (swagger)
        for (const p of pathParams)
          if (!placeholderSet.has(p.name) && !reported.has(p.at)) {
            reported.add(p.at);
            issues.push({ path: p.at, message: `path parameter "${p.name}" has no {${p.name}} placeholder in ${path}` });
          }
      if (swagger) {
        for (const p of pathParams)
          if (p.value.required !== true && !reported.has(`${p.at}/required`)) {
            reported.add(`${p.at}/required`);
            issues.push({
              path: p.at,
              message: `path parameter "${p.name}" must have \`required: true\` (a path segment is never optional)`,
            });
          }
        const bodies = effective.filter((p) => p.in === "body");
        for (const extra of bodies.slice(1))
          issues.push({
            path: extra.at,
            message: `more than one body parameter: "${extra.name}" and "${bodies[0]!.name}" (an operation has at most one)`,
          });
        const form = effective.find((p) => p.in === "formData");
        if (bodies.length && form)
          issues.push({
            path: form.at,
            message: `body and formData parameters together: "${bodies[0]!.name}" (body) and "${form.name}" (formData)`,
          });
        const consumes = op.consumes ?? doc.consumes;
        for (const p of effective)
          if (p.value.type === "file" && !acceptsFiles(consumes) && !reported.has(p.at)) {
            reported.add(p.at);
            issues.push({
              path: p.at,
              message: `file parameter "${p.name}" needs consumes with multipart/form-data or application/x-www-form-urlencoded (consumes: ${JSON.stringify(consumes ?? [])})`,
            });
          }
      }
      if (isObject(op.responses))
        for (const code of Object.keys(op.responses))
          if (code !== "default" && !code.startsWith("x-") && !(/^[1-5]\d\d$/.test(code) || (!swagger && /^[1-5]XX$/.test(code))))
            issues.push({
              path: `${opAt}/responses/${token(code)}`,
              message: `invalid response code "${code}": use 100-599${swagger ? "" : ", 1XX-5XX"} or default`,
            });
    }
    if (swagger && !ops.length) {
      const sharedPath = new Set(shared.filter((p) => p.in === "path").map((p) => p.name));
      for (const name of placeholderSet)
        if (!sharedPath.has(name))
          issues.push({ path: itemAt, message: `path parameter {${name}} of ${path} is not declared (no parameter "${name}" in path)` });
    }
  }
}

/** Most schemas an `allOf` closure gathers; past it (or through a cycle) the required-properties check is skipped. */
const MAX_ALLOF_CLOSURE = 64;
/** Defined property names listed in a warning, at most. */
const MAX_LISTED = 20;
const CYCLE = Symbol("cycle");

/**
 * A schema and its `allOf` members, theirs included, each once, depth first (the order their properties are listed
 * in): undefined when a member is not a schema object, a member contains itself, or there are more than
 * MAX_ALLOF_CLOSURE. Remembered per schema, so a member listed many times, or under many schemas, is gathered once
 * (an `allOf` fan-out sixteen levels deep was re-walked 4^16 times, issue #24).
 */
function allOfClosure(
  w: Walk,
  known: Map<object, Array<Record<string, unknown>> | undefined | typeof CYCLE>,
  schema: Record<string, unknown>,
  depth = 0,
): Array<Record<string, unknown>> | undefined {
  if (known.has(schema)) {
    const k = known.get(schema);
    return k === CYCLE ? undefined : k;
  }
  if (!Array.isArray(schema.allOf)) return [schema];
  if (depth > MAX_ALLOF_CLOSURE) return undefined;
  known.set(schema, CYCLE);
  const out = [schema];
  const seen = new Set<object>(out);
  let result: Array<Record<string, unknown>> | undefined = out;
  for (const member of schema.allOf) {
    w.budget?.spend();
    const m = deref(w, member);
    const inner = isObject(m) ? allOfClosure(w, known, m, depth + 1) : undefined;
    if (!inner) {
      result = undefined;
      break;
    }
    w.budget?.spend(inner.length);
    for (const s of inner)
      if (!seen.has(s)) {
        seen.add(s);
        out.push(s);
      }
    if (out.length > MAX_ALLOF_CLOSURE) {
      result = undefined;
      break;
    }
  }
  known.set(schema, result);
  return result;
}

const definesProperty = (closure: Array<Record<string, unknown>>, name: string) =>
  closure.some((s) => isObject(s.properties) && Object.hasOwn(s.properties, name));

/** The first MAX_LISTED property names a closure defines, for a warning. */
function listDefined(closure: Array<Record<string, unknown>>): string {
  const names = new Set<string>();
  let more = false;
  for (const s of closure) {
    if (!isObject(s.properties)) continue;
    for (const k in s.properties) {
      if (names.size >= MAX_LISTED && !names.has(k)) {
        more = true;
        break;
      }
      names.add(k);
    }
    if (more) break;
  }
  return `${[...names].join(", ") || "none"}${more ? ", …" : ""}`;
}

/** Walks every schema-like object: `required` lists naming no property, arrays without `items` (2.0 and 3.0). */
function checkSchemas(spec: ParsedSpec, w: Walk, issues: SpecIssue[]) {
  const doc = spec.document;
  const needsItems = !spec.specVersion.startsWith("3.1");
  const seen = new Set<object>();
  const closures = new Map<object, Array<Record<string, unknown>> | undefined | typeof CYCLE>();
  // pointers are spelled only for what is reported (see pointer.ts)
  const stack: Array<[unknown, Trail | undefined]> = [[doc, undefined]];
  while (stack.length) {
    const [node, trail] = stack.pop()!;
    if (typeof node !== "object" || node === null || seen.has(node)) continue;
    seen.add(node);
    w.budget?.spend();
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) {
        const v = node[i];
        if (typeof v === "object" && v !== null) stack.push([v, { parent: trail, key: i }]);
      }
      continue;
    }
    const o = node as Record<string, unknown>;
    if (needsItems && o.type === "array" && !("items" in o))
      issues.push({ path: pointerOf(trail), message: "`type: array` without `items`: an array must say what its items are" });
    const objectLike = o.type === "object" || (o.type === undefined && (isObject(o.properties) || Array.isArray(o.allOf)));
    if (Array.isArray(o.required) && objectLike && !o.additionalProperties) {
      const closure = allOfClosure(w, closures, o);
      if (closure) {
        w.budget?.spend(o.required.length * closure.length);
        let listed: string | undefined;
        o.required.forEach((name, i) => {
          if (typeof name === "string" && !definesProperty(closure, name))
            issues.push({
              path: pointerOf(trail, "required", i),
              message: `required property "${name}" is not defined in properties (defined: ${(listed ??= listDefined(closure))})`,
            });
        });
      }
    }
    for (const key in o) {
      // examples and extensions are data, not schemas
      if (key === "example" || key === "examples" || key === "enum" || key.startsWith("x-")) continue;
      const v = o[key];
      if (typeof v === "object" && v !== null) stack.push([v, { parent: trail, key }]);
    }
  }
}

export interface SemanticOptions {
  /** Work allowed (see limits.ts); none: unbounded. */
  budget?: StepBudget;
  /** The document's resolver, when the caller shares it with other checks. */
  resolve?: PointerResolver;
}

export function semanticWarnings(spec: ParsedSpec, options: SemanticOptions = {}): SpecIssue[] {
  const issues: SpecIssue[] = [];
  const w: Walk = { budget: options.budget, resolve: options.resolve ?? pointerResolver(spec.document, options.budget) };
  checkOperations(spec, w, issues);
  checkSchemas(spec, w, issues);
  return issues;
}
