// WHATWG Request/Response conversion: the whole of the fetch adapter, kept in core so every service has `.fetch`.
import { coreError } from "./errors.js";
import { type BodySource, genericNotFound, type KitRequest, type KitResponse, normaliseHeaders, withMountPrefix } from "./http.js";
import type { Service } from "./service.js";

/** Reads a web stream up to `limit` bytes; past it, cancels and throws 413. */
export async function readWebStream(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw coreError("payload_too_large", { details: { limit } });
    }
    chunks.push(value);
  }
  return concat(chunks, total);
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
  return new Response(nullBody ? null : (res.body as BodyInit), { status: res.status, headers: res.headers });
}

export function fromWebRequest(request: Request, signal: AbortSignal, basePath = ""): KitRequest {
  const url = new URL(request.url);
  let path = url.pathname;
  if (basePath && (path === basePath || path.startsWith(`${basePath}/`))) path = path.slice(basePath.length) || "/";
  const body: BodySource = request.body
    ? { kind: "stream", read: (limit) => readWebStream(request.body as ReadableStream<Uint8Array>, limit) }
    : { kind: "none" };
  return { method: request.method, path, query: url.searchParams, headers: normaliseHeaders(request.headers), body, signal };
}

export interface FetchHandlerOptions {
  /** Stripped from the URL path before dispatch (the host's mount prefix). */
  basePath?: string;
  bodyLimit?: number;
  /** Answer for paths no service owns; default a JSON 404. */
  notFound?: (request: Request) => Response | Promise<Response>;
}

/** `(Request) => Promise<Response>`; `closeStreams()` ends its open SSE streams (before a server closes). */
export interface FetchHandler {
  (request: Request): Promise<Response>;
  closeStreams(): void;
}

export function toFetchHandler(services: Service | readonly Service[], options: FetchHandlerOptions = {}): FetchHandler {
  const list = Array.isArray(services) ? services : [services as Service];
  const basePath = (options.basePath ?? "").replace(/\/+$/, "");
  // aborting a stream's controller ends its event loop, so its body closes with a clean last chunk
  const streams = new Set<AbortController>();
  let closed = false;
  const track = (r: KitResponse, abort: AbortController) => {
    if (!r.stream) return;
    if (closed) abort.abort();
    else {
      streams.add(abort);
      abort.signal.addEventListener("abort", () => streams.delete(abort), { once: true });
    }
  };
  const fetchHandler = async (request: Request): Promise<Response> => {
    const abort = new AbortController();
    const onAbort = () => abort.abort();
    if (request.signal.aborted) abort.abort();
    else request.signal.addEventListener("abort", onAbort, { once: true });
    const kreq = fromWebRequest(request, abort.signal, basePath);
    for (const s of list) {
      const r = await s.handle(kreq);
      if (r) {
        track(r, abort);
        return toWebResponse(withMountPrefix(r, basePath), abort);
      }
    }
    if (options.notFound) return options.notFound(request);
    return toWebResponse(genericNotFound(kreq), abort);
  };
  return Object.assign(fetchHandler, {
    closeStreams() {
      closed = true;
      for (const abort of [...streams]) abort.abort();
    },
  });
}
