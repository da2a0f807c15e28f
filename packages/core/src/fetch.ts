// WHATWG Request/Response conversion: the whole of the fetch adapter, kept in core so every service has `.fetch`.
import { coreError } from "./errors.js";
import {
  type BodySource,
  genericNotFound,
  type KitRequest,
  type KitResponse,
  normaliseHeaders,
  normaliseMountPath,
  targetPath,
  targetQuery,
} from "./http.js";
import { admitStream, bodyTimeoutError, DEFAULT_BODY_TIMEOUT_MS, type StreamGate, streamGate } from "./limits.js";
import type { Service } from "./service-types.js";

/**
 * Reads a web stream up to `limit` bytes; past it, throws 413. Past `timeoutMs` it throws 408. Either way it lets go
 * of the stream without cancelling it: cancelling a Node request's body destroys it, and the connection then closes
 * with the client's bytes unread, so the client's next write fails (EPIPE, a reset) and it may never read the answer.
 * A Node host discards the rest and sends the answer (createFetchServer does); Node closes after a 408.
 */
export async function readWebStream(
  stream: ReadableStream<Uint8Array>,
  limit: number,
  timeoutMs = DEFAULT_BODY_TIMEOUT_MS,
): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(bodyTimeoutError(timeoutMs)), timeoutMs);
  });
  expired.catch(() => {});
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), expired]);
      if (done) break;
      total += value.byteLength;
      if (total > limit) throw coreError("payload_too_large", { details: { limit } });
      chunks.push(value);
    }
  } catch (e) {
    // the pending read rejects once the lock goes; nobody waits for it any more
    try {
      reader.releaseLock();
    } catch {}
    throw e;
  } finally {
    clearTimeout(timer);
  }
  return concat(chunks, total);
}

/**
 * A web stream's chunks as they arrive, for `bodyMode: "stream"` routes: past `limit` bytes it throws 413; once the
 * time spent waiting on the client passes `timeoutMs` it throws 408. Either way, and when the consumer stops early, it
 * releases the stream uncancelled (as `readWebStream`), so a Node host can discard the rest and the client still reads
 * the answer.
 */
export async function* webStreamChunks(
  stream: ReadableStream<Uint8Array>,
  limit: number,
  timeoutMs = DEFAULT_BODY_TIMEOUT_MS,
): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  let total = 0;
  let left = timeoutMs;
  try {
    for (;;) {
      const started = performance.now();
      const { done, value } = await withDeadline(reader.read(), left, timeoutMs);
      left -= performance.now() - started;
      if (done) return;
      total += value.byteLength;
      if (total > limit) throw coreError("payload_too_large", { details: { limit } });
      yield value;
    }
  } finally {
    // a pending read (after a 408) rejects once the lock goes; nobody waits for it any more
    try {
      reader.releaseLock();
    } catch {}
  }
}

/**
 * `pending`, or the 408 (naming the body deadline `timeoutMs`) once `ms` pass first; the pending promise is
 * then left to settle unobserved. Adapters streaming a body spend the deadline read by read with it.
 */
export function withDeadline<T>(pending: Promise<T>, ms: number, timeoutMs = ms): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(bodyTimeoutError(timeoutMs)), Math.max(0, ms));
  });
  pending.catch(() => {});
  return Promise.race([pending, expired]).finally(() => clearTimeout(timer));
}

export function concat(chunks: Uint8Array[], total = chunks.reduce((n, c) => n + c.byteLength, 0)): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.byteLength;
  }
  return out;
}

const encoder = new TextEncoder();

/** Builds a Response from a KitResponse; SSE frames become a pull-based stream (backpressure for free). */
export function toWebResponse(res: KitResponse, abort: AbortController): Response {
  if (res.stream) {
    const it = res.stream[Symbol.asyncIterator]();
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          try {
            const r = await it.next();
            if (r.done) controller.close();
            else controller.enqueue(encoder.encode(r.value));
          } catch (e) {
            controller.error(e);
          }
        },
        async cancel() {
          abort.abort();
          await it.return?.();
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: res.status, headers: res.headers });
  }
  const nullBody = res.status === 204 || res.status === 304 || res.body === undefined;
  if (nullBody) return new Response(null, { status: res.status, headers: res.headers });
  // the length goes along: a server writing this Response sends it in one piece (no chunked framing, one write), and
  // an answer with `Connection: close` (a 408 for a stalled upload) ends its connection as soon as it is out
  const bytes = typeof res.body === "string" ? encoder.encode(res.body) : (res.body as Uint8Array);
  return new Response(bytes as BodyInit, { status: res.status, headers: { ...res.headers, "content-length": String(bytes.byteLength) } });
}

/**
 * Request targets as a Node server received them, before the WHATWG URL parser resolved `..`,
 * `%2e%2e`, `\\` and `//` in them: an adapter that builds a Request records the raw target here, and
 * routing uses it (issue #10, break 5). A WeakMap rather than a header: a client cannot forge it.
 */
const rawTargets = new WeakMap<Request, string>();

