// The memory service's error codes; its wire body is the kit's one body `{ error, details?, requestId }`.
import { defineErrors, ErrorBodySchema } from "@mountkit/core";

export const memoryError = defineErrors({
  unauthorized: { status: 401, message: "missing or invalid API key" },
  not_found: { status: 404, message: "not found" },
  invalid_request: { status: 400, message: "invalid request" },
  invalid_cursor: { status: 400, message: "invalid cursor" },
  already_invalidated: { status: 409, message: "edge is already invalidated" },
  quota_exceeded: { status: 429, message: "daily quota exceeded" },
  idempotency_key_reused: { status: 422, message: "idempotency key was already used with another request" },
  brain_not_empty: { status: 409, message: "an import needs a brain with no records" },
  not_supported: { status: 501, message: "the store does not support this operation" },
});

export const ErrorSchema = ErrorBodySchema;
