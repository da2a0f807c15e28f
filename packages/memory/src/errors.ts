// The memory service's error codes and wire body `{ error, details }`.
import { defineErrors, type KitError } from "@mountkit/core";
import * as z from "zod";

export const memoryError = defineErrors({
  unauthorized: { status: 401, message: "missing or invalid API key" },
  not_found: { status: 404, message: "not found" },
  invalid_request: { status: 400, message: "invalid request" },
  invalid_cursor: { status: 400, message: "invalid cursor" },
  already_invalidated: { status: 409, message: "edge is already invalidated" },
  quota_exceeded: { status: 429, message: "daily quota exceeded" },
});

export const errorBody = (e: KitError, requestId: string) => ({ error: e.message, details: e.details ?? null, requestId });

export const ErrorSchema = z.object({ error: z.string(), details: z.any(), requestId: z.string() });
