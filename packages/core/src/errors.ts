// The kit's single error type and the one wire body every service answers it with (docs/conventions.md#error-body).
// Recognised by a global-symbol brand so duplicate installs still match.
import * as z from "zod";

const BRAND = Symbol.for("mountkit.KitError");

export interface KitErrorInit {
  status: number;
  code: string;
  message?: string;
  details?: unknown;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class KitError extends Error {
  readonly [BRAND] = true;
  readonly status: number;
  readonly code: string;
  readonly details: unknown;
  readonly headers: Record<string, string> | undefined;

  constructor(init: KitErrorInit) {
    super(init.message ?? init.code, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "KitError";
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.headers = init.headers;
  }
}

export function isKitError(value: unknown): value is KitError {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/** Declares a service's error codes once, with their status and default message. */
export function defineErrors<const T extends Record<string, { status: number; message: string }>>(table: T) {
  return function kitError(
    code: keyof T & string,
    options: { message?: string; details?: unknown; headers?: Record<string, string>; cause?: unknown } = {},
  ): KitError {
    const entry = table[code] as { status: number; message: string };
    return new KitError({
      status: entry.status,
      code,
      message: options.message ?? entry.message,
      details: options.details,
      headers: options.headers,
      cause: options.cause,
    });
  };
}

/**
 * The codes every service shares with the dispatcher, with their status and default message. A
 * service's own table may restate one to give it another message.
 */
export const commonErrors = {
  invalid_request: { status: 400, message: "invalid request" },
  unauthorized: { status: 401, message: "unauthorized" },
  not_found: { status: 404, message: "not found" },
  too_many_requests: { status: 429, message: "too many requests" },
  internal: { status: 500, message: "internal error" },
} as const;

/** `defineErrors` over `commonErrors` plus a service's own codes: one helper for every service's table. */
export function defineServiceErrors<const T extends Record<string, { status: number; message: string }>>(table: T) {
  return defineErrors({ ...commonErrors, ...table });
}

/** Errors the dispatcher itself raises, before any service code runs. */
export const coreError = defineServiceErrors({
  method_not_allowed: { status: 405, message: "method not allowed" },
  invalid_json: { status: 400, message: "request body is not valid JSON" },
  malformed_url: { status: 400, message: "malformed URL: a path segment is not valid percent-encoding" },
  unsupported_media_type: { status: 415, message: "unsupported content type" },
  payload_too_large: { status: 413, message: "request body too large" },
  request_timeout: { status: 408, message: "request body not received in time" },
  service_unavailable: { status: 503, message: "service unavailable" },
});

/** The one error body of every service: `{ error, details?, requestId }`; a 500 never says more than "internal error". */
export function errorBody(error: KitError, requestId: string): { error: string; details?: unknown; requestId: string } {
  if (error.status === 500) return { error: "internal error", requestId };
  return error.details === undefined ? { error: error.message, requestId } : { error: error.message, details: error.details, requestId };
}

/** The error body as a schema, for the OpenAPI documents. */
export const ErrorBodySchema = z.object({
  error: z.string().describe("What went wrong, for a human."),
  details: z
    .unknown()
    .optional()
    .describe(
      "Present when there is more to say. 400 and 422: a list of `{ path, message }`; 405: `{ allow }`; 413: `{ limit }`; 415: `{ received, accepted }`.",
    ),
  requestId: z.string().describe("Equals the `X-Request-Id` response header; quote it when reporting a problem."),
});
