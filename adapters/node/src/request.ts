// Node request to KitRequest: the raw target, the body read with a byte limit and a deadline, the abort signal
// tied to the connection. Runs on every request, so it allocates only what a request uses.
import type { IncomingMessage, ServerResponse } from "node:http";
import { coreError, isKitError, type KitRequest } from "@mountkit/core";
import { type BodySource, bodyTimeoutError, DEFAULT_BODY_TIMEOUT_MS, targetPath, withDeadline } from "@mountkit/core/adapter";

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
  chunks(limit: number): AsyncIterable<Uint8Array> {
    return nodeBodyChunks(this.#req, limit, this.#timeoutMs);
  }
}

/**
 * The raw body as it arrives, for `bodyMode: "stream"` routes, with Node's own backpressure (nothing is read
 * ahead of the consumer). Past `limit`: 413. Once the time spent waiting on the client passes `timeoutMs`: the
 * 408, whose `Connection: close` ends the socket after the answer. A consumer that stops early leaves the rest
 * to be discarded, so the client reads the answer instead of a reset.
 */
async function* nodeBodyChunks(req: IncomingMessage, limit: number, timeoutMs: number): AsyncGenerator<Uint8Array> {
  if (req.readableEnded) return;
  const it = req.iterator({ destroyOnReturn: false });
  let total = 0;
  let left = timeoutMs;
  let stalled = false;
  try {
    for (;;) {
      const started = performance.now();
      let r: IteratorResult<Buffer>;
      try {
        r = await withDeadline(it.next(), left, timeoutMs);
      } catch (e) {
        stalled = isKitError(e) && e.status === 408;
        throw e;
      }
      left -= performance.now() - started;
      if (r.done) return;
      total += r.value.length;
      if (total > limit) throw coreError("payload_too_large", { details: { limit } });
      yield r.value;
    }
  } finally {
    // after a 408 a read is still pending: returning would wait on it; the socket closes after the answer anyway
    if (!stalled) await it.return?.();
    if (!req.readableEnded) req.resume();
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
