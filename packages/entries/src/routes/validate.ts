// `POST /api/dev/validate-openapi/` (with or without the slash): the validation address served by the kit.
import { json, route } from "@mountkit/core";
import * as z from "zod";
import { type SafeFetchOptions, SpecFetchError, safeFetch } from "../fetch/safe-fetch.js";
import { sameOriginFetcher } from "../inventory/apis-hook.js";
import { entriesError } from "../errors.js";
import { decodeText, parseText } from "../openapi/parse.js";
import { type SpecPool, SpecPoolBusyError } from "../openapi/pool.js";
import type { ValidationAnswer } from "../openapi/validate.js";

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
    notices: z.array(issue).optional(),
  }),
  z.object({ valid: z.literal(false), errors: z.array(issue) }),
]);

const isUrlRequest = (v: unknown): v is { url: string } =>
  typeof v === "object" &&
  v !== null &&
  !Array.isArray(v) &&
  Object.keys(v).length === 1 &&
  typeof (v as { url?: unknown }).url === "string";

/** A `{ "url": ... }` request is a few hundred bytes: only bodies this small are parsed here, on the event loop. */
const URL_REQUEST_MAX_BYTES = 8 * 1024;

function urlRequest(raw: Uint8Array): string | undefined {
  if (raw.byteLength > URL_REQUEST_MAX_BYTES) return undefined;
  const text = decodeText(raw);
  if (text === undefined) return undefined;
  const parsed = parseText(text);
  return parsed.ok && isUrlRequest(parsed.value) ? parsed.value.url : undefined;
}

/**
 * Validates a posted document, or the one at `{ "url": ... }` (fetched here under the spec-fetch policy). Parsing,
 * validation and cataloguing run in the spec pool, so a large or hostile document never holds the event loop.
 */
export async function answerFor(
  raw: Uint8Array | undefined,
  o: { baseUrl?: string; fetch: SafeFetchOptions; pool: SpecPool },
): Promise<ValidationAnswer> {
  const invalid = (path: string, message: string): ValidationAnswer => ({ valid: false, errors: [{ path, message }] });
  if (!raw || raw.byteLength === 0) return invalid("", 'the body is empty: post an OpenAPI document or { "url": string }');
  let body = raw;
  let baseUrl = o.baseUrl;
  const url = urlRequest(raw);
  if (url !== undefined) {
    try {
      const fetched = await safeFetch(url, o.fetch);
      body = fetched.body;
      baseUrl = fetched.url;
    } catch (e) {
      if (e instanceof SpecFetchError) return invalid("url", e.kind === "refused" ? `refused: ${e.message}` : e.message);
      throw e;
    }
  }
  try {
    const outcome = await o.pool.validate(body, {
      baseUrl,
      fetchDocument: baseUrl ? sameOriginFetcher(o.fetch) : undefined,
      signal: o.fetch.signal,
    });
    return outcome.answer;
  } catch (e) {
    if (e instanceof SpecPoolBusyError) throw entriesError("validator_unavailable", { cause: e });
    throw e;
  }
}

export function validateRoutes(o: { fetch: SafeFetchOptions; bodyLimit: number; pool: SpecPool }) {
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
        const answer = await answerFor(ctx.rawBody, { baseUrl: ctx.query.baseUrl, fetch: fetchOptions, pool: o.pool });
        return json(answer.valid ? 200 : 422, answer);
      },
    });
  return [make("/api/dev/validate-openapi/", false), make("/api/dev/validate-openapi", true)];
}
