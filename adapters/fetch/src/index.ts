// Fetch-style handler `(Request) => Promise<Response>` for any fetch runtime, plus a node:http host for it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { type FetchHandlerOptions, type Service, toFetchHandler } from "@mountkit/core";
import { closeStreamsOnClose, type StreamCloser } from "@mountkit/node";

export { closeStreamsOnClose, toFetchHandler, type FetchHandlerOptions };

type FetchHandler = (request: Request) => Promise<Response>;

/** Converts a Node request to a WHATWG Request (streaming body, aborted when the client leaves). */
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
  return new Request(url, {
    method: req.method,
    headers,
    signal: abort.signal,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" } : {}),
  } as RequestInit);
}

/** Writes a WHATWG Response to Node, streaming with backpressure; cancels the body if the client leaves. */
export async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
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
  if (streaming) res.flushHeaders();
  const reader = response.body.getReader();
  const onClose = () => void reader.cancel().catch(() => {});
  res.once("close", onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) {
        if (res.writableLength > 1024 * 1024) {
          res.destroy();
          break;
        }
        await new Promise<void>((r) => {
          const fin = () => {
            res.off("drain", fin);
            res.off("close", fin);
            r();
          };
          res.on("drain", fin);
          res.on("close", fin);
        });
        if (res.destroyed) break;
      }
    }
  } catch {
    // the client went away or the body failed mid-stream
  } finally {
    res.off("close", onClose);
    if (!res.destroyed && !res.writableEnded) res.end();
    reader.releaseLock?.();
  }
}

/**
 * Serves a fetch handler (or services) on node:http. `server.close()` ends the kit's SSE streams first
 * (for a handler of your own, when it has `closeStreams()`, as `toFetchHandler`'s does).
 */
export function createFetchServer(handler: FetchHandler | Service | readonly Service[], options: FetchHandlerOptions = {}): Server {
  const fetchHandler: FetchHandler & Partial<StreamCloser> =
    typeof handler === "function" ? handler : toFetchHandler(handler as Service | readonly Service[], options);
  const server = createServer((req, res) => {
    let request: Request;
    try {
      request = nodeToRequest(req, res);
    } catch {
      res.writeHead(400, { "content-type": "application/json" }).end('{"error":"bad request"}');
      return;
    }
    fetchHandler(request)
      .then((response) => {
        // the body stream was cancelled part-way (a 413 while reading destroys the request): its rest can
        // no longer be drained, so this connection must not carry another request
        if (!req.complete && req.destroyed) res.setHeader("connection", "close");
        return writeResponse(response, res);
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
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" }).end('{"error":"internal error"}');
        else res.destroy();
      });
  });
  const closeStreams = fetchHandler.closeStreams;
  return closeStreamsOnClose(server, ...(closeStreams ? [{ closeStreams }] : []));
}
