// JSON answers for the requests Node's own HTTP server refuses before any framework sees them: parser errors
// (`clientErrorHandler`), a request without Host and an Expect other than 100-continue (`answerNodeRefusals`).
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { defineErrors, type KitError } from "@mountkit/core";
import { kitErrorResponse } from "@mountkit/core/adapter";

/**
 * For `server.on("clientError", ...)`: Node's HTTP parser rejects some requests (oversized headers or
 * URL, malformed request lines) before any framework sees them. Answer those with a JSON error body
 * `{ error, requestId }` (the kit's one error body, the id also in X-Request-Id) instead of an empty reply.
 */
export function clientErrorHandler() {
  let n = 0;
  return (err: Error & { code?: string }, socket: Duplex) => {
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

const refusal = defineErrors({
  missing_host: { status: 400, message: "missing Host header (required in HTTP/1.1)" },
  expectation_failed: { status: 417, message: "unsupported Expect header: only 100-continue is supported" },
});

const ANSWERED = Symbol.for("mountkit.node.refusals");

/** Node's own Host rule (RFC 9112 §3.2): an HTTP/1.1 request must carry Host; HTTP/1.0 may leave it out. */
const lacksHost = (req: IncomingMessage) => req.httpVersionMajor === 1 && req.httpVersionMinor === 1 && req.headers.host === undefined;

function refuse(res: ServerResponse, error: KitError, close: boolean): void {
  const k = kitErrorResponse(error);
  const length = Buffer.byteLength(k.body as string);
  res.writeHead(k.status, { ...k.headers, "content-length": String(length), ...(close ? { connection: "close" } : {}) }).end(k.body);
}

/**
 * Makes a node:http server answer, in the kit's error body with its X-Request-Id, the two requests Node itself
 * refuses with an empty body: an HTTP/1.1 request without Host (400, connection closed, as Node does) and an
 * `Expect` other than `100-continue` (417). `applyServerLimits` calls it; calling it again does nothing.
 *
 * Node has no hook for the Host check, only `requireHostHeader: false` (read per request): the check moves
 * here, ahead of every `request` listener, whenever added, so no framework and no host route ever sees such a
 * request (as with Node's own check). For Expect, Node's `checkExpectation` event: this answers it only while it
 * is the one listener, so a host that handles expectations itself keeps doing so.
 */
export function answerNodeRefusals<S extends Server>(server: S): S {
  // requireHostHeader: a property Node reads on every request, though @types/node only declares the creation option
  const marked = server as S & { [ANSWERED]?: true; requireHostHeader?: boolean };
  if (marked[ANSWERED]) return server;
  marked[ANSWERED] = true;
  marked.requireHostHeader = false;
  const emit = server.emit;
  server.emit = function (this: S, event: string | symbol, ...args: unknown[]) {
    // `checkExpectation` and `checkContinue` stand for `request` when an Expect header came with it
    if ((event === "request" || event === "checkExpectation" || event === "checkContinue") && lacksHost(args[0] as IncomingMessage)) {
      refuse(args[1] as ServerResponse, refusal("missing_host"), true);
      return true;
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as S["emit"];
  server.on("checkExpectation", (_req: IncomingMessage, res: ServerResponse) => {
    if (server.listenerCount("checkExpectation") === 1) refuse(res, refusal("expectation_failed"), false);
  });
  return server;
}
