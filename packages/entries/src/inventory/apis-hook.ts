// The `apis` submission step: fetch specUrl safely, have the validation address judge it, catalogue it.
import { entriesError } from "../errors.js";
import { type SafeFetchOptions, SpecFetchError, safeFetch } from "../fetch/safe-fetch.js";
import { type ValidationClient, ValidatorUnavailableError } from "../openapi/client.js";
import { parseSpec } from "../openapi/parse.js";
import { checkRefs } from "../openapi/refs.js";
import { externalLoader } from "../openapi/validate.js";
import type { ApisCustomData } from "../types/apis.js";
import type { EntryTypeDefinition, Preparation } from "../types/registry.js";
import { catalogue } from "./catalogue.js";

const SPEC_PATH = "customData.specUrl";

/** Same-origin fetch for external `$ref` documents, under the same policy as specUrl itself. */
export function sameOriginFetcher(fetchOptions: SafeFetchOptions) {
  return async (url: URL) => (await safeFetch(url, fetchOptions)).body;
}

/** A counting semaphore: at most `n` holders at once, the rest wait in arrival order. */
export function semaphore(n: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((r) => waiting.push(r));
    else active++;
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

export function apisPrepare(deps: {
  client: ValidationClient;
  fetch: SafeFetchOptions;
  maxConcurrent?: number;
}): NonNullable<EntryTypeDefinition["prepare"]> {
  // A multi-MB spec takes tens of MB of heap while it is parsed and checked: bound how many are in flight.
  const limit = semaphore(deps.maxConcurrent ?? 4);
  return (customData, ctx) => limit(() => prepareOne(deps, customData, ctx));
}

async function prepareOne(
  deps: { client: ValidationClient; fetch: SafeFetchOptions },
  customData: unknown,
  ctx: { signal: AbortSignal },
): Promise<Preparation> {
  const { specUrl } = customData as ApisCustomData;
  const fetchOptions = { ...deps.fetch, signal: ctx.signal };
  let fetched: Awaited<ReturnType<typeof safeFetch>>;
  try {
    fetched = await safeFetch(specUrl, fetchOptions);
  } catch (e) {
    if (!(e instanceof SpecFetchError)) throw e;
    const code = e.kind === "refused" ? "spec_refused" : "spec_unavailable";
    const lead = e.kind === "refused" ? "specUrl refused" : "specUrl could not be fetched";
    throw entriesError(code, { message: `${lead}: ${e.message}`, details: [{ path: SPEC_PATH, message: e.message }] });
  }
  let outcome: Awaited<ReturnType<ValidationClient["validate"]>>;
  try {
    outcome = await deps.client.validate({
      body: fetched.body,
      contentType: fetched.contentType,
      baseUrl: fetched.url,
      signal: ctx.signal,
    });
  } catch (e) {
    // the reason names the operator's validator address: it goes to the log (cause), not to the client
    if (e instanceof ValidatorUnavailableError) throw entriesError("validator_unavailable", { cause: e });
    throw e;
  }
  const { answer } = outcome;
  if (!answer.valid) {
    throw entriesError("spec_invalid", {
      message: `the OpenAPI document at specUrl failed validation: ${answer.errors.map((x) => x.message).join("; ")}`,
      details: answer.errors.map((x) => ({ path: SPEC_PATH, message: x.path ? `${x.path}: ${x.message}` : x.message })),
    });
  }
  let inventory = outcome.inventory;
  if (!inventory) {
    // A remote validator answers without operations: catalogue here, from the bytes already fetched.
    const parsed = parseSpec(fetched.body);
    if (!parsed.ok) throw entriesError("spec_invalid", { details: parsed.errors.map((x) => ({ path: SPEC_PATH, message: x.message })) });
    const refs = await checkRefs(parsed.spec.document, { baseUrl: fetched.url, load: externalLoader(sameOriginFetcher(fetchOptions)) });
    inventory = catalogue(parsed.spec, refs.pathItem);
  }
  return { tags: inventory.tags, inventory };
}
