// The one bridge between Node's IncomingMessage/ServerResponse and the core. No WHATWG objects on the hot path.
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  admitStream,
  type BodySource,
  bodyTimeoutError,
  coreError,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_MAX_STREAM_BUFFER,
  dispatch,
  genericNotFound,
  kitErrorResponse,
  type KitRequest,
  type KitResponse,
  type Service,
  type StreamGate,
  streamGate,
  targetPath,
} from "@mountkit/core";
import { OpenStreams, type StreamCloser } from "./streams.js";

export { closeStreamsOnClose, OpenStreams, type StreamCloser } from "./streams.js";

export { applyServerLimits, type ServerLimits, serverDefaults, serverOptions } from "./limits.js";
export { waitDrain } from "./drain.js";

import { waitDrain } from "./drain.js";

export interface NodeBridgeOptions {
  /**
   * Bytes an SSE response may have queued in memory for a slow client before the client is dropped
   * (a stalled client must not hold memory forever). Default 1 MiB.
   */
  maxStreamBuffer?: number;
  /** How long to wait for `drain` on a stream before dropping the client. Default 30 s. */
  drainTimeoutMs?: number;
  /**
   * How long a request body may take to arrive once a route reads it. Past it the route answers 408
   * and the connection closes, so a stalled upload frees its socket even on a host's server that sets
   * no timeouts. Default 30 s.
   */
  bodyTimeoutMs?: number;
  /** Open SSE streams at once, a number or a `StreamGate` shared with other mounts; then 503. Default 5,000. */
  maxStreams?: number | StreamGate;
}

const EMPTY = new Uint8Array(0);

/** The unread body of a Node request, as the core's stream source (a class: no closure per request). */
class NodeBody {
  readonly kind = "stream" as const;
  #req: IncomingMessage;
  #timeoutMs: number;
  constructor(req: IncomingMessage, timeoutMs: number) {
    this.#req = req;
    this.#timeoutMs = timeoutMs;
  }
  read(limit: number): Promise<Uint8Array> {
    return readNodeBody(this.#req, limit, this.#timeoutMs);
  }
}

/**
 * Reads the raw body with a byte limit. Past the limit: stop reading, let the 413 go out, drop the rest.
 * Past the deadline: stop reading and reject with a 408 whose `Connection: close` makes Node close the
 * socket once the answer is out (issue #10, break 2). Runs on every request with a body, so it allocates
 * little: no array for a one-chunk body, one listener for both `error` and `close`, and no timer when
 * the whole body has already arrived.
 */
function readNodeBody(req: IncomingMessage, limit: number, timeoutMs: number): Promise<Uint8Array> {
  return new Promise<Uint8Array>((resolve, reject) => {
    if (req.readableEnded) return resolve(EMPTY);
    let first: Buffer | undefined;
    let more: Buffer[] | undefined;
    let total = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (!req.complete)
      timer = setTimeout(() => {
        detach(req, onData, onEnd, onGone);
        reject(bodyTimeoutError(timeoutMs));
      }, timeoutMs);
    const onData = (c: Buffer) => {
      total += c.length;
      if (total > limit) {
        clearTimeout(timer);
        detach(req, onData, onEnd, onGone);
        // keep draining (discarding) so the client can read our 413 instead of a reset
        req.resume();
        reject(coreError("payload_too_large", { details: { limit } }));
        return;
      }
      if (first === undefined) first = c;
      else (more ??= [first]).push(c);
    };
    // an ended stream emits nothing more: leave its listeners (removing them costs more than they do)
    const onEnd = () => {
      clearTimeout(timer);
      resolve(more ? Buffer.concat(more, total) : (first ?? EMPTY));
    };
    const onGone = (e?: Error) => {
      if (e === undefined && req.readableEnded) return;
      clearTimeout(timer);
      detach(req, onData, onEnd, onGone);
      reject(e ?? new Error("client closed the request"));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onGone);
    req.on("close", onGone);
  });
}

function detach(req: IncomingMessage, onData: (c: Buffer) => void, onEnd: () => void, onGone: (e?: Error) => void): void {
  req.off("data", onData);
  req.off("end", onEnd);
  req.off("error", onGone);
  req.off("close", onGone);
}

/**
 * True when a host body parser (express.json(), ...) already consumed the stream. `readableEnded`
 * first: it is an own field, while `_body` and `body` are absent on most requests and a miss walks
 * IncomingMessage's whole prototype chain.
 */
function consumedBody(req: IncomingMessage & { body?: unknown; _body?: boolean }): boolean {
  return req.readableEnded && (req._body === true || req.body !== undefined);
}

/**
 * A KitRequest over a Node request. The query, and the abort signal (an AbortController costs more than
 * the rest of dispatch), are created only when something reads them; a class keeps that closure-free.
 */
class NodeKitRequest implements KitRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string | undefined>;
  readonly body: BodySource;
  #req: IncomingMessage;
  #url: string;
  #q: number;
  #query: URLSearchParams | undefined;
  #signal: LazySignal;

