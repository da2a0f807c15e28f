// Routes are data: one table per service drives dispatch, every adapter and the OpenAPI document.
import type * as z from "zod";
import type { Clock } from "./clock.js";
import type { Logger } from "./logger.js";
import type { SseEvent } from "./sse.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** What a handler sees: plain data, no framework objects. */
export interface RequestContext<P = Record<string, string>, Q = Record<string, unknown>, B = unknown> {
  method: HttpMethod;
  /** Path relative to the service's mount point. */
  path: string;
  /**
   * Where this service's routes live in public URLs: the host's mount prefix (Express `app.use("/x")`,
   * Fastify `prefix`, the fetch handler's `mountPath`) followed by the service's `basePath`; "" at the
   * root. Links written into bodies and documents start with it. (A root-relative `Location` header is
   * written relative to the host's mount, basePath included: the kit adds the mount prefix itself.)
   */
  baseUrl: string;
  /** The host's mount prefix alone ("" at the root): the `servers` URL of documents whose paths include basePath. */
  mountPath: string;
  params: P;
  query: Q;
  body: B;
  /** Raw body bytes, for routes declared with `body: "raw"`. */
  rawBody: Uint8Array | undefined;
  /**
   * The body as it arrives, for routes declared `bodyMode: "stream"` (otherwise undefined): byte chunks of
   * any size, read at most once. The content type (415) and a declared Content-Length (413) are checked
   * before the handler runs; iterating throws the 413 past the route's `bodyLimit`, the 408 past the body
   * deadline, and a 400 when the client's stream breaks, each answered in the service's error body when the
   * handler lets it propagate. Memory stays bounded by what the handler holds, whatever the body's size.
   */
  bodyStream?: AsyncIterable<Uint8Array>;
  contentType: string | undefined;
  headers: Readonly<Record<string, string | undefined>>;
  /**
   * The connection's peer address as the adapter saw it (the socket's; a proxy's, behind one), when the
   * runtime exposes it. Forwarding headers are never read here: a service trusts them only when configured to.
   */
  remoteAddress?: string;
  requestId: string;
  signal: AbortSignal;
  /** Per-request scratch space for middleware (auth subject, brain id, ...). */
  state: Record<string, unknown>;
  clock: Clock;
  log: Logger;
}

export type JsonResult = { status: number; headers?: Record<string, string>; json: unknown };
export type TextResult = { status: number; headers?: Record<string, string>; text: string; contentType: string };
export type EmptyResult = { status: number; headers?: Record<string, string> };
/** Binary content (a stored file), written as is with its content type. */
export type BytesResult = { status: number; headers?: Record<string, string>; bytes: Uint8Array; contentType: string };
export interface SseResult {
  status?: 200;
  headers?: Record<string, string>;
  sse: {
    events: AsyncIterable<SseEvent>;
    /** `retry:` advice sent first, in ms. */
    retryMs?: number;
    /** Interval of `: ping` comments, in ms. */
    heartbeatMs?: number;
  };
}
/** A body written chunk by chunk as its source yields them (an export as JSON Lines): never held whole. */
export type ChunksResult = { status: number; headers?: Record<string, string>; chunks: AsyncIterable<string>; contentType: string };
export type HandlerResult = JsonResult | TextResult | BytesResult | EmptyResult | SseResult | ChunksResult;

export type Handler<Ctx extends RequestContext<any, any, any> = RequestContext> = (ctx: Ctx) => Promise<HandlerResult> | HandlerResult;
export type Middleware = (ctx: RequestContext<any, any, any>, next: () => Promise<HandlerResult>) => Promise<HandlerResult>;

/** A documented response header. */
export interface HeaderDoc {
  description: string;
  /** JSON Schema of the value; default `{ type: "string" }`. */
  schema?: Record<string, unknown>;
  /** Whether every response of that status carries it. */
  required?: boolean;
}

