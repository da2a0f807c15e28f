// Cross-origin access for the routes a browser page on another origin calls (a widget embedded elsewhere):
// preflight answers and the response headers, applied by the service before any route runs.
import type { KitResponse } from "./http.js";

export interface CorsOptions {
  /** Path prefixes, relative to the service's basePath, where CORS applies. */
  paths: readonly string[];
  /** Origins allowed to call: `"*"`, a list of exact origins (`https://shop.example`), or a predicate. */
  origins: "*" | readonly string[] | ((origin: string) => boolean);
  /** Request headers a page may send; default `content-type`, `last-event-id`, `x-request-id`. */
  allowHeaders?: readonly string[];
  /** Response headers a page may read; default the kit's own (request id, rate limits, links). */
  exposeHeaders?: readonly string[];
  /** How long a browser may cache a preflight answer, in seconds; default 600. */
  maxAgeSeconds?: number;
}

const DEFAULT_ALLOW_HEADERS = ["content-type", "last-event-id", "x-request-id"];
const DEFAULT_EXPOSE_HEADERS = [
  "x-request-id",
  "retry-after",
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
  "location",
  "link",
];
const METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE";

export interface CorsPolicy {
  /** Whether CORS applies to this service-relative path. */
  covers(path: string): boolean;
  /** The answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`). */
  preflight(origin: string): KitResponse;
  /** The response with the headers an allowed origin needs added. */
  decorate(response: KitResponse, origin: string): KitResponse;
}

export function corsPolicy(options: CorsOptions): CorsPolicy {
  const prefixes = options.paths.map((p) => p.replace(/\/+$/, ""));
  const list = typeof options.origins === "object" ? new Set(options.origins) : undefined;
  const allowed =
    options.origins === "*" ? () => true : typeof options.origins === "function" ? options.origins : (origin: string) => list!.has(origin);
  const allowHeaders = (options.allowHeaders ?? DEFAULT_ALLOW_HEADERS).join(", ");
  const exposeHeaders = (options.exposeHeaders ?? DEFAULT_EXPOSE_HEADERS).join(", ");
  const maxAge = String(options.maxAgeSeconds ?? 600);
  // a literal "*" needs no Vary; an echoed origin does, so caches keep one answer per origin
  const originHeader = (origin: string): Record<string, string> =>
    options.origins === "*" ? { "access-control-allow-origin": "*" } : { "access-control-allow-origin": origin, vary: "Origin" };

  return {
    covers: (path) => prefixes.some((p) => path === p || path.startsWith(`${p}/`)),
    preflight(origin) {
      if (!allowed(origin)) return { status: 204, headers: { vary: "Origin" } };
      const headers: Record<string, string> = {
        ...originHeader(origin),
        "access-control-allow-methods": METHODS,
        "access-control-allow-headers": allowHeaders,
        "access-control-max-age": maxAge,
      };
      return { status: 204, headers };
    },
    decorate(response, origin) {
      if (!allowed(origin)) return response;
      const vary = response.headers.vary;
      const added = originHeader(origin);
      if (vary && added.vary) added.vary = `${vary}, Origin`;
      return { ...response, headers: { ...response.headers, ...added, "access-control-expose-headers": exposeHeaders } };
    },
  };
}
