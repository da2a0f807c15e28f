// The revisions part of a per-type OpenAPI document: the type's revision schema (its customData inlined) and the
// list, read and restore paths (docs/entries.md#revisions-and-versions).
import {
  cursorParam,
  type DocumentContext,
  errors,
  idParam,
  ifMatchParam,
  json,
  ownerWriteErrors,
  ref,
  secured,
  VERSION_HEADERS,
} from "./doc-parts.js";

export function revisionsPart(c: DocumentContext, customData: unknown) {
  const { P, type, base, limits: L } = c;
  const revisionParam = () => ({
    name: "revision",
    in: "path",
    required: true,
    schema: { type: "integer", minimum: 1 },
    description: "Revision number.",
  });
  const schemas = {
    [`${P}Revision`]: {
      type: "object",
      required: [
        "typeId",
        "entryId",
        "revision",
        "authorId",
        "date",
        "name",
        "description",
        "customData",
        "tags",
        "derivedTags",
        "restoredFrom",
      ],
      properties: {
        typeId: { type: "string", const: type.id },
        entryId: { type: "string" },
        revision: { type: "integer", minimum: 1, description: "1 for the submission, then one more per change." },
        authorId: { type: "string", description: "`sub` of who made the change." },
        date: { type: "integer", description: "The entry's `dateModified` after the change (epoch ms)." },
        name: { type: "string" },
        description: { type: "string" },
        customData,
        tags: { type: "array", items: { type: "string" }, description: "The entry's tags after the change." },
        derivedTags: {
          type: "array",
          items: { type: "string" },
          description: "The tags the type's catalogue step derived, apart from `tags`.",
        },
        restoredFrom: { type: ["integer", "null"], description: "The revision this change restored." },
      },
    },
    [`${P}RevisionList`]: {
      type: "object",
      required: ["items", "next"],
      properties: { items: { type: "array", items: ref(`${P}Revision`) }, next: { type: ["string", "null"] } },
    },
  };
  const paths = {
    [`${base}/data/{id}/revisions`]: {
      parameters: [idParam()],
      get: {
        operationId: `list${P}Revisions`,
        summary: "The entry's revisions, newest first",
        tags: [P],
        parameters: [
          cursorParam(),
          { name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: L.listMax, default: 20 } },
        ],
        responses: {
          "200": { description: "A page of revisions.", content: json(ref(`${P}RevisionList`)) },
          ...errors(["400", "BadRequest"], ["404", "NotFound"], ["500", "InternalError"]),
        },
      },
    },
    [`${base}/data/{id}/revisions/{revision}`]: {
      parameters: [idParam(), revisionParam()],
      get: {
        operationId: `get${P}Revision`,
        summary: "One revision of the entry",
        tags: [P],
        responses: {
          "200": { description: "The revision.", content: json(ref(`${P}Revision`)) },
          ...errors(["400", "BadRequest"], ["404", "NotFound"], ["500", "InternalError"]),
        },
      },
    },
    [`${base}/data/{id}/revisions/{revision}/restore`]: {
      parameters: [idParam(), revisionParam()],
      post: {
        operationId: `restore${P}Revision`,
        summary: "Make the revision's name, description, customData and own tags current again, as a new revision (owner only)",
        tags: [P],
        security: secured(),
        parameters: [ifMatchParam()],
        responses: {
          "200": { description: "The entry as restored.", headers: VERSION_HEADERS(), content: json(ref(`${P}Entry`)) },
          ...ownerWriteErrors(["422", "Unprocessable"]),
        },
      },
    },
  };
  return { schemas, paths };
}
