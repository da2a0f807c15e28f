// The per-type OpenAPI 3.1 document: every entry endpoint of one type, its customData schema inlined, ready for client generators.
import { nullableOptionals } from "@mountkit/core";
import type { EntryType } from "../types/registry.js";
import type { JsonSchema } from "../types/schema-types.js";
import {
  cursorParam,
  type DocumentContext,
  errors,
  idParam,
  ifMatchParam,
  json,
  type Limits,
  ownerWriteErrors,
  ref,
  secured,
  VERSION_HEADERS,
} from "./doc-parts.js";
import { revisionsPart } from "./type-revisions.js";

export interface TypeDocumentOptions {
  /** Where the service is mounted (`servers[0].url`); default `/`. */
  basePath?: string;
  /** Whether the type has an inventory route (types with a `prepare` hook). */
  inventory: boolean;
  limits: Limits;
}

const NULL_NOTE = "On every optional field, JSON `null` means the same as leaving the field out.";

const pascal = (id: string) => id.replace(/(^|[-_])([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());

/**
 * Moves `$defs` of an embedded schema into `components.schemas` and rewrites its `#/$defs/...` references,
 * which would otherwise point at the root of the OpenAPI document.
 */
export function hoistDefs(schema: JsonSchema, prefix: string, into: Record<string, unknown>): JsonSchema {
  const defs = (schema.$defs ?? schema.definitions) as Record<string, unknown> | undefined;
  if (!defs) return schema;
  const rename = (name: string) => `${prefix}${name.replace(/[^A-Za-z0-9._-]/g, "_")}`;
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (typeof node !== "object" || node === null) return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string") {
        const m = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(v);
        out[k] = m ? `#/components/schemas/${rename(decodeURIComponent(m[1]!))}` : v;
      } else out[k] = rewrite(v);
    }
    return out;
  };
  for (const [name, def] of Object.entries(defs)) into[rename(name)] = rewrite(def);
  const { $defs: _a, definitions: _b, ...rest } = schema;
  return rewrite(rest) as JsonSchema;
}

/** The entry schemas of one type: input, patch, entry and list, all sharing its customData schema. */
function entrySchemas(c: DocumentContext, customData: JsonSchema): Record<string, unknown> {
  const { P, limits: L } = c;
  const tags = {
    type: "array",
    maxItems: L.tags,
    uniqueItems: true,
    items: { type: "string", minLength: 1, maxLength: L.tag },
    description: "Categorisation tags, kept as submitted: a repeated tag is refused with 400.",
  };
  const common = {
    name: { type: "string", minLength: 1, maxLength: L.name, description: "Display name of the entry." },
    description: { type: "string", minLength: 1, maxLength: L.description, description: "Detailed description." },
  };
  return {
    // requests: an optional field sent as `null` is treated as absent (docs/conventions.md#null-means-absent), at every depth
    [`${P}EntryInput`]: nullableOptionals({
      type: "object",
      description: NULL_NOTE,
      required: ["name", "description", "customData"],
      properties: { ...common, customData, tags },
    }),
    [`${P}EntryPatch`]: nullableOptionals({
      type: "object",
      minProperties: 1,
      description: `Fields to replace; \`customData\`, when given, replaces the whole object and is validated again. ${NULL_NOTE}`,
      properties: { ...common, customData, tags },
    }),
    [`${P}Entry`]: {
      type: "object",
      required: ["id", "typeId", "ownerId", "name", "description", "customData", "tags", "derivedTags", "dateCreated", "dateModified"],
      properties: {
        id: { type: "string", description: "Generated identifier." },
        typeId: { type: "string", const: c.type.id },
        ownerId: { type: "string", description: "`sub` of the token that created the entry." },
        ...common,
        customData,
        tags: { ...tags, description: "The tags as submitted." },
        derivedTags: {
          type: "array",
          items: { type: "string" },
          description: "The tags the type's catalogue step derived (`api`, `openapi`, `v<version>` for `apis`); `?tag=` matches them too.",
        },
        dateCreated: { type: "integer", format: "int64", description: "Epoch milliseconds." },
        dateModified: { type: "integer", format: "int64", description: "Epoch milliseconds." },
      },
    },
    [`${P}EntryList`]: {
      type: "object",
      required: ["items", "next"],
      properties: {
        items: { type: "array", items: ref(`${P}Entry`) },
        next: { type: ["string", "null"], description: "Cursor of the next page; null on the last page." },
      },
    },
  };
}

