// Shutdown with SSE clients connected: a stream never finishes on its own, so `server.close()` would wait on
// it forever. The kit ends its streams first (a clean last chunk, then the connection closes).
import type { Server, ServerResponse } from "node:http";

/** Anything that can end the SSE streams it serves: a Node handler, `mountkit(...)`, `toFetchHandler(...)`. */
export interface StreamCloser {
  closeStreams(): void;
}

/** The open SSE responses of one handler. */
export class OpenStreams implements StreamCloser {
  #open = new Map<ServerResponse, AbortController>();
  #closed = false;

  /** Tracks a stream until its response closes; one opened after `closeStreams()` ends at once. */
  add(res: ServerResponse, abort: AbortController): void {
    if (this.#closed) {
      endConnectionWhenDone(res);
      abort.abort();
      return;
    }
    this.#open.set(res, abort);
    res.once("close", () => this.#open.delete(res));
  }

  get size(): number {
    return this.#open.size;
  }

  /** Ends every open stream (and any opened later): the writer sends the final chunk, then the socket closes. */
  closeStreams(): void {
    this.#closed = true;
    for (const [res, abort] of this.#open) {
      endConnectionWhenDone(res);
      abort.abort();
    }
    this.#open.clear();
  }
}

/**
 * Closes the connection once `res` is finished. Without it the connection of an ended stream goes back to
 * keep-alive idle and `server.close()` waits for the keep-alive timeout, since Node closes only the
 * connections that were idle when close was called.
 */
function endConnectionWhenDone(res: ServerResponse): void {
  const socket = res.socket;
  if (!socket) return;
  if (res.writableFinished) socket.end();
  else res.once("finish", () => socket.end());
}

/**
 * Makes `server.close()` end the streams of `closers` first, and close every other connection as soon
 * as its response is done: the idiomatic `server.close(callback)` then returns within the time the
 * in-flight requests need. Works for any `node:http` server (Express's `app.listen`, `@hono/node-server`).
 */
export function closeStreamsOnClose<S extends Server>(server: S, ...closers: StreamCloser[]): S {
  const inFlight = new Set<ServerResponse>();
  let closing = false;
  server.on("request", (_req, res: ServerResponse) => {
    if (closing) {
      res.shouldKeepAlive = false;
      return;
    }
    inFlight.add(res);
    res.once("close", () => inFlight.delete(res));
  });
  const target: Server = server;
  const close = target.close;
  target.close = function closeAfterStreams(this: Server, callback?: (err?: Error) => void) {
    if (!closing) {
      closing = true;
      for (const c of closers) c.closeStreams();
      for (const res of inFlight) endConnectionWhenDone(res);
    }
    return close.call(this, callback);
  };
  return server;
}
