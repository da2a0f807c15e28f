// Checks a request against GitHub's own REST description (the api.github.com OpenAPI document shipped in
// @octokit/openapi): the operation must exist for the path and method, path and query parameters must be
// declared and match their schemas, and a JSON body must match the operation's request-body schema (Ajv).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";

// ajv-formats is CommonJS: its callable is the default export under ESM interop.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => void;

type Json = any;
const DOC_ID = "https://api.github.com/openapi.json";

interface Operation {
  template: string;
  method: string;
  pattern: RegExp;
  pathNames: string[];
  params: ValidateFunction;
  query: ValidateFunction;
  queryNames: Set<string>;
  body?: ValidateFunction;
  bodyRequired: boolean;
}

interface Loaded {
  doc: Json;
  /** Bodies: JSON as sent. */
  ajv: Ajv;
  /** Path and query values arrive as text: compared after coercion to the declared types. */
  coercing: Ajv;
  templates: Array<{ template: string; pattern: RegExp; params: number }>;
  ops: Map<string, Operation | null>;
}

let loaded: Loaded | undefined;

const templatePattern = (t: string) => new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "([^/]+)")}$`);

function load(): Loaded {
  if (loaded) return loaded;
  const req = createRequire(import.meta.url);
  const file = join(dirname(req.resolve("@octokit/openapi/package.json")), "generated", "api.github.com.json");
  const doc = JSON.parse(readFileSync(file, "utf8"));
  const instance = (coerceTypes: boolean) => {
    const a = new Ajv({ strict: false, allErrors: true, validateSchema: false, coerceTypes });
    addFormats(a);
    // the document's components, addressable from each compiled piece as `${DOC_ID}#/components/...`
    a.addSchema({ $id: DOC_ID, components: rebase(doc.components) }, undefined, undefined, false);
    return a;
  };
  const templates = Object.keys(doc.paths)
    .map((template) => ({ template, pattern: templatePattern(template), params: template.match(/\{/g)?.length ?? 0 }))
    // a literal segment beats a parameter (`/user/repos` over `/user/{x}`): fewest parameters first
    .sort((a, b) => a.params - b.params);
  loaded = { doc, ajv: instance(false), coercing: instance(true), templates, ops: new Map() };
  return loaded;
}

/**
 * OpenAPI 3.0 schema to JSON Schema for Ajv: local `#/...` references point into the shared document (a piece
 * is compiled on its own), and `nullable: true` becomes a `null` alternative (Ajv takes it only beside `type`).
 */
function rebase(v: Json): Json {
  if (Array.isArray(v)) return v.map(rebase);
  if (!v || typeof v !== "object") return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === "nullable") continue;
    out[k] = k === "$ref" && typeof x === "string" && x.startsWith("#/") ? DOC_ID + x : rebase(x);
  }
  return v.nullable === true ? { anyOf: [out, { type: "null" }] } : out;
}

function deref(doc: Json, v: Json): Json {
  while (v && typeof v.$ref === "string") {
    v = v.$ref
      .slice(2)
      .split("/")
      .reduce((o: Json, k: string) => o[k.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
  }
  return v;
}

function operation(method: string, template: string): Operation | undefined {
  const { doc, ajv, coercing, ops } = load();
  const key = `${method} ${template}`;
  const known = ops.get(key);
  if (known !== undefined) return known ?? undefined;
  const item = doc.paths[template];
  const op = item?.[method.toLowerCase()];
  if (!op) {
    ops.set(key, null);
    return undefined;
  }
  const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: Json) => deref(doc, p));
  const group = (where: string) => {
    const list = params.filter((p: Json) => p.in === where);
    return {
      names: list.map((p: Json) => p.name as string),
      schema: {
        type: "object",
        properties: Object.fromEntries(list.map((p: Json) => [p.name, rebase(p.schema ?? {})])),
        required: list.filter((p: Json) => p.required).map((p: Json) => p.name),
        additionalProperties: false,
      },
    };
  };
  const path = group("path");
  const query = group("query");
  const bodySpec = deref(doc, op.requestBody);
  const bodySchema = bodySpec?.content?.["application/json"]?.schema;
  const built: Operation = {
    template,
    method,
    pattern: templatePattern(template),
    pathNames: path.names,
    params: coercing.compile(path.schema),
    query: coercing.compile(query.schema),
    queryNames: new Set(query.names),
    body: bodySchema ? ajv.compile(rebase(bodySchema)) : undefined,
    bodyRequired: bodySpec?.required === true,
  };
  ops.set(key, built);
  return built;
}

/** Reads and indexes the 13 MB description once; a suite calls it in `beforeAll` so no single test pays for it. */
export function loadGithubDescription(): void {
  load();
}

/** Problems of one request, empty when GitHub's description allows it. */
export function checkGithubRequest(req: { method: string; url: URL; body: unknown; hasBody: boolean }): string[] {
  const method = req.method.toUpperCase();
  const path = req.url.pathname;
  let op: Operation | undefined;
  for (const t of load().templates) if (t.pattern.test(path) && (op = operation(method, t.template))) break;
  if (!op) return [`${method} ${path}: no such operation in GitHub's REST description`];
  const problems: string[] = [];
  const m = op.pattern.exec(path)!;
  const pathValues: Record<string, unknown> = {};
  op.pathNames.forEach((n, i) => {
    pathValues[n] = decodeURIComponent(m[i + 1]!);
  });
  if (!op.params(pathValues)) problems.push(`${method} ${op.template} path: ${JSON.stringify(op.params.errors)}`);
  const query: Record<string, unknown> = {};
  for (const [k, v] of req.url.searchParams) query[k] = v;
  if (!op.query(query)) problems.push(`${method} ${op.template} query: ${JSON.stringify(op.query.errors)}`);
  if (req.hasBody) {
    if (!op.body) problems.push(`${method} ${op.template}: takes no JSON body`);
    else if (!op.body(req.body)) problems.push(`${method} ${op.template} body: ${JSON.stringify(op.body.errors)}`);
  } else if (op.bodyRequired) problems.push(`${method} ${op.template}: a JSON body is required`);
  return problems;
}
