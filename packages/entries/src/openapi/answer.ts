// The validation address's judgement of one request body: a posted document, or the one at `{ "url": ... }`.

import { type SafeFetchOptions, SpecFetchError } from "@mountkit/core/outbound";
import { specRuntime } from "#runtime/spec";
import { entriesError } from "../errors.js";
import { decodeText, parseText } from "./parse.js";
import { type SpecPool, SpecPoolBusyError } from "./pool-types.js";
import { sameOriginFetcher } from "./same-origin.js";
import type { ValidationAnswer } from "./validate.js";

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
      const fetched = await specRuntime.safeFetch(url, o.fetch);
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
