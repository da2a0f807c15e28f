// The core's boundary with adapters: a plain request in, a plain (already serialised) response out.
import { randomIds } from "./ids.js";

/** Where the request body comes from. */
export type BodySource =
  | { kind: "none" }
  /** Raw bytes still unread; `read` must reject with a 413 KitError past `limit` bytes. */
  | { kind: "stream"; read(limit: number): Promise<Uint8Array> }
  /** A host parser (e.g. `express.json()`) already consumed the stream. */
  | { kind: "parsed"; value: unknown };

export interface KitRequest {
  method: string;
  /** Path relative to where the service is mounted, without the query string. */
  path: string;
  query: URLSearchParams;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  body: BodySource;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
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

/**
 * Services write root-relative `Location` and `Link` URLs against their own mount; a host that mounted them
 * under a prefix (and stripped it before dispatch) puts that prefix back in front.
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

/** A 404 body acceptable to every service's error shape: `{ error, details, requestId }`. */
export function genericNotFound(request: Pick<KitRequest, "method" | "path">, requestId: string = randomIds("req")): KitResponse {
  return {
    status: 404,
    headers: { "content-type": "application/json; charset=utf-8", "x-request-id": requestId },
    body: JSON.stringify({ error: `no route for ${request.method} ${request.path}`, details: null, requestId }),
  };
}
