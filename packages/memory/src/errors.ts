// The memory service's error codes; its wire body is the kit's one body `{ error, details?, requestId }`.
import { defineErrors, ErrorBodySchema } from "@mountkit/core";

export const memoryError = defineErrors({
  unauthorized: { status: 401, message: "missing or invalid API key" },
  not_found: { status: 404, message: "not found" },
  invalid_request: { status: 400, message: "invalid request" },
  invalid_cursor: { status: 400, message: "invalid cursor" },
  already_invalidated: { status: 409, message: "edge is already invalidated" },
  quota_exceeded: { status: 429, message: "daily quota exceeded" },
});

export const ErrorSchema = ErrorBodySchema;
