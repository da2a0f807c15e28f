// A node:http host for a fetch handler: Node's request as a WHATWG Request, the Response written back through the
// Node bridge's stream writer (one backpressure path), with the bridge's server limits and shutdown.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { coreError, type FetchHandlerOptions, KitError, type Service, toFetchHandler } from "@mountkit/core";
import { dispatch, genericNotFound, kitErrorResponse, normaliseMountPath, withRawTarget, withRemoteAddress } from "@mountkit/core/adapter";
import {
  applyServerLimits,
  closeStreamsOnClose,
  connectionSignal,
  failResponse,
  type NodeBridgeOptions,
  pipeToResponse,
  type ServerLimits,
  type StreamCloser,
  serverOptions,
  serviceList,
  toKitRequest,
} from "@mountkit/node";

export type WriteResponseOptions = Pick<NodeBridgeOptions, "maxStreamBuffer" | "drainTimeoutMs">;

export interface FetchServerOptions extends FetchHandlerOptions, WriteResponseOptions {
  /** Server timeouts and connection cap; `serverDefaults` from `@mountkit/node` when left out. */
  limits?: Partial<ServerLimits>;
}

type FetchHandler = (request: Request) => Promise<Response>;

interface ServeOptions extends WriteResponseOptions {
  /** The services through the Node bridge, for TRACE (a Request cannot carry it); none for a handler of the host's. */
  bridge?: NodeListener;
}

/**
 * Node's own modules, taken when a Node host is built rather than imported: this package's root also serves
 * fetch runtimes (Workers, Deno, Bun), where `toFetchHandler` is all one imports and `node:http` may not exist.
 */
function nodeModule<ID extends "node:http" | "node:stream">(id: ID) {
  return process.getBuiltinModule(id);
}

/**
 * Converts a Node request to a WHATWG Request (streaming body, aborted when the client leaves). The URL
 * parser resolves `..`, `%2e%2e`, `\\` and `//` in it, so the raw target goes along for routing.
 */
