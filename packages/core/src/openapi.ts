// OpenAPI 3.1 from the route table: one source of truth for dispatch and documentation.
import { stringify } from "yaml";
import * as z from "zod";
import type { Route } from "./route.js";

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
  basePath?: string;
  errorSchema?: z.ZodType;
  securitySchemes?: Record<string, Record<string, unknown>>;
  servers?: Array<{ url: string; description?: string }>;
}

export function buildOpenApi(o: BuildOpenApiOptions): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  const errorRef = o.errorSchema ? { $ref: "#/components/schemas/Error" } : { type: "object" };
  const usedIds = new Set<string>();
  for (const r of o.routes) {
    if (r.internal) continue;
    const p = `${o.basePath ?? ""}${toOpenApiPath(r.path)}`;
    const responses: Record<string, unknown> = {};
    for (const [status, doc] of Object.entries(r.responses ?? {})) {
      const ct = doc.contentType ?? "application/json";
      const isError = Number(status) >= 400;
      const schema = doc.schema ? jsonSchema(doc.schema, "output") : isError ? errorRef : undefined;
      const headers = doc.headers
        ? Object.fromEntries(
            Object.entries(doc.headers).map(([name, h]) => [
              name,
              { description: h.description, schema: h.schema ? jsonSchema(h.schema, "output") : { type: "string" } },
            ]),
          )
        : undefined;
      responses[status] = {
        description: doc.description,
        ...(headers ? { headers } : {}),
        ...(schema || ct !== "application/json" ? { content: { [ct]: { schema: schema ?? { type: "string" } } } } : {}),
      };
    }
    if (!Object.keys(responses).some((s) => Number(s) < 400)) responses["200"] = { description: "OK" };
    if (o.errorSchema && !responses.default)
      responses.default = { description: "Error", content: { "application/json": { schema: errorRef } } };
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
      parameters: [...parameters(r.params, "path"), ...parameters(r.query, "query")],
      responses,
    };
    if (r.security) op.security = r.security.length ? r.security.map((s) => ({ [s]: [] })) : [];
    if (r.body) {
      const types = r.accepts ?? ["application/json"];
      const schema = jsonSchema(r.body, "input");
      op.requestBody = { required: bodyRequired(r.body), content: Object.fromEntries(types.map((t) => [t, { schema }])) };
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

export const toYaml = (doc: unknown): string => stringify(doc, { aliasDuplicateObjects: false });
