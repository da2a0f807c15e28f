// OpenAPI 3.1 from the route table: one source of truth for dispatch and documentation.
import { dump } from "js-yaml";
import * as z from "zod";
import { type HeaderDoc, type Middleware, middlewareDoc, type ResponseDoc, type Route } from "./route.js";
import { timeSlicer } from "./slice.js";

export type OpenApiDocument = Record<string, unknown> & { openapi: string; paths: Record<string, Record<string, unknown>> };

type JsonSchema = Record<string, unknown>;

export function jsonSchema(schema: z.ZodType, io: "input" | "output" = "output"): JsonSchema {
  const s = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as JsonSchema;
  delete s.$schema;
  return s;
}

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

function parameters(schema: z.ZodType | undefined, where: "path" | "query"): unknown[] {
  if (!schema) return [];
  const js = jsonSchema(schema, "input");
  const props = (js.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((js.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, s]) => {
    const { description, ...rest } = s;
    return {
      name,
      in: where,
      required: where === "path" ? true : required.has(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

/** The request headers a route documents, as `in: header` parameters. */
function headerParameters(headers: Record<string, HeaderDoc> | undefined): unknown[] {
  return Object.entries(headers ?? {}).map(([name, h]) => ({
    name,
    in: "header",
    required: h.required ?? false,
    description: h.description,
    schema: h.schema ?? { type: "string" },
  }));
}

/** A body is optional exactly when its schema accepts a request without one (the service validates `undefined`). */
function bodyRequired(schema: z.ZodType): boolean {
  try {
    return !schema.safeParse(undefined).success;
  } catch {
    // an async refinement cannot run synchronously: keep the conservative answer
    return true;
  }
}

export interface BuildOpenApiOptions {
  title: string;
  version: string;
  description?: string;
  routes: readonly Route[];
  /** Middleware run around every route (the service's `use`): their docs apply to every operation. */
  use?: readonly Middleware[];
  basePath?: string;
  errorSchema?: z.ZodType;
  securitySchemes?: Record<string, Record<string, unknown>>;
  servers?: Array<{ url: string; description?: string }>;
}

const X_REQUEST_ID = "X-Request-Id";

/** Statuses the core itself answers on a route, whatever the handler does. */
function coreResponses(r: Route): Record<number, ResponseDoc> {
  const out: Record<number, ResponseDoc> = {};
  const readsBody = (r.bodyMode ?? (r.body ? "json" : "none")) !== "none";
  if (r.params || r.query || r.body || readsBody)
    out[400] = {
      description:
        "Invalid request: a path or query parameter or the body fails its schema (`details` lists `{ path, message }`), or the body is not JSON.",
    };
  if (readsBody) {
    out[413] = { description: "Request body over the size limit (`details.limit` in bytes)." };
    out[415] = { description: `Request body of a content type other than ${(r.accepts ?? ["application/json"]).join(", ")}.` };
  }
  out[500] = { description: 'Internal error: `{ "error": "internal error", "requestId" }`, never more.' };
  return out;
}

function headerObject(h: HeaderDoc): Record<string, unknown> {
  return { description: h.description, ...(h.required ? { required: true } : {}), schema: h.schema ?? { type: "string" } };
}

/**
 * Optional request fields accept JSON `null` as "absent" (the service drops such nulls before
 * validating): say so in the schema, on every optional property at every depth.
 */
export function nullableOptionals(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(nullableOptionals);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node))
    out[k] = k === "properties" || k === "$defs" ? mapValues(v, nullableOptionals) : nullableOptionals(v);
  const props = out.properties as Record<string, JsonSchema> | undefined;
  if (props && typeof props === "object") {
    const required = new Set((out.required as string[] | undefined) ?? []);
    for (const [name, prop] of Object.entries(props)) if (!required.has(name) && !allowsNull(prop)) props[name] = orNull(prop);
  }
  return out;
}

/** A schema that also takes null: a plain `type` grows a "null" (readers keep its keywords in place), anything else an `anyOf`. */
function orNull(s: JsonSchema): JsonSchema {
  if (typeof s.type === "string" && !("enum" in s) && !("const" in s)) return { ...s, type: [s.type, "null"] };
  return { anyOf: [s, { type: "null" }] };
}

const mapValues = (v: unknown, f: (x: unknown) => unknown) =>
  typeof v === "object" && v !== null ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, f(x)])) : v;

function allowsNull(s: JsonSchema): boolean {
  if (s.type === "null" || (Array.isArray(s.type) && s.type.includes("null"))) return true;
  if (Object.keys(s).length === 0 || (Object.keys(s).length === 1 && "description" in s)) return true;
  return ((s.anyOf ?? s.oneOf) as JsonSchema[] | undefined)?.some(allowsNull) ?? false;
}

/** A later doc of the same status replaces the description and schema and adds its headers to the earlier ones. */
function mergeResponses(into: Record<number, ResponseDoc>, more: Record<number, ResponseDoc> | undefined): void {
  for (const [status, doc] of Object.entries(more ?? {})) {
    const before = into[Number(status)];
    into[Number(status)] = before?.headers ? { ...doc, headers: { ...before.headers, ...doc.headers } } : doc;
  }
}