  readonly mountPath: string;

  constructor(
    req: IncomingMessage & { body?: unknown },
    path: string | undefined,
    stripPrefix: string,
    mountPath: string,
    signal: LazySignal,
    bodyTimeoutMs: number,
  ) {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    this.method = req.method ?? "GET";
    // the raw target, never resolved (`..`, `%2e%2e`, `\\`): every adapter routes the same bytes the same way
    let p = targetPath(path ?? url);
    if (stripPrefix && p.startsWith(stripPrefix)) p = p.slice(stripPrefix.length) || "/";
    this.path = p;
    this.mountPath = mountPath;
    this.#url = url;
    this.#q = q;
    // Node already lower-cases names; only set-cookie is an array, and requests do not carry it
    this.headers = req.headers as Record<string, string | undefined>;
    if (consumedBody(req)) this.body = { kind: "parsed", value: req.body };
    else if (req.method === "GET" || req.method === "HEAD") this.body = NO_BODY;
    else this.body = new NodeBody(req, bodyTimeoutMs);
    this.#req = req;
    this.#signal = signal;
  }

  get query(): URLSearchParams {
    this.#query ??= new URLSearchParams(this.#q === -1 ? "" : this.#url.slice(this.#q + 1));
    return this.#query;
  }

  get signal(): AbortSignal {
    const s = this.#signal;
    return s instanceof AbortSignal ? s : s.signal;
  }

  /** Read on demand: it asks the kernel (getpeername) every time. */
  get remoteAddress(): string | undefined {
    return this.#req.socket?.remoteAddress;
  }
}

const NO_BODY: BodySource = { kind: "none" };

/** An AbortSignal, or something that creates one when asked (a {@link ConnectionAbort}). */
export type LazySignal = AbortSignal | { readonly signal: AbortSignal };

export function toKitRequest(
  req: IncomingMessage & { body?: unknown },
  options: {
    /** The path to route on, when the host rewrote it (defaults to the URL's). */
    path?: string;
    /** A mount prefix to strip from the path (Fastify's plugin prefix); it is also the request's `mountPath`. */
    stripPrefix?: string;
    /** The prefix the host already stripped (Express's `req.baseUrl`): links get it back in front. */
    mountPath?: string;
    signal: LazySignal;
    /** Deadline for the body once a route reads it (then 408). Default 30 s. */
    bodyTimeoutMs?: number;
  },
): KitRequest {
  const strip = options.stripPrefix ?? "";
  return new NodeKitRequest(
    req,
    options.path,
    strip,
    options.mountPath ?? strip,
    options.signal,
    options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
  );
}

/**
 * Ties an AbortController to the client connection, created on first use: aborts when the response
 * closes before it finished.
 *
 * A class, not an object literal with getters: V8 allocates a literal's accessor pair in old space, so
 * the getter closures (and through them the whole request) would survive every young-generation GC
 * until the next full one. Under load that promoted ~3 KB per request and doubled the adapter's CPU cost.
 */
export class ConnectionAbort {
  #res: ServerResponse;
  #controller: AbortController | undefined;

  constructor(res: ServerResponse) {
    this.#res = res;
  }

