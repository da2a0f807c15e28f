// The handler's view of one request (`RequestContext`), and the request ids it hands out and echoes.
import type { Clock } from "./clock.js";
import { type KitRequest, normaliseMountPath } from "./http.js";
import { randomIds } from "./ids.js";
import type { Logger } from "./logger.js";
import type { HttpMethod, RequestContext } from "./route.js";
import { refuseNulInQuery } from "./text.js";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A client's X-Request-Id when it is safe to log and echo, else undefined. */
export const saneRequestId = (incoming: string | undefined) => (incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : undefined);

/** Request ids need to be unique, not secret: a random per-process prefix and a counter. */
const requestIds = (() => {
  const prefix = `req_${randomIds().slice(0, 10)}`;
  let n = 0;
  return () => `${prefix}${(++n).toString(36)}`;
})();

/** The query as an object; an empty value (`?tag=`) counts as absent (docs/conventions.md#empty-means-absent). */
function queryObject(q: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(q.keys())) {
    const all = q.getAll(key).filter((v) => v !== "");
    if (all.length) out[key] = all.length === 1 ? all[0]! : all;
  }
  return out;
}

/** The handler's view of a request. A class, so per-request getters cost no closures. */
export class Context implements RequestContext<Record<string, string>, Record<string, unknown>, unknown> {
  body: unknown = undefined;
  rawBody: Uint8Array | undefined = undefined;
  bodyStream: AsyncIterable<Uint8Array> | undefined = undefined;
  contentType: string | undefined;
  readonly headers: Readonly<Record<string, string | undefined>>;
  #request: KitRequest;
  #state: Record<string, unknown> | undefined;
  #incomingId: string | undefined;
  #requestId: string | undefined;
  #query: Record<string, unknown> | undefined;

  constructor(
    request: KitRequest,
    readonly method: HttpMethod,
    readonly path: string,
    public params: Record<string, string>,
    incomingRequestId: string | undefined,
    readonly clock: Clock,
    readonly log: Logger,
    /** performance.now() at the start, or -1 when the debug line is off. */
    readonly started: number,
    /** The service's own basePath ("" at the root). */
    readonly basePath: string,
  ) {
    this.#request = request;
    this.#incomingId = incomingRequestId;
    this.headers = request.headers;
    this.contentType = request.headers["content-type"];
  }

  /** Parsed on first read: most routes have no query. A NUL in it throws the 400 to whoever reads it first. */
  get query(): Record<string, unknown> {
    if (this.#query === undefined) {
      refuseNulInQuery(this.#request.query);
      this.#query = queryObject(this.#request.query);
    }
    return this.#query;
  }
  set query(v: Record<string, unknown>) {
    this.#query = v;
  }

  /**
   * The client's X-Request-Id when it is sane, else one of ours, made on first read: an id nobody
   * reads (no error, no log line, no handler) is never made, and then never sent.
   */
  get requestId(): string {
    if (this.#requestId === undefined) {
      this.#requestId = saneRequestId(this.#incomingId) ?? requestIds();
    }
    return this.#requestId;
  }

  /** The id to send back: an echo of the client's, or the one something read. */
  get assignedRequestId(): string | undefined {
    return this.#requestId ?? (this.#incomingId !== undefined ? this.requestId : undefined);
  }

  /** Where this service's routes live in public URLs: the host's mount prefix, then the service's basePath. */
  get baseUrl(): string {
    return this.mountPath + this.basePath;
  }

  get mountPath(): string {
    return normaliseMountPath(this.#request.mountPath);
  }

  get remoteAddress(): string | undefined {
    return this.#request.remoteAddress;
  }

  /** The adapter's request. */
  get request(): KitRequest {
    return this.#request;
  }

  /** Per-request scratch space for middleware; most requests never touch it. */
  get state(): Record<string, unknown> {
    this.#state ??= {};
    return this.#state;
  }
  set state(v: Record<string, unknown>) {
    this.#state = v;
  }

  /** The adapter creates the connection's AbortController only if a handler asks for it. */
  get signal(): AbortSignal {
    return this.#request.signal;
  }
}