/** The error bodies, the same in every type's document. */
function errorSchemas(): Record<string, unknown> {
  const requestId = { type: "string", description: "Equals the `X-Request-Id` response header." };
  return {
    Error: {
      type: "object",
      required: ["error", "requestId"],
      properties: {
        error: { type: "string" },
        details: { description: "Machine-readable detail; its shape depends on the error." },
        requestId,
      },
    },
    Issue: {
      type: "object",
      required: ["path", "message"],
      properties: { path: { type: "string", examples: ["customData.contact.email"] }, message: { type: "string" } },
    },
    ValidationError: {
      type: "object",
      required: ["error", "details", "requestId"],
      properties: { error: { type: "string" }, details: { type: "array", items: ref("Issue") }, requestId },
    },
    BadRequestError: {
      type: "object",
      required: ["error", "requestId"],
      properties: {
        error: { type: "string" },
        details: {
          type: "array",
          items: ref("Issue"),
          description: "Every failing field; for a body that is not JSON, one item with an empty path and the parser's reason.",
        },
        requestId,
      },
    },
    InternalError: {
      type: "object",
      required: ["error", "requestId"],
      properties: { error: { type: "string", const: "internal error" }, requestId },
    },
  };
}

/** The error responses the operations refer to. */
function sharedResponses(): Record<string, unknown> {
  return {
    BadRequest: {
      description: "Body not JSON, not an object, or a common field missing, of the wrong type or out of its limits.",
      content: json(ref("BadRequestError")),
    },
    Unauthorized: {
      description: "Bearer token missing, malformed, expired, or with a wrong signature, issuer or audience.",
      headers: { "WWW-Authenticate": { schema: { type: "string" } } },
      content: json(ref("Error")),
    },
    Forbidden: { description: "The entry belongs to someone else.", content: json(ref("Error")) },
    NotFound: { description: "No such entry.", content: json(ref("Error")) },
    PayloadTooLarge: { description: "Body over the size limit.", content: json(ref("Error")) },
    UnsupportedMediaType: { description: "Body is not `application/json`.", content: json(ref("Error")) },
    Unprocessable: {
      description:
        "`customData` failed the type's schema or a rule the schema's description states (or, for `apis`, the spec failed to fetch or validate).",
      content: json(ref("ValidationError")),
    },
    ServiceUnavailable: {
      description:
        "The database stayed busy past its lock timeout (with `Retry-After`), or, for a type with a catalogue step, the OpenAPI validation address did not answer; nothing was saved, retry later.",
      content: json(ref("Error")),
    },
    PreconditionFailed: {
      description: "`If-Match` names a version the entry has moved past: nothing changed; read it again.",
      content: json(ref("Error")),
    },
    InternalError: { description: "Server processing error.", content: json(ref("InternalError")) },
  };
}

