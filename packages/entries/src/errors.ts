// The entries service's error codes and wire body: `{ error, details? }`, and `{ error: "internal error", requestId }` for 500.
import { defineErrors, type KitError } from "@mountkit/core";
import * as z from "zod";

export const entriesError = defineErrors({
  invalid_request: { status: 400, message: "invalid request" },
  invalid_cursor: { status: 400, message: "invalid cursor" },
  unauthorized: { status: 401, message: "missing or invalid authentication token" },
  forbidden: { status: 403, message: "only the entry's owner may change it" },
  not_found: { status: 404, message: "not found" },
  unknown_type: { status: 404, message: "unknown type" },
  validation_failed: { status: 422, message: "customData failed validation against the type's schema" },
  spec_refused: { status: 422, message: "specUrl refused" },
  spec_unavailable: { status: 422, message: "specUrl could not be fetched" },
  spec_invalid: { status: 422, message: "the OpenAPI document failed validation" },
  validator_unavailable: { status: 503, message: "the OpenAPI validation address is unavailable" },
  internal: { status: 500, message: "internal error" },
});

export function errorBody(error: KitError, requestId: string): unknown {
  if (error.status === 500) return { error: "internal error", requestId };
  return error.details === undefined ? { error: error.message } : { error: error.message, details: error.details };
}

export const errorSchema = z.object({ error: z.string(), details: z.unknown().optional() });

export interface Issue {
  path: string;
  message: string;
}
