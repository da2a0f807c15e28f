// The entries service's error codes; its wire body is the kit's one body `{ error, details?, requestId }`.
import { defineServiceErrors, ErrorBodySchema } from "@mountkit/core";

export const entriesError = defineServiceErrors({
  invalid_cursor: { status: 400, message: "invalid cursor" },
  unauthorized: { status: 401, message: "missing or invalid authentication token" },
  forbidden: { status: 403, message: "only the entry's owner may change it" },
  unknown_type: { status: 404, message: "unknown type" },
  validation_failed: { status: 422, message: "customData failed validation against the type's schema" },
  spec_refused: { status: 422, message: "specUrl refused" },
  spec_unavailable: { status: 422, message: "specUrl could not be fetched" },
  spec_invalid: { status: 422, message: "the OpenAPI document failed validation" },
  precondition_failed: { status: 412, message: "the entry changed since the version the request named (If-Match): read it again" },
  validator_unavailable: { status: 503, message: "the OpenAPI validation address is unavailable" },
  diff_request_invalid: { status: 400, message: 'the body must be JSON { "base": ..., "head": ... }' },
  diff_failed: { status: 422, message: "the documents could not be compared" },
});

export const errorSchema = ErrorBodySchema;

export interface Issue {
  path: string;
  message: string;
}