/** `POST` and `GET .../data`: submit and list. `input` is the request schema, inlined for client generators. */
function collectionPath(c: DocumentContext, input: unknown) {
  const { P, type, limits: L } = c;
  return {
    post: {
      operationId: `create${P}Entry`,
      summary: `Submit a ${type.id} entry`,
      tags: [P],
      security: secured(),
      requestBody: { required: true, content: json({ ...(input as object) }) },
      responses: {
        "201": {
          description: "Created.",
          headers: {
            Location: {
              description: "Path of the created entry, mount prefix included.",
              required: true,
              schema: { type: "string", format: "uri-reference" },
            },
            ...VERSION_HEADERS(),
          },
          content: json(ref(`${P}Entry`)),
        },
        ...errors(
          ["400", "BadRequest"],
          ["401", "Unauthorized"],
          ["413", "PayloadTooLarge"],
          ["415", "UnsupportedMediaType"],
          ["422", "Unprocessable"],
          ["500", "InternalError"],
          ["503", "ServiceUnavailable"],
        ),
      },
    },
    get: {
      operationId: `list${P}Entries`,
      summary: `List ${type.id} entries, newest first`,
      tags: [P],
      parameters: [
        cursorParam(),
        { name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: L.listMax, default: 20 } },
        { name: "tag", in: "query", required: false, schema: { type: "string" }, description: "Only entries with this tag." },
        { name: "ownerId", in: "query", required: false, schema: { type: "string" }, description: "Only entries of this owner." },
        {
          name: "q",
          in: "query",
          required: false,
          schema: { type: "string", minLength: 1, maxLength: L.query },
          description: "Only entries whose name or description contains this text (ASCII letters match either case).",
        },
      ],
      responses: {
        "200": { description: "A page of entries.", content: json(ref(`${P}EntryList`)) },
        ...errors(["400", "BadRequest"], ["500", "InternalError"]),
      },
    },
  };
}

/** `GET`, `PATCH` and `DELETE .../data/{id}`. */
function itemPath(c: DocumentContext) {
  const { P, type } = c;
  return {
    parameters: [idParam()],
    get: {
      operationId: `get${P}Entry`,
      summary: `Get a ${type.id} entry`,
      tags: [P],
      parameters: [
        {
          name: "If-None-Match",
          in: "header",
          required: false,
          schema: { type: "string" },
          description: "ETags (weak comparison) or `*`: 304 without a body when the entry is still at one of them.",
        },
      ],
      responses: {
        "200": { description: "The entry.", headers: VERSION_HEADERS(), content: json(ref(`${P}Entry`)) },
        "304": { description: "`If-None-Match` names the entry as it is: no body.", headers: VERSION_HEADERS() },
        ...errors(["400", "BadRequest"], ["404", "NotFound"], ["500", "InternalError"]),
      },
    },
    patch: {
      operationId: `update${P}Entry`,
      summary: `Change a ${type.id} entry (owner only)`,
      tags: [P],
      security: secured(),
      parameters: [ifMatchParam()],
      requestBody: { required: true, content: json(ref(`${P}EntryPatch`)) },
      responses: {
        "200": { description: "The updated entry; `dateModified` moved.", headers: VERSION_HEADERS(), content: json(ref(`${P}Entry`)) },
        ...ownerWriteErrors(["413", "PayloadTooLarge"], ["415", "UnsupportedMediaType"], ["422", "Unprocessable"]),
      },
    },
    delete: {
      operationId: `delete${P}Entry`,
      summary: `Delete a ${type.id} entry (owner only)`,
      tags: [P],
      security: secured(),
      parameters: [ifMatchParam()],
      responses: {
        "204": { description: "Deleted, with its revisions." },
        ...ownerWriteErrors(),
      },
    },
  };
}

