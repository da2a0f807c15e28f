// The one bridge between Node's IncomingMessage/ServerResponse and the core. No WHATWG objects on the hot path.
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type BodySource,
  coreError,
  dispatch,
  genericNotFound,
  type KitRequest,
  type KitResponse,
  type Service,
  withMountPrefix,
} from "@mountkit/core";
import { OpenStreams, type StreamCloser } from "./streams.js";

export { closeStreamsOnClose, OpenStreams, type StreamCloser } from "./streams.js";

export interface NodeBridgeOptions {
  /**
   * Bytes an SSE response may have queued in memory for a slow client before the client is dropped
   * (a stalled client must not hold memory forever). Default 1 MiB.
   */
  maxStreamBuffer?: number;
  /** How long to wait for `drain` on a stream before dropping the client. Default 30 s. */
  drainTimeoutMs?: number;
}

const EMPTY = new Uint8Array(0);

/** The unread body of a Node request, as the core's stream source (a class: no closure per request). */
class NodeBody {
  readonly kind = "stream" as const;
  #req: IncomingMessage;
  constructor(req: IncomingMessage) {
    this.#req = req;
  }
  read(limit: number): Promise<Uint8Array> {
    return readNodeBody(this.#req, limit);
  }
}

/**
 * Reads the raw body with a byte limit. Past the limit: stop reading, let the 413 go out, drop the rest.
 * Runs on every request with a body, so it allocates little: no array for a one-chunk body, one
 * listener for both `error` and `close`.
 */
function readNodeBody(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  return new Promise<Uint8Array>((resolve, reject) => {
    if (req.readableEnded) return resolve(EMPTY);
    let first: Buffer | undefined;
    let more: Buffer[] | undefined;
    let total = 0;
    const onData = (c: Buffer) => {
      total += c.length;
      if (total > limit) {
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
    const onEnd = () => resolve(more ? Buffer.concat(more, total) : (first ?? EMPTY));
    const onGone = (e?: Error) => {
      if (e === undefined && req.readableEnded) return;
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

  constructor(req: IncomingMessage & { body?: unknown }, path: string | undefined, stripPrefix: string, signal: LazySignal) {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    this.method = req.method ?? "GET";
    let p = path ?? (q === -1 ? url : url.slice(0, q));
    if (stripPrefix && p.startsWith(stripPrefix)) p = p.slice(stripPrefix.length) || "/";
    this.path = safePath(p);
    this.#url = url;
    this.#q = q;
    // Node already lower-cases names; only set-cookie is an array, and requests do not carry it
    this.headers = req.headers as Record<string, string | undefined>;
    if (consumedBody(req)) this.body = { kind: "parsed", value: req.body };
    else if (req.method === "GET" || req.method === "HEAD") this.body = NO_BODY;
    else this.body = new NodeBody(req);
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
    /** A mount prefix to strip from the path (Fastify's plugin prefix). */
    stripPrefix?: string;
    signal: LazySignal;
  },
): KitRequest {
  return new NodeKitRequest(req, options.path, options.stripPrefix ?? "", options.signal);
}

function safePath(p: string): string {
  // an absolute-form request target (`GET http://host/x`) still routes on its path
  if (!p.startsWith("/")) {
    try {
      return new URL(p).pathname;
    } catch {
      return `/${p}`;
    }
  }
  return p;
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
  const maxBuffer = options.maxStreamBuffer ?? 1024 * 1024;
  const drainTimeout = options.drainTimeoutMs ?? 30_000;
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

function waitDrain(res: ServerResponse, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (v: boolean) => {
      clearTimeout(t);
      res.off("drain", onDrain);
      res.off("close", onClose);
      resolve(v);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    const t = setTimeout(() => done(false), timeoutMs);
    res.on("drain", onDrain);
    res.on("close", onClose);
  });
}

export interface NodeHandleOptions {
  /** Path relative to the mount point (frameworks that strip a prefix pass it here). */
  path?: string;
  /** The prefix the host mounted the kit under (Express's `req.baseUrl`): put back in front of a `Location`. */
  mountPath?: string;
}

/**
 * Handles a Node request with the given services. Resolves `false` when no service owns the path
 * (the caller passes it on), `true` once a response was written.
 */
export function createNodeHandler(services: Service | readonly Service[], options: NodeBridgeOptions = {}): NodeHandler {
  const list = Array.isArray(services) ? services : [services as Service];
  const streams = new OpenStreams();
  const handleNode = async (req: IncomingMessage, res: ServerResponse, opts: NodeHandleOptions = {}): Promise<boolean> => {
    const conn = connectionSignal(res);
    const kreq = toKitRequest(req, { path: opts.path, signal: conn });
    const found = await dispatch(list, kreq);
    if (!found) return false;
    const k = withMountPrefix(found, opts.mountPath);
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
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" }).end('{"error":"internal error"}');
        else res.destroy();
      },
    );
  };
  return Object.assign(listener, { closeStreams: handle.closeStreams });
}

/**
 * For `server.on("clientError", ...)`: Node's HTTP parser rejects some requests (oversized headers or
 * URL, malformed request lines) before any framework sees them. Answer those with a JSON error body
 * `{ error, details, requestId }` that fits every service's error shape, instead of an empty reply.
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
    const body = JSON.stringify({ error: message, details: null, requestId: `req_client_error_${(++n).toString(36)}` });
    socket.end(
      `HTTP/1.1 ${status} ${status === 431 ? "Request Header Fields Too Large" : status === 408 ? "Request Timeout" : "Bad Request"}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}