export function nodeToRequest(req: IncomingMessage, res: ServerResponse): Request {
  const host = req.headers.host ?? "localhost";
  const url = new URL(req.url ?? "/", `http://${host}`);
  const abort = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    else headers.set(k, v);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const body = hasBody ? (nodeModule("node:stream").Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined;
  const request = new Request(url, {
    method: req.method,
    headers,
    signal: abort.signal,
    ...(body ? { body, duplex: "half" } : {}),
  } as RequestInit);
  return withRemoteAddress(withRawTarget(request, req.url ?? "/"), req.socket.remoteAddress);
}

/**
 * Writes a WHATWG Response to Node: a body of declared length in one write, any other body through the Node
 * bridge's stream writer (backpressure, and a client that stops reading is dropped, issue #10 break 6); the
 * body is cancelled if the client leaves.
 */
export async function writeResponse(response: Response, res: ServerResponse, options: WriteResponseOptions = {}): Promise<void> {
  // set one by one, not through writeHead: the host can read them back with res.getHeader (graceful
  // shutdown recognises its SSE streams by content type)
  response.headers.forEach((v, k) => {
    if (k !== "set-cookie") res.setHeader(k, v);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) res.setHeader("set-cookie", cookies);
  res.writeHead(response.status);
  if (!response.body) {
    res.end();
    return;
  }
  const streaming = (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
  if (!streaming && response.headers.has("content-length")) {
    // A body of declared length (every kit answer but a stream): headers and body in one write, and Node ends a
    // `Connection: close` answer's socket right after it. Streaming it chunk by chunk cost a write per chunk and an
    // event-loop turn per read, which is what left thousands of stalled uploads waiting for their 408 (issue #10).
    res.end(new Uint8Array(await response.arrayBuffer()));
    return;
  }
  if (streaming) res.flushHeaders();
  await pipeToResponse(res, bodySource(response.body, res), options);
}

/**
 * A Response body as the stream writer's source. The client leaving cancels it at once: a pending read then
 * ends, where the stream's own async iterator would wait for that read before it let go.
 */
function bodySource(body: ReadableStream<Uint8Array>, res: ServerResponse): AsyncIterator<Uint8Array> {
  const reader = body.getReader();
  const onClose = () => void reader.cancel().catch(() => {});
  res.once("close", onClose);
  return {
    next: () => reader.read() as Promise<IteratorResult<Uint8Array>>,
    async return() {
      res.off("close", onClose);
      // ends a source the writer let go of (a stalled client); a finished or failed one is left as it is
      await reader.cancel().catch(() => {});
      reader.releaseLock?.();
      return { done: true, value: undefined };
    },
  };
}

/**
 * TRACE, the one method Node passes on that a WHATWG Request cannot carry (`new Request` throws; CONNECT goes to
 * Node's `connect` event): answered without the fetch handler, by the services through the Node bridge (405 with
 * Allow on a route's path, 404 elsewhere, as under Express and Fastify), or 501 for a handler of the host's own.
 */
function answerTrace(bridge: NodeListener | undefined, req: IncomingMessage, res: ServerResponse): void {
  if (bridge) {
    bridge(req, res);
    return;
  }
  const k = kitErrorResponse(new KitError({ status: 501, code: "not_implemented", message: `${req.method} is not implemented` }));
  res.writeHead(k.status, k.headers).end(k.body);
}

type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

/** The services' answer through the Node bridge, under the handler's `mountPath`; the generic 404 when none owns the path. */
function bridgeListener(services: readonly Service[], mountPath: string): NodeListener {
  return (req, res) => {
    const kreq = toKitRequest(req, { stripPrefix: mountPath, signal: connectionSignal(res) });
    dispatch(services, kreq).then(
      (found) => {
        const k = found && !found.stream ? found : genericNotFound(kreq);
        res.writeHead(k.status, k.headers).end(k.body);
      },
      () => failResponse(res),
    );
  };
}

/** Answers one Node request with the fetch handler. */
function serveRequest(handler: FetchHandler, req: IncomingMessage, res: ServerResponse, options: ServeOptions): void {
  if (req.method === "TRACE") {
    answerTrace(options.bridge, req, res);
    return;
  }
  let request: Request;
  try {
    request = nodeToRequest(req, res);
  } catch {
    const k = kitErrorResponse(coreError("invalid_request", { message: "malformed request" }));
    res.writeHead(k.status, k.headers).end(k.body);
    return;
  }
  handler(request)
    .then((response) => {
      // the body stream was cancelled part-way (a 413 while reading destroys the request): its rest can
      // no longer be drained, so this connection must not carry another request
      if (!req.complete && req.destroyed) res.setHeader("connection", "close");
      return writeResponse(response, res, options);
    })
    .then(() => {
      // answered before reading the whole body (e.g. 413 on Content-Length): discard the rest, as
      // Node does for unread bodies, so the client reads our answer instead of a reset
      if (!req.complete && !req.destroyed) {
        req.removeAllListeners("data");
        req.resume();
      }
    })
    .catch(() => failResponse(res));
}

/**
 * Serves a fetch handler (or services, through core's `toFetchHandler`) on node:http, with `serverDefaults`
 * (or `options.limits`) applied. `server.close()` ends the kit's SSE streams first (for a handler of your
 * own, when it has `closeStreams()`, as `toFetchHandler`'s does).
 */
export function createFetchServer(handler: FetchHandler | Service | readonly Service[], options: FetchServerOptions = {}): Server {
  const fetchHandler: FetchHandler & Partial<StreamCloser> =
    typeof handler === "function" ? handler : toFetchHandler(handler as Service | readonly Service[], options);
  const services = typeof handler === "function" ? undefined : serviceList(handler);
  const serve: ServeOptions = { ...options, bridge: services && bridgeListener(services, normaliseMountPath(options.mountPath)) };
  const server = nodeModule("node:http").createServer(serverOptions, (req, res) => serveRequest(fetchHandler, req, res, serve));
  const closeStreams = fetchHandler.closeStreams;
  return closeStreamsOnClose(applyServerLimits(server, options.limits), ...(closeStreams ? [{ closeStreams }] : []));
}