/** The inventory of a type with a catalogue step: its schemas and its path. */
function inventoryPart(c: DocumentContext) {
  const { P, limits: L } = c;
  const schemas = {
    Operation: {
      type: "object",
      required: ["method", "path"],
      properties: { method: { type: "string" }, path: { type: "string" }, operationId: { type: "string" }, summary: { type: "string" } },
    },
    Inventory: {
      type: "object",
      required: ["version", "endpoints", "paths", "tags", "operations", "next"],
      properties: {
        title: { type: "string" },
        specVersion: { type: "string", description: "`openapi`/`swagger` field of the catalogued document." },
        version: { type: "string", description: "`info.version` of the catalogued API." },
        endpoints: { type: "integer", description: "(path, method) pairs." },
        paths: { type: "integer", description: "Distinct paths." },
        tags: { type: "array", items: { type: "string" } },
        operations: { type: "array", items: ref("Operation") },
        next: { type: ["string", "null"] },
      },
    },
  };
  const path = {
    parameters: [idParam()],
    get: {
      operationId: `get${P}Inventory`,
      summary: "The catalogued API: version, counts and a page of operations",
      tags: [P],
      parameters: [
        cursorParam(),
        { name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: L.operationsMax, default: 100 } },
      ],
      responses: {
        "200": { description: "Inventory.", content: json(ref("Inventory")) },
        ...errors(["400", "BadRequest"], ["404", "NotFound"], ["500", "InternalError"]),
      },
    },
  };
  return { schemas, path };
}

export function typeDocument(type: EntryType, o: TypeDocumentOptions): Record<string, unknown> {
  const P = pascal(type.id);
  const base = `/api/v1/types/${type.id}`;
  // only a type with a catalogue step calls the validation address
  const c: DocumentContext = { type, P, base, limits: o.limits };
  const schemas: Record<string, unknown> = {};
  const { $schema: _d, ...raw } = type.schema.jsonSchema;
  // one customData schema for requests and entries alike (clients share the type): its optional members take null as absent
  const customData = nullableOptionals(hoistDefs(raw, `${P}CustomData_`, schemas)) as JsonSchema;
  Object.assign(schemas, entrySchemas(c, customData), errorSchemas());
  const responses = sharedResponses();
  const paths: Record<string, unknown> = {
    [`${base}/data`]: collectionPath(c, schemas[`${P}EntryInput`]),
    [`${base}/data/{id}`]: itemPath(c),
    [`${base}/openapi.json`]: {
      get: {
        operationId: `get${P}OpenApi`,
        summary: "This document",
        tags: [P],
        responses: { "200": { description: "OpenAPI 3.1 document.", content: json({ type: "object" }) } },
      },
    },
  };
  const revisions = revisionsPart(c, customData);
  Object.assign(schemas, revisions.schemas);
  Object.assign(paths, revisions.paths);
  if (o.inventory) {
    const inventory = inventoryPart(c);
    Object.assign(schemas, inventory.schemas);
    paths[`${base}/data/{id}/inventory`] = inventory.path;
  }

  withRequestIdHeaders(paths, responses);
  return {
    openapi: "3.1.0",
    info: {
      title: `${type.title} entries`,
      version: "1",
      ...(type.description ? { description: type.description } : {}),
    },
    servers: [{ url: o.basePath || "/" }],
    tags: [{ name: P, description: type.description ?? `Entries of type ${type.id}` }],
    paths,
    components: {
      schemas,
      responses,
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "ID token of the identity provider; `sub` becomes `ownerId`.",
        },
      },
    },
  };
}

/** Every response carries X-Request-Id; on errors it is always there and equals the body's `requestId`. */
function withRequestIdHeaders(paths: Record<string, unknown>, shared: Record<string, unknown>): void {
  const header = (required: boolean) => ({
    description: required
      ? "The request's id, equal to `requestId` in the body."
      : "The request's id, when the client sent one or the service assigned one.",
    ...(required ? { required: true } : {}),
    schema: { type: "string" },
  });
  const add = (status: string, response: Record<string, unknown>) => {
    if ("$ref" in response) return;
    response.headers = { ...(response.headers as object | undefined), "X-Request-Id": header(Number(status) >= 400) };
  };
  for (const response of Object.values(shared)) add("400", response as Record<string, unknown>);
  for (const item of Object.values(paths) as Array<Record<string, unknown>>)
    for (const op of Object.values(item)) {
      const responses = (op as { responses?: Record<string, Record<string, unknown>> }).responses;
      if (responses) for (const [status, response] of Object.entries(responses)) add(status, response);
    }
}