/** Records the raw request target of a Request an adapter built; returns the same Request. */
export function withRawTarget(request: Request, target: string): Request {
  rawTargets.set(request, target);
  return request;
}

/** Peer addresses of Requests a host built or received, beside them (a WeakMap: a client cannot forge it). */
const remoteAddresses = new WeakMap<Request, string>();

/**
 * Records the connection's peer address for a Request (a Request carries none): a Node host passes
 * `socket.remoteAddress`, Deno `info.remoteAddr.hostname`, Bun `server.requestIP(request)?.address`.
 * Returns the same Request.
 */
export function withRemoteAddress(request: Request, address: string | undefined): Request {
  if (address) remoteAddresses.set(request, address);
  return request;
}

/**
 * A KitRequest over a WHATWG Request. `mountPath` is where the host serves the handler: removed from
 * the URL's path when the URL still has it, and kept as the request's `mountPath` for links.
 */
export function fromWebRequest(request: Request, signal: AbortSignal, mountPath = "", bodyTimeoutMs = DEFAULT_BODY_TIMEOUT_MS): KitRequest {
  const raw = rawTargets.get(request);
  // a runtime's own Request (Bun, Deno, workers) only has its parsed URL; the raw target, where one was kept, wins
  const url = raw === undefined ? new URL(request.url) : undefined;
  let path = raw === undefined ? url!.pathname : targetPath(raw);
  if (mountPath && (path === mountPath || path.startsWith(`${mountPath}/`))) path = path.slice(mountPath.length) || "/";
  const body: BodySource = request.body
    ? {
        kind: "stream",
        read: (limit) => readWebStream(request.body as ReadableStream<Uint8Array>, limit, bodyTimeoutMs),
        chunks: (limit) => webStreamChunks(request.body as ReadableStream<Uint8Array>, limit, bodyTimeoutMs),
      }
    : { kind: "none" };
  const query = url ? url.searchParams : new URLSearchParams(targetQuery(raw!));
  const remoteAddress = remoteAddresses.get(request);
  return { method: request.method, path, mountPath, query, headers: normaliseHeaders(request.headers), body, signal, remoteAddress };
}

export interface FetchHandlerOptions {
  /**
   * The path the host serves this handler under, e.g. `/kit`. Every link the services write
   * (Location, URLs in bodies, OpenAPI `servers`) starts with it. A request URL that still begins
   * with it has it removed before routing (a fetch export behind a path-based router, Hono's
   * `app.mount("/kit", handler, { replaceRequest: false })`); a URL without it is routed as it is
   * (Hono's default `app.mount("/kit", handler)` hands over the URL with the prefix already cut).
   * Not to be confused with a service's own `basePath`, which is part of the service's paths.
   */
  mountPath?: string;
  bodyLimit?: number;
  /** Answer for paths no service owns; default a JSON 404. */
  notFound?: (request: Request) => Response | Promise<Response>;
  /** How long a request body may take to arrive once a route reads it; then 408. Default 30 s. */
  bodyTimeoutMs?: number;
  /** Open SSE streams at once (a number, or a {@link StreamGate} shared with other mounts); then 503. Default 5,000. */
  maxStreams?: number | StreamGate;
}

/** `(Request) => Promise<Response>`; `closeStreams()` ends its open SSE streams (before a server closes). */
export interface FetchHandler {
  (request: Request): Promise<Response>;
  closeStreams(): void;
}

export function toFetchHandler(services: Service | readonly Service[], options: FetchHandlerOptions = {}): FetchHandler {
  const list = Array.isArray(services) ? services : [services as Service];
  const mountPath = normaliseMountPath(options.mountPath);
  const gate = streamGate(options.maxStreams);
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  // aborting a stream's controller ends its event loop, so its body closes with a clean last chunk.
  // Each open stream keeps its Request reachable: undici's Request follows the caller's signal through a
  // weak reference that only the Request itself holds, so a Request the caller let go of could be
  // collected mid-stream, and the client's abort would then never reach the stream (an open slot forever).
  const streams = new Map<AbortController, Request>();
  let closed = false;
  const track = (r: KitResponse, abort: AbortController, request: Request) => {
    if (!r.stream) return;
    if (closed) abort.abort();
    else {
      streams.set(abort, request);
      abort.signal.addEventListener("abort", () => streams.delete(abort), { once: true });
    }
  };
  const fetchHandler = async (request: Request): Promise<Response> => {
    const abort = new AbortController();
    const onAbort = () => abort.abort();
    if (request.signal.aborted) abort.abort();
    else request.signal.addEventListener("abort", onAbort, { once: true });
    const kreq = fromWebRequest(request, abort.signal, mountPath, bodyTimeoutMs);
    for (const s of list) {
      const r = await s.handle(kreq);
      if (r) {
        const k = admitStream(list, kreq, r, gate, abort);
        track(k, abort, request);
        return toWebResponse(k, abort);
      }
    }
    if (options.notFound) return options.notFound(request);
    return toWebResponse(genericNotFound(kreq), abort);
  };
  return Object.assign(fetchHandler, {
    closeStreams() {
      closed = true;
      for (const abort of [...streams.keys()]) abort.abort();
    },
  });
}