  get controller(): AbortController {
    if (!this.#controller) {
      const c = new AbortController();
      const res = this.#res;
      this.#controller = c;
      if (res.destroyed && !res.writableFinished) c.abort();
      else
        res.once("close", () => {
          if (!res.writableFinished) c.abort();
        });
    }
    return this.#controller;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }
}

export function connectionSignal(res: ServerResponse): ConnectionAbort {
  return new ConnectionAbort(res);
}

/** Writes a KitResponse. Streams flush every frame, honour `drain`, and drop stalled clients. */
export async function writeKitResponse(
  res: ServerResponse,
  k: KitResponse,
  abort: AbortController | undefined,
  options: NodeBridgeOptions = {},
): Promise<void> {
  if (!k.stream || !abort) {
    res.writeHead(
      k.status,
      k.body !== undefined ? { ...k.headers, "content-length": String(Buffer.byteLength(k.body as string | Uint8Array)) } : k.headers,
    );
    res.end(k.body);
    return;
  }
  const maxBuffer = options.maxStreamBuffer ?? DEFAULT_MAX_STREAM_BUFFER;
  const drainTimeout = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
  // set one by one, not through writeHead: a host that looks for its streams (graceful shutdown,
  // compression filters) finds them with res.getHeader("content-type")
  for (const [name, value] of Object.entries(k.headers)) res.setHeader(name, value);
  res.writeHead(k.status);
  res.flushHeaders();
  res.socket?.setNoDelay(true);
  const it = k.stream[Symbol.asyncIterator]();
  try {
    for (;;) {
      if (abort.signal.aborted || res.destroyed) break;
      const r = await it.next();
      if (r.done || abort.signal.aborted || res.destroyed) break;
      const ok = res.write(r.value);
      (res as ServerResponse & { flush?: () => void }).flush?.();
      if (!ok) {
        if (res.writableLength > maxBuffer) {
          res.destroy();
          break;
        }
        const drained = await waitDrain(res, drainTimeout);
        if (!drained) {
          res.destroy();
          break;
        }
      }
    }
  } catch {
    // an event source failing mid-stream ends the stream; the client reconnects with Last-Event-ID
  } finally {
    abort.abort();
    await it.return?.();
    if (!res.destroyed && !res.writableEnded) res.end();
  }
}

export interface NodeHandleOptions {
  /** Path relative to the mount point (frameworks that strip a prefix pass it here). */
  path?: string;
  /** The prefix the host mounted the kit under and stripped (Express's `req.baseUrl`): every link carries it. */
  mountPath?: string;
}

/**
 * Handles a Node request with the given services. Resolves `false` when no service owns the path
 * (the caller passes it on), `true` once a response was written.
 */
export function createNodeHandler(services: Service | readonly Service[], options: NodeBridgeOptions = {}): NodeHandler {
  const list = Array.isArray(services) ? services : [services as Service];
  const gate = streamGate(options.maxStreams);
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const streams = new OpenStreams();
  const handleNode = async (req: IncomingMessage, res: ServerResponse, opts: NodeHandleOptions = {}): Promise<boolean> => {
    const conn = connectionSignal(res);
    const kreq = toKitRequest(req, { path: opts.path, mountPath: opts.mountPath, signal: conn, bodyTimeoutMs });
    const found = await dispatch(list, kreq);
    if (!found) return false;
    const k = found.stream ? admitStream(list, kreq, found, gate, conn.controller) : found;
    if (k.stream) streams.add(res, conn.controller);
    await writeKitResponse(res, k, k.stream ? conn.controller : undefined, options);
    return true;
  };
  return Object.assign(handleNode, { closeStreams: () => streams.closeStreams() });
}

/** Handles a Node request (see `createNodeHandler`); `closeStreams()` ends its open SSE streams. */
export interface NodeHandler extends StreamCloser {
  (req: IncomingMessage, res: ServerResponse, opts?: NodeHandleOptions): Promise<boolean>;
}

/** A plain `node:http` request listener; unowned paths answer a generic JSON 404. */
export function toNodeListener(services: Service | readonly Service[], options: NodeBridgeOptions = {}) {
  const handle = createNodeHandler(services, options);
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).then(
      (handled) => {
        if (!handled) {
          const k = genericNotFound({ method: req.method ?? "GET", path: (req.url ?? "/").split("?")[0]! });
          res.writeHead(k.status, k.headers).end(k.body);
        }
      },
      () => {
        if (!res.headersSent) {
          const k = kitErrorResponse(coreError("internal"));
          res.writeHead(k.status, k.headers).end(k.body);
        } else res.destroy();
      },
    );
  };
  return Object.assign(listener, { closeStreams: handle.closeStreams });
}

/**
 * For `server.on("clientError", ...)`: Node's HTTP parser rejects some requests (oversized headers or
 * URL, malformed request lines) before any framework sees them. Answer those with a JSON error body
 * `{ error, requestId }` (the kit's one error body, the id also in X-Request-Id) instead of an empty reply.
 */
export function clientErrorHandler() {
  let n = 0;
  return (err: Error & { code?: string }, socket: import("node:stream").Duplex) => {
    if (!socket.writable || (err.code === "ECONNRESET" && !socket.readable)) {
      socket.destroy();
      return;
    }
    const status = err.code === "HPE_HEADER_OVERFLOW" ? 431 : err.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
    const message = status === 431 ? "request header fields too large" : status === 408 ? "request timeout" : "malformed request";
    const requestId = `req_client_error_${(++n).toString(36)}`;
    const body = JSON.stringify({ error: message, requestId });
    socket.end(
      `HTTP/1.1 ${status} ${status === 431 ? "Request Header Fields Too Large" : status === 408 ? "Request Timeout" : "Bad Request"}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nX-Request-Id: ${requestId}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}