export interface ResponseDoc {
  description: string;
  schema?: z.ZodType;
  /** Content type of the documented body; default application/json. */
  contentType?: string;
  /** Headers this response carries, beyond the ones every response documents (X-Request-Id). */
  headers?: Record<string, HeaderDoc>;
}

/**
 * What a middleware adds to every route it wraps, for the OpenAPI document: the statuses it can
 * answer on its own (401 from auth, 429 from a limiter) and the headers it puts on every response.
 */
export interface MiddlewareDoc {
  responses?: Record<number, ResponseDoc>;
  headers?: Record<string, HeaderDoc>;
}

/** Attaches a {@link MiddlewareDoc} to a middleware; the generator reads it from `use` lists. */
export function documented<M extends Middleware>(middleware: M, doc: MiddlewareDoc): M & { doc: MiddlewareDoc } {
  return Object.assign(middleware, { doc });
}

export const middlewareDoc = (mw: Middleware): MiddlewareDoc | undefined => (mw as { doc?: MiddlewareDoc }).doc;

export interface RouteDef<
  P extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: HttpMethod;
  /** Express-style path: `/api/conversations/:id`. */
  path: string;
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  params?: P;
  query?: Q;
  body?: B;
  /**
   * `json` (default when a body schema is given), `raw` (bytes handed over as-is, e.g. YAML) or `stream`
   * (nothing read before the handler: it iterates `ctx.bodyStream`, e.g. a JSON Lines import of any size).
   */
  bodyMode?: "json" | "raw" | "stream" | "none";
  /** Accepted request content types; default application/json. */
  accepts?: string[];
  /** Body size limit in bytes for this route; default is the service's. */
  bodyLimit?: number;
  /** Security scheme names (OpenAPI). */
  security?: string[];
  /** Request headers the route reads, documented as `in: header` parameters (the handler checks them itself). */
  requestHeaders?: Record<string, HeaderDoc>;
  responses?: Record<number, ResponseDoc>;
  use?: Middleware[];
  /** Hidden from the OpenAPI document. */
  internal?: boolean;
  handler: Handler<
    RequestContext<
      P extends z.ZodType ? z.output<P> : Record<string, string>,
      Q extends z.ZodType ? z.output<Q> : Record<string, unknown>,
      B extends z.ZodType ? z.output<B> : unknown
    >
  >;
}

export type Route = RouteDef<any, any, any>;

/** Identity function that types the handler's context from the schemas. */
export function route<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(def: RouteDef<P, Q, B>): Route {
  return def as Route;
}

// one shape for every result (headers present, maybe undefined): handlers return these on every request
export const json = (status: number, body: unknown, headers?: Record<string, string>): JsonResult => ({ status, json: body, headers });
export const text = (status: number, body: string, contentType: string, headers?: Record<string, string>): TextResult => ({
  status,
  text: body,
  contentType,
  headers,
});
export const bytes = (status: number, body: Uint8Array, contentType: string, headers?: Record<string, string>): BytesResult => ({
  status,
  bytes: body,
  contentType,
  headers,
});
export const empty = (status = 204, headers?: Record<string, string>): EmptyResult => ({ status, headers });
export const sse = (
  events: AsyncIterable<SseEvent>,
  options: { retryMs?: number; heartbeatMs?: number; headers?: Record<string, string> } = {},
): SseResult => ({
  status: 200,
  headers: options.headers,
  sse: { events, retryMs: options.retryMs, heartbeatMs: options.heartbeatMs },
});

export const isSseResult = (r: HandlerResult): r is SseResult => "sse" in r;
export const isJsonResult = (r: HandlerResult): r is JsonResult => "json" in r;
export const isTextResult = (r: HandlerResult): r is TextResult => "text" in r;
export const isBytesResult = (r: HandlerResult): r is BytesResult => "bytes" in r;
export const chunks = (
  status: number,
  body: AsyncIterable<string>,
  contentType: string,
  headers?: Record<string, string>,
): ChunksResult => ({
  status,
  chunks: body,
  contentType,
  headers,
});
export const isChunksResult = (r: HandlerResult): r is ChunksResult => "chunks" in r;
