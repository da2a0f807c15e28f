// The core's boundary with adapters: a plain request in, a plain (already serialised) response out.
import { coreError, errorBody, type KitError } from "./errors.js";
import { randomIds } from "./ids.js";

/** Where the request body comes from. */
export type BodySource =
  | { kind: "none" }
  /**
   * Raw bytes still unread; `read` must reject with a 413 KitError past `limit` bytes. `chunks`, where an
   * adapter offers it, hands the same bytes over as they arrive, for routes declared `bodyMode: "stream"`:
   * its iteration throws a 413 KitError past `limit` bytes and the 408 (`bodyTimeoutError`) once the time
   * spent waiting on the client passes the body deadline; leaving the loop early (`return()`) discards the
   * rest without cutting the connection, so the route's answer still reaches the client. Without `chunks`
   * the core falls back to `read` (the whole body at once, still bounded by `limit`).
   */
  | { kind: "stream"; read(limit: number): Promise<Uint8Array>; chunks?(limit: number): AsyncIterable<Uint8Array> }
  /** A host parser (e.g. `express.json()`) already consumed the stream. */
  | { kind: "parsed"; value: unknown };

export interface KitRequest {
  method: string;
  /** Path relative to where the host mounted the kit (see `mountPath`), without the query string. */
  path: string;
  /**
   * The prefix the host mounted the kit under, already removed from `path`: Express's `req.baseUrl`,
   * Fastify's plugin `prefix`, the fetch handler's `mountPath` option. Empty or absent at the root.
   * Every link a service writes (Location, URLs in bodies, OpenAPI `servers`) starts with it.
   */
  mountPath?: string;
  query: URLSearchParams;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  body: BodySource;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** The connection's peer address (Node's `socket.remoteAddress`; a fetch request's from `withRemoteAddress`). */
  remoteAddress?: string;
}

export interface KitResponse {
  status: number;
  headers: Record<string, string>;
  /** Serialised body; absent for 204/HEAD and for streams. */
  body?: string | Uint8Array;
  /** SSE wire frames; the adapter writes each one and flushes. */
  stream?: AsyncIterable<string>;
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/**
 * The path of a request target exactly as the client sent it: no `..` or `%2e%2e` resolved, no `\`
 * turned into `/`, no leading `//` read as a host. Every adapter routes on this, so a prefix rule in a
 * proxy in front means the same thing whichever adapter serves the request (issue #10, break 5).
 */
export function targetPath(target: string): string {
  const q = target.indexOf("?");
  let p = q === -1 ? target : target.slice(0, q);
  if (p.startsWith("/")) return p;
  // an absolute-form target (`GET http://host/x`) routes on its path, still unresolved
  const scheme = ABSOLUTE_FORM.exec(p);
  if (scheme) p = p.slice(scheme[0].length);
  const hash = p.indexOf("#");
  if (hash !== -1) p = p.slice(0, hash);
  return p.startsWith("/") ? p : `/${p}`;
}

/** The query string of a request target, without the `?` (empty when there is none). */
export function targetQuery(target: string): string {
  const q = target.indexOf("?");
  if (q === -1) return "";
  const hash = target.indexOf("#", q);
  return hash === -1 ? target.slice(q + 1) : target.slice(q + 1, hash);
}

/** Reads request headers from any `Headers`-like or Node-style object into lower-case strings. */
export function normaliseHeaders(input: Headers | Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  if (typeof (input as Headers).forEach === "function" && typeof (input as Headers).get === "function") {
    (input as Headers).forEach((v, k) => {
      out[k.toLowerCase()] = v;
    });
    return out;
  }
  for (const [k, v] of Object.entries(input as Record<string, string | string[] | undefined>)) {
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}

/** A mount prefix without its trailing slashes; "" for the root. */
export const normaliseMountPath = (prefix: string | undefined): string => (prefix ? prefix.replace(/\/+$/, "") : "");

/**
 * Services write root-relative `Location` and `Link` URLs against the host's mount point (their basePath
 * included); the kit puts the host's mount prefix back in front before the response leaves.
 */
export function withMountPrefix(response: KitResponse, prefix: string | undefined): KitResponse {
  const { location, link } = response.headers;
  if (!prefix || (!location && !link)) return response;
  const p = prefix.replace(/\/+$/, "");
  if (!p) return response;
  const rooted = (url: string) => url.startsWith("/") && !url.startsWith("//");
  const headers = { ...response.headers };
  if (location && rooted(location)) headers.location = `${p}${location}`;
  // each link-value's URI reference (RFC 8288): `<url>; rel="next", <url>; rel="prev"`
  if (link) headers.link = link.replace(/<([^>]*)>/g, (whole, url: string) => (rooted(url) ? `<${p}${url}>` : whole));
  return { ...response, headers };
}

/** A kit error as a complete response, for answers given outside any service (adapters, host fallbacks). */
export function kitErrorResponse(error: KitError, requestId: string = randomIds("req")): KitResponse {
  return {
    status: error.status,
    headers: { ...error.headers, "content-type": "application/json; charset=utf-8", "x-request-id": requestId },
    body: JSON.stringify(errorBody(error, requestId)),
  };
}

/** The 404 for a path no service owns, in the one error body. */
export function genericNotFound(request: Pick<KitRequest, "method" | "path">, requestId: string = randomIds("req")): KitResponse {
  return kitErrorResponse(coreError("not_found", { message: `no route for ${request.method} ${request.path}` }), requestId);
}
