// `POST /api/dev/validate-openapi/` (with or without the slash): the validation address served by the kit.
import { json, route } from "@mountkit/core";
import * as z from "zod";
import { type SafeFetchOptions, SpecFetchError, safeFetch } from "../fetch/safe-fetch.js";
import { sameOriginFetcher } from "../inventory/apis-hook.js";
import { checkDocument, decodeText, parseText } from "../openapi/parse.js";
import { type ValidationAnswer, validateSpec } from "../openapi/validate.js";

export const SPEC_CONTENT_TYPES = [
  "application/json",
  "application/yaml",
  "application/x-yaml",
  "text/yaml",
  "text/x-yaml",
  "text/plain",
  "application/vnd.oai.openapi",
];

const issue = z.object({ path: z.string(), message: z.string() });
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
  }),
  z.object({ valid: z.literal(false), errors: z.array(issue) }),
]);

const isUrlRequest = (v: unknown): v is { url: string } =>
  typeof v === "object" &&
  v !== null &&
  !Array.isArray(v) &&
  Object.keys(v).length === 1 &&
  typeof (v as { url?: unknown }).url === "string";

/** Validates a posted document, or the one at `{ "url": ... }` (fetched under the spec-fetch policy). */
export async function answerFor(raw: Uint8Array | undefined, o: { baseUrl?: string; fetch: SafeFetchOptions }): Promise<ValidationAnswer> {
  const invalid = (path: string, message: string): ValidationAnswer => ({ valid: false, errors: [{ path, message }] });
  if (!raw || raw.byteLength === 0) return invalid("", 'the body is empty: post an OpenAPI document or { "url": string }');
  const text = decodeText(raw);
  if (text === undefined) return invalid("", "the document is not valid UTF-8");
  const parsed = parseText(text);
  if (!parsed.ok) return invalid(parsed.path ?? "", parsed.message);
  let checked = checkDocument(parsed.value, parsed.format, text);
  let baseUrl = o.baseUrl;
  if (isUrlRequest(parsed.value)) {
    let fetched: Awaited<ReturnType<typeof safeFetch>>;
    try {
      fetched = await safeFetch(parsed.value.url, o.fetch);
    } catch (e) {
      if (e instanceof SpecFetchError) return invalid("url", e.kind === "refused" ? `refused: ${e.message}` : e.message);
      throw e;
    }
    baseUrl = fetched.url;
    const t = decodeText(fetched.body);
    if (t === undefined) return invalid("", "the document is not valid UTF-8");
    const p = parseText(t);
    if (!p.ok) return invalid(p.path ?? "", p.message);
    checked = checkDocument(p.value, p.format, t);
  }
  if (!checked.ok) return { valid: false, errors: checked.errors };
  const outcome = await validateSpec(checked.spec, { baseUrl, fetchDocument: baseUrl ? sameOriginFetcher(o.fetch) : undefined });
  return outcome.answer;
}

export function validateRoutes(o: { fetch: SafeFetchOptions; bodyLimit: number }) {
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
      },
      async handler(ctx) {
        const fetchOptions = { ...o.fetch, signal: ctx.signal };
        const answer = await answerFor(ctx.rawBody, { baseUrl: ctx.query.baseUrl, fetch: fetchOptions });
        return json(answer.valid ? 200 : 422, answer);
      },
    });
  return [make("/api/dev/validate-openapi/", false), make("/api/dev/validate-openapi", true)];
}
