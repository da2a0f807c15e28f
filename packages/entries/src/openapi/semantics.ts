// Semantic checks no JSON Schema of the specification can express (duplicate operationIds, path parameters against
// their placeholders, body/formData rules, file uploads, required properties, response codes), one warning per defect.
import type { ParsedSpec, SpecIssue } from "./parse.js";
import { pointerOf, type Trail } from "./pointer.js";
import { resolvePointer } from "./refs.js";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const token = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const PATH_ITEM_KEYS = new Set([...METHODS, "parameters", "$ref", "summary", "description", "servers"]);
const FORM_TYPES = ["multipart/form-data", "application/x-www-form-urlencoded"];

/** Follows internal `$ref`s (a few hops, never a loop); other values come back as they are. */
function deref(doc: Record<string, unknown>, v: unknown): unknown {
  for (let hops = 0; hops < 16 && isObject(v) && typeof v.$ref === "string" && v.$ref.startsWith("#"); hops++) {
    const next = resolvePointer(doc, v.$ref);
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

function paramList(doc: Record<string, unknown>, list: unknown, at: string): Param[] {
  if (!Array.isArray(list)) return [];
  const out: Param[] = [];
  list.forEach((raw, i) => {
    const p = deref(doc, raw);
    if (isObject(p) && typeof p.name === "string" && typeof p.in === "string")
      out.push({ name: p.name, in: p.in, at: `${at}/${i}`, value: p });
  });
  return out;
}

function duplicates(params: Param[], issues: SpecIssue[]) {
  const seen = new Set<string>();
  for (const p of params) {
    const k = `${p.in}\u0000${p.name}`;
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

function checkOperations(spec: ParsedSpec, issues: SpecIssue[]) {
  const doc = spec.document;
  const paths = isObject(doc.paths) ? doc.paths : {};
  const swagger = spec.kind === "swagger";
  const operationIds = new Map<string, string>();
  for (const [path, rawItem] of Object.entries(paths)) {
    if (!path.startsWith("/")) continue;
    const itemAt = `/paths/${token(path)}`;
    const item = deref(doc, rawItem);
    if (!isObject(item)) continue;
    const stray = Object.keys(item).filter((k) => !PATH_ITEM_KEYS.has(k) && !k.startsWith("x-"));
    if (stray.length) {
      const via = isObject(rawItem) && typeof rawItem.$ref === "string" ? ` (its $ref ${rawItem.$ref} points to something else)` : "";
      issues.push({ path: itemAt, message: `not a path item${via}: unexpected ${stray.map((k) => `\`${k}\``).join(", ")}` });
      continue;
    }
    const placeholders = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const seenPlaceholder = new Set<string>();
    for (const name of placeholders) {
      if (seenPlaceholder.has(name)) issues.push({ path: itemAt, message: `duplicate path placeholder {${name}} in ${path}` });
      seenPlaceholder.add(name);
    }
    const shared = paramList(doc, item.parameters, `${itemAt}/parameters`);
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
      const own = paramList(doc, op.parameters, `${opAt}/parameters`);
      duplicates(own, issues);
      // operation parameters override path-level ones of the same name and location
      const effective = [...own, ...shared.filter((s) => !own.some((o) => o.name === s.name && o.in === s.in))];
      const pathParams = effective.filter((p) => p.in === "path");
      // OpenAPI 3.x's own test suite lists documents whose path parameters and placeholders differ as valid
      if (swagger)
        for (const name of new Set(placeholders))
          if (!pathParams.some((p) => p.name === name))
            issues.push({ path: opAt, message: `path parameter {${name}} of ${path} is not declared (no parameter "${name}" in path)` });
      if (swagger)
        for (const p of pathParams)
          if (!placeholders.includes(p.name) && !reported.has(p.at)) {
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
    if (swagger && !ops.length)
      for (const name of new Set(placeholders))
        if (!shared.some((p) => p.in === "path" && p.name === name))
          issues.push({ path: itemAt, message: `path parameter {${name}} of ${path} is not declared (no parameter "${name}" in path)` });
  }
}

/** Properties a schema defines, its `allOf` members' included (inherited required properties are fine). */
function definedProperties(doc: Record<string, unknown>, schema: Record<string, unknown>, depth = 0): Set<string> | undefined {
  const out = new Set<string>();
  if (isObject(schema.properties)) for (const k of Object.keys(schema.properties)) out.add(k);
  if (Array.isArray(schema.allOf))
    for (const member of schema.allOf) {
      const m = deref(doc, member);
      if (!isObject(m) || depth > 16) return undefined;
      const inner = definedProperties(doc, m, depth + 1);
      if (!inner) return undefined;
      for (const k of inner) out.add(k);
    }
  return out;
}

/** Walks every schema-like object: `required` lists naming no property, arrays without `items` (2.0 and 3.0). */
function checkSchemas(spec: ParsedSpec, issues: SpecIssue[]) {
  const doc = spec.document;
  const needsItems = !spec.specVersion.startsWith("3.1");
  const seen = new Set<object>();
  // pointers are spelled only for what is reported (see pointer.ts)
  const stack: Array<[unknown, Trail | undefined]> = [[doc, undefined]];
  while (stack.length) {
    const [node, trail] = stack.pop()!;
    if (typeof node !== "object" || node === null || seen.has(node)) continue;
    seen.add(node);
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
      const defined = definedProperties(doc, o);
      if (defined)
        o.required.forEach((name, i) => {
          if (typeof name === "string" && !defined.has(name))
            issues.push({
              path: pointerOf(trail, "required", i),
              message: `required property "${name}" is not defined in properties (defined: ${[...defined].join(", ") || "none"})`,
            });
        });
    }
    for (const key in o) {
      // examples and extensions are data, not schemas
      if (key === "example" || key === "examples" || key === "enum" || key.startsWith("x-")) continue;
      const v = o[key];
      if (typeof v === "object" && v !== null) stack.push([v, { parent: trail, key }]);
    }
  }
}

export function semanticWarnings(spec: ParsedSpec): SpecIssue[] {
  const issues: SpecIssue[] = [];
  checkOperations(spec, issues);
  checkSchemas(spec, issues);
  return issues;
}
