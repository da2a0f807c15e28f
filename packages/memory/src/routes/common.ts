// What every memory route receives: the in-process api and the auth + quota middleware.
import type { Middleware, ResponseDoc } from "@mountkit/core";
import type { MemoryApi } from "../api.js";

export interface RouteDeps {
  api: MemoryApi;
  /** Authentication then quota, in that order: unauthenticated calls never touch a quota. */
  guard: Middleware[];
  /** The service's basePath without a trailing slash ("" when mounted at the root), for Location headers. */
  basePath: string;
}

export const SECURITY = ["apiKey"];

export const errors = (...statuses: number[]): Record<number, ResponseDoc> => {
  const text: Record<number, string> = {
    400: "Invalid input",
    401: "Missing or unknown API key",
    404: "Not found in this brain",
    409: "Conflict",
    413: "Body too large",
    415: "Body is not JSON",
    429: "Daily quota exceeded",
  };
  return Object.fromEntries([401, 429, ...statuses].map((s) => [s, { description: text[s] ?? "Error" }]));
};
