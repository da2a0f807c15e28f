// The `apis` submission step: fetch specUrl safely, have the validation address judge it, catalogue it.

import { type SafeFetchOptions, SpecFetchError } from "@mountkit/core/outbound";
import { specRuntime } from "#runtime/spec";
import { entriesError } from "../errors.js";
import { type ValidateRequest, type ValidationClient, ValidatorUnavailableError } from "../openapi/client.js";
import { SpecPoolBusyError } from "../openapi/pool-types.js";
import type { ValidationOutcome } from "../openapi/validate.js";
import type { ApisCustomData } from "../types/apis.js";
import type { EntryType, Preparation } from "../types/registry.js";
import { semaphore } from "./semaphore.js";

const SPEC_PATH = "customData.specUrl";

interface PrepareDeps {
  client: ValidationClient;
  fetch: SafeFetchOptions;
  /** Validates and catalogues in this process (the spec pool): used when a remote validator answers without operations. */
  local: (req: ValidateRequest) => Promise<ValidationOutcome>;
}

export function apisPrepare(deps: PrepareDeps & { maxConcurrent?: number }): NonNullable<EntryType["prepare"]> {
  // A multi-MB spec takes tens of MB of heap while it is parsed and checked: bound how many are in flight.
  const limit = semaphore(deps.maxConcurrent ?? 4);
  return (customData, ctx) => limit(() => prepareOne(deps, customData, ctx));
}

async function prepareOne(deps: PrepareDeps, customData: unknown, ctx: { signal: AbortSignal }): Promise<Preparation> {
  const { specUrl } = customData as ApisCustomData;
  const fetchOptions = { ...deps.fetch, signal: ctx.signal };
  let fetched: Awaited<ReturnType<typeof specRuntime.safeFetch>>;
  try {
    fetched = await specRuntime.safeFetch(specUrl, fetchOptions);
  } catch (e) {
    if (!(e instanceof SpecFetchError)) throw e;
    const code = e.kind === "refused" ? "spec_refused" : "spec_unavailable";
    const lead = e.kind === "refused" ? "specUrl refused" : "specUrl could not be fetched";
    throw entriesError(code, { message: `${lead}: ${e.message}`, details: [{ path: SPEC_PATH, message: e.message }] });
  }
  let outcome: Awaited<ReturnType<ValidationClient["validate"]>>;
  try {
    // an entry keeps no lint: its submission does not wait for one
    outcome = await deps.client.validate({
      body: fetched.body,
      contentType: fetched.contentType,
      baseUrl: fetched.url,
      signal: ctx.signal,
      lint: false,
    });
  } catch (e) {
    // the reason names the operator's validator address: it goes to the log (cause), not to the client
    if (e instanceof ValidatorUnavailableError || e instanceof SpecPoolBusyError) throw entriesError("validator_unavailable", { cause: e });
    throw e;
  }
  const { answer } = outcome;
  if (!answer.valid) {
    throw entriesError("spec_invalid", {
      message: `the OpenAPI document at specUrl failed validation: ${answer.errors.map((x) => x.message).join("; ")}`,
      details: answer.errors.map((x) => {
        const at = x.line === undefined ? "" : ` (line ${x.line}, column ${x.column})`;
        return { path: SPEC_PATH, message: x.path || at ? `${x.path}${at}: ${x.message}`.trimStart() : x.message };
      }),
    });
  }
  let inventory = outcome.inventory;
  if (!inventory) {
    // A remote validator answers without operations: catalogue here, from the bytes already fetched.
    const local = await deps.local({
      body: fetched.body,
      contentType: fetched.contentType,
      baseUrl: fetched.url,
      signal: ctx.signal,
      lint: false,
    });
    if (!local.answer.valid || !local.inventory)
      throw entriesError("spec_invalid", {
        details: (local.answer.valid ? [] : local.answer.errors).map((x) => ({ path: SPEC_PATH, message: x.message })),
      });
    inventory = local.inventory;
  }
  return { tags: inventory.tags, inventory };
}
