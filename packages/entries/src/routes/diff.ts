// Spec diffs (docs/entries.md#spec-diffs): `POST /api/dev/diff-openapi/` compares two posted or fetched documents, beside
// the validation address; `GET .../revisions/:revision/diff/:against` compares the specs of two revisions of an entry.
import { json, type Middleware, route } from "@mountkit/core";
import * as z from "zod";
import type { EntriesApi } from "../api.js";
import { CHANGE_ACTIONS, CHANGE_KINDS } from "../diff/types.js";
import { errorSchema } from "../errors.js";
import { revisionParams } from "./schemas.js";

const change = z.object({
  kind: z
    .enum(CHANGE_KINDS)
    .describe("How the change affects existing clients; `breaking`: a client written for `base` may fail on `head`"),
  action: z.enum(CHANGE_ACTIONS),
  path: z
    .string()
    .describe(
      "JSON Pointer of the changed node: in `head` for `add`, in `base` otherwise (both as compared: Swagger 2.0 upgraded to OpenAPI 3.0)",
    ),
  before: z.unknown().optional().describe("The value before, when at most about 512 characters of JSON"),
  after: z.unknown().optional().describe("The value after, likewise"),
  valueElided: z.boolean().optional().describe("`before`/`after` were left out for their size"),
  message: z.string().describe("The change in words"),
  operation: z.object({ method: z.string(), path: z.string() }).optional().describe("The operation the change is in"),
  rule: z.string().optional().describe("The kit's rule that classified the change, where it overrides the diff library's verdict"),
});
const side = z.object({ openapi: z.string(), title: z.string(), version: z.string() });
export const specDiffSchema = z.object({
  breaking: z.boolean().describe("At least one change is breaking"),
  counts: z.object(
    Object.fromEntries(CHANGE_KINDS.map((k) => [k, z.number().int()])) as Record<(typeof CHANGE_KINDS)[number], z.ZodNumber>,
  ),
  changeCount: z.number().int().describe("All changes found; `changes` lists at most 1,000, breaking first"),
  changes: z.array(change),
  base: side,
  head: side,
});
const revisionDiffSchema = specDiffSchema.extend({
  revisions: z.object({ base: z.number().int(), head: z.number().int() }),
  specUrls: z.object({ base: z.string(), head: z.string() }).describe("The spec address each revision held, fetched now"),
});

const unavailable = { description: "The diff processes are busy (or there are none on this runtime); retry later", schema: errorSchema };
const failed = {
  description: "A document could not be compared: not JSON/YAML, not OpenAPI 2.0/3.0/3.1, over a limit, or its URL refused or unreachable",
  schema: errorSchema,
};

export function diffRoutes(o: { api: EntriesApi; knownType: Middleware; bodyLimit: number }) {
  const { api } = o;
  const post = (path: string, internal: boolean) =>
    route({
      method: "POST",
      path,
      operationId: internal ? "diffOpenApiNoSlash" : "diffOpenApi",
      summary: "Compare two OpenAPI (3.0, 3.1) or Swagger 2.0 documents and classify every change: breaking or not",
      tags: ["validation"],
      internal,
      bodyMode: "raw",
      accepts: ["application/json"],
      bodyLimit: o.bodyLimit,
      responses: {
        200: { description: "The changes from `base` to `head`, breaking first", schema: specDiffSchema },
        400: { description: 'The body is not JSON { "base", "head" }', schema: errorSchema },
        422: failed,
        503: unavailable,
      },
      async handler(ctx) {
        return json(200, await api.diffOpenApi(ctx.rawBody ?? new Uint8Array(0), { signal: ctx.signal }));
      },
    });
  return [
    post("/api/dev/diff-openapi/", false),
    post("/api/dev/diff-openapi", true),
    route({
      method: "GET",
      path: "/api/v1/types/:typeId/data/:id/revisions/:revision/diff/:against",
      operationId: "diffEntryRevisions",
      summary: "The changes between the specs of two revisions of an entry (`apis`): from `revision` to `against`, breaking first",
      tags: ["entries"],
      params: revisionParams.extend({ against: revisionParams.shape.revision }),
      use: [o.knownType],
      responses: {
        200: { description: "The changes, with the revisions and spec addresses compared", schema: revisionDiffSchema },
        404: { description: "No such entry or revision, or the type's entries carry no spec", schema: errorSchema },
        422: failed,
        503: unavailable,
      },
      async handler(ctx) {
        const { typeId, id } = ctx.params;
        const base = Number(ctx.params.revision);
        const head = Number(ctx.params.against);
        return json(200, await api.diffRevisions({ typeId, id, base, head, signal: ctx.signal }));
      },
    }),
  ];
}
