// `POST /api/dev/validate-openapi/` (with or without the slash): the validation address served by the kit.
import { json, route } from "@mountkit/core";
import * as z from "zod";
import type { EntriesApi } from "../api.js";
import { errorSchema } from "../errors.js";

export const SPEC_CONTENT_TYPES = [
  "application/json",
  "application/yaml",
  "application/x-yaml",
  "text/yaml",
  "text/x-yaml",
  "text/plain",
  "application/vnd.oai.openapi",
];

const issue = z.object({
  path: z.string().describe("JSON Pointer of the part concerned; empty for the whole document"),
  message: z.string(),
  line: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("1-based line of `path` in the posted or fetched text (the key, for an object member), when known"),
  column: z.number().int().min(1).optional().describe("1-based column of the same place, in UTF-16 code units"),
});
const lintResult = z.object({
  rule: z.string().describe("The rule's code (`operation-operationId`), or Spectral's own: `parser`, `invalid-ref`, `unrecognized-format`"),
  severity: z.enum(["error", "warning", "info", "hint"]),
  message: z.string(),
  path: z.string().describe("JSON Pointer of the part concerned, in the document named by `source` (the validated one when absent)"),
  line: issue.shape.line,
  column: issue.shape.column,
  source: z.string().optional().describe("URL of the external (`$ref`-ed) document the finding is in"),
});
const lintCounts = z.object({ error: z.number().int(), warning: z.number().int(), info: z.number().int(), hint: z.number().int() });
const lintSchema = z
  .object({
    ruleset: z.string().describe("The ruleset applied: `oas`, or the name of the deployment's own"),
    results: z.array(lintResult).describe("Findings in Spectral's order, at most the deployment's `lint.maxResults` (default 200)"),
    resultCount: z.number().int().describe("All findings; `results` may hold fewer"),
    counts: lintCounts.describe("All findings by severity"),
    failed: z
      .string()
      .optional()
      .describe(
        "Linting did not finish (a limit reached, the ruleset could not be loaded, a rule failed): why; results and counts are then empty",
      ),
  })
  .describe("Spec linting with Spectral beside the validation (docs/entries.md#spec-linting); absent when the deployment lints nothing");
const answerSchema = z.union([
  z.object({
    valid: z.literal(true),
    openapi: z.string(),
    title: z.string(),
    version: z.string(),
    endpoints: z.number().int(),
    paths: z.number().int(),
    warnings: z.array(issue),
    warningCount: z.number().int(),
    notices: z.array(issue).optional(),
    lint: lintSchema.optional(),
  }),
  z.object({ valid: z.literal(false), errors: z.array(issue) }),
]);

export function validateRoutes(o: { api: EntriesApi; bodyLimit: number }) {
  const make = (path: string, internal: boolean) =>
    route({
      method: "POST",
      path,
      operationId: internal ? "validateOpenApiNoSlash" : "validateOpenApi",
      summary: "Validate an OpenAPI (3.0, 3.1) or Swagger 2.0 document, JSON or YAML, or { url }",
      tags: ["validation"],
      internal,
      bodyMode: "raw",
      accepts: SPEC_CONTENT_TYPES,
      bodyLimit: o.bodyLimit,
      query: z.object({ baseUrl: z.url({ protocol: /^https?$/ }).optional() }),
      responses: {
        200: { description: "Valid: can be catalogued", schema: answerSchema },
        422: { description: "Invalid", schema: answerSchema },
        503: {
          description: "The validation processes are busy or the remote validation address did not answer; retry later",
          schema: errorSchema,
        },
      },
      async handler(ctx) {
        const answer = await o.api.validateOpenApi(ctx.rawBody ?? new Uint8Array(0), { baseUrl: ctx.query.baseUrl, signal: ctx.signal });
        return json(answer.valid ? 200 : 422, answer);
      },
    });
  return [make("/api/dev/validate-openapi/", false), make("/api/dev/validate-openapi", true)];
}
