// Fetch-style handler `(Request) => Promise<Response>` for any fetch runtime, plus a node:http host for it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Readable } from "node:stream";
import {
  coreError,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_MAX_STREAM_BUFFER,
  type FetchHandlerOptions,
  kitErrorResponse,
  type Service,
  toFetchHandler,
  withRawTarget,
} from "@mountkit/core";
import { applyServerLimits, closeStreamsOnClose, type ServerLimits, type StreamCloser, serverOptions, waitDrain } from "@mountkit/node";

export { closeStreamsOnClose, toFetchHandler, type FetchHandlerOptions };

export interface WriteResponseOptions {
  /** Bytes a response may queue for a client that does not read before it is dropped. Default 1 MiB. */
  maxStreamBuffer?: number;
  /** How long to wait for a client that stopped reading before dropping it (CONTRACT §3). Default 30 s. */
  drainTimeoutMs?: number;
}

export interface FetchServerOptions extends FetchHandlerOptions, WriteResponseOptions {
  /** Server timeouts and connection cap; `serverDefaults` from `@mountkit/node` when left out. */
  limits?: Partial<ServerLimits>;
}

type FetchHandler = (request: Request) => Promise<Response>;

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
  const request = new Request(url, {
    method: req.method,
    headers,
    signal: abort.signal,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" } : {}),
  } as RequestInit);
  return withRawTarget(request, req.url ?? "/");
}

/**
 * Writes a WHATWG Response to Node, streaming with backpressure; cancels the body if the client leaves,
 * and drops a client that stops reading (issue #10, break 6) as the Node bridge does.
 */
export async function writeResponse(response: Response, res: ServerResponse, options: WriteResponseOptions = {}): Promise<void> {
  const maxBuffer = options.maxStreamBuffer ?? DEFAULT_MAX_STREAM_BUFFER;
  const drainTimeout = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
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
  const reader = response.body.getReader();
  const onClose = () => void reader.cancel().catch(() => {});
  res.once("close", onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) {
        if (res.writableLength > maxBuffer || !(await waitDrain(res, drainTimeout))) {
          res.destroy();
          break;
        }
      }
    }
  } catch {
    // the client went away or the body failed mid-stream
  } finally {
    res.off("close", onClose);
    // dropped here (a stalled client): its `close` comes later, so end the source now
    if (res.destroyed) await reader.cancel().catch(() => {});
    else if (!res.writableEnded) res.end();
    reader.releaseLock?.();
  }
}

/**
 * Serves a fetch handler (or services) on node:http, with `serverDefaults` (or `options.limits`) applied.
 * `server.close()` ends the kit's SSE streams first (for a handler of your own, when it has
 * `closeStreams()`, as `toFetchHandler`'s does).
 */
export function createFetchServer(handler: FetchHandler | Service | readonly Service[], options: FetchServerOptions = {}): Server {
  const fetchHandler: FetchHandler & Partial<StreamCloser> =
    typeof handler === "function" ? handler : toFetchHandler(handler as Service | readonly Service[], options);
  const server = createServer(serverOptions, (req, res) => {
    let request: Request;
    try {
      request = nodeToRequest(req, res);
    } catch {
      const k = kitErrorResponse(coreError("invalid_request", { message: "malformed request" }));
      res.writeHead(k.status, k.headers).end(k.body);
      return;
    }
    fetchHandler(request)
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
      .catch(() => {
        if (!res.headersSent) {
          const k = kitErrorResponse(coreError("internal"));
          res.writeHead(k.status, k.headers).end(k.body);
        } else res.destroy();
      });
  });
  const closeStreams = fetchHandler.closeStreams;
  return closeStreamsOnClose(applyServerLimits(server, options.limits), ...(closeStreams ? [{ closeStreams }] : []));
}
