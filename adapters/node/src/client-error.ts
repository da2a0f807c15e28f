// JSON answers for the requests Node's own HTTP parser refuses before any framework sees them.
import type { Duplex } from "node:stream";

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