const NULL_NOTE = "On every optional field, JSON `null` means the same as leaving the field out.";

export function buildOpenApi(o: BuildOpenApiOptions): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  const errorRef = o.errorSchema ? { $ref: "#/components/schemas/Error" } : { type: "object" };
  const usedIds = new Set<string>();
  const serviceDocs = (o.use ?? []).map(middlewareDoc).filter((d) => d !== undefined);
  for (const r of o.routes) {
    if (r.internal) continue;
    const p = `${o.basePath ?? ""}${toOpenApiPath(r.path)}`;
    const docs = [...serviceDocs, ...(r.use ?? []).map(middlewareDoc).filter((d) => d !== undefined)];
    // every status this route can answer: the core's, each middleware's, then the route's own (most specific wins)
    const declared: Record<number, ResponseDoc> = { ...coreResponses(r) };
    for (const d of docs) mergeResponses(declared, d.responses);
    mergeResponses(declared, r.responses);
    if (!Object.keys(declared).some((s) => Number(s) < 400)) declared[200] = { description: "OK" };
    const everyResponse: Record<string, HeaderDoc> = Object.assign({}, ...docs.map((d) => d.headers ?? {}));
    const responses: Record<string, unknown> = {};
    for (const [status, doc] of Object.entries(declared)) {
      const ct = doc.contentType ?? "application/json";
      const isError = Number(status) >= 400;
      const schema = doc.schema ? jsonSchema(doc.schema, "output") : isError ? errorRef : undefined;
      const headers: Record<string, HeaderDoc> = {
        ...everyResponse,
        [X_REQUEST_ID]: isError
          ? { description: "The request's id, equal to `requestId` in the body.", required: true }
          : { description: "The request's id: the client's own `X-Request-Id` echoed, or one the service assigned." },
        ...doc.headers,
      };
      responses[status] = {
        description: doc.description,
        headers: Object.fromEntries(Object.entries(headers).map(([name, h]) => [name, headerObject(h)])),
        ...(schema || ct !== "application/json" ? { content: { [ct]: { schema: schema ?? { type: "string" } } } } : {}),
      };
    }
    let operationId =
      r.operationId ??
      `${r.method.toLowerCase()}${p.replace(/[{}]/g, "").replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ""))}`;
    while (usedIds.has(operationId)) operationId += "_";
    usedIds.add(operationId);
    const op: Record<string, unknown> = {
      operationId,
      ...(r.summary ? { summary: r.summary } : {}),
      ...(r.description ? { description: r.description } : {}),
      ...(r.tags ? { tags: r.tags } : {}),
      parameters: [...parameters(r.params, "path"), ...parameters(r.query, "query"), ...headerParameters(r.requestHeaders)],
      responses,
    };
    if (r.security) op.security = r.security.length ? r.security.map((s) => ({ [s]: [] })) : [];
    if (r.body) {
      const types = r.accepts ?? ["application/json"];
      const schema = nullableOptionals(jsonSchema(r.body, "input"));
      op.requestBody = {
        required: bodyRequired(r.body),
        description: NULL_NOTE,
        content: Object.fromEntries(types.map((t) => [t, { schema }])),
      };
    }
    paths[p] ??= {};
    paths[p]![r.method.toLowerCase()] = op;
  }
  const components: Record<string, unknown> = {};
  if (o.errorSchema) components.schemas = { Error: jsonSchema(o.errorSchema, "output") };
  if (o.securitySchemes) components.securitySchemes = o.securitySchemes;
  return {
    openapi: "3.1.0",
    info: { title: o.title, version: o.version, ...(o.description ? { description: o.description } : {}) },
    ...(o.servers ? { servers: o.servers } : {}),
    paths,
    ...(Object.keys(components).length ? { components } : {}),
  };
}

const DUMP = { noRefs: true, lineWidth: -1 } as const;

/** The document as YAML, in one go: for small documents. */
export const toYaml = (doc: unknown): string => dump(doc, DUMP);

const isMapping = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const indent = (text: string, by: string) => (by ? text.replace(/^(?=.)/gm, by) : text);

/**
 * The same text as `toYaml`, made a slice at a time so a large document (memory's is 117 KB) never holds the event
 * loop: the members of the top two levels (each path, each schema) are dumped one by one, and the loop gets a turn
 * whenever the work since the last one passed `sliceMs`.
 */
export async function toYamlSliced(doc: Record<string, unknown>, sliceMs = 4): Promise<string> {
  const out: string[] = [];
  const turn = timeSlicer(sliceMs);
  const walk = async (node: Record<string, unknown>, depth: number, by: string): Promise<void> => {
    for (const [key, value] of Object.entries(node)) {
      if (depth < 2 && isMapping(value) && Object.keys(value).length > 0) {
        // the key's own spelling (quoted where YAML needs it), then its members one level in
        out.push(indent(dump({ [key]: {} }, DUMP).replace(/ \{\}\n$/, "\n"), by));
        await walk(value, depth + 1, `${by}  `);
      } else {
        out.push(indent(dump({ [key]: value }, DUMP), by));
        await turn();
      }
    }
  };
  await walk(doc, 0, "");
  return out.join("");
}
