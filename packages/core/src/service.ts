// A service is a route table plus its error body; `defineService` derives dispatch, fetch and OpenAPI from it.
import type * as z from "zod";
import { bodyReadError, DEFAULT_BODY_LIMIT, invalidJson, mediaType, parseBody, type ReadBody, readBody, readRawBody } from "./body.js";
import { type Clock, systemClock } from "./clock.js";
import { type CorsOptions, corsPolicy } from "./cors.js";
import { coreError, ErrorBodySchema, errorBody as kitErrorBody, isKitError, KitError } from "./errors.js";
import { toFetchHandler } from "./fetch.js";
import { type KitRequest, type KitResponse, normaliseMountPath, SSE_HEADERS, withMountPrefix } from "./http.js";
import { type IdGenerator, randomIds } from "./ids.js";
import { kitLogger, type Logger } from "./logger.js";
import { dropNullOptionals } from "./nulls.js";
import { buildOpenApi, type OpenApiDocument } from "./openapi.js";
import {
  type HandlerResult,
  type HttpMethod,
  isJsonResult,
  isSseResult,
  isTextResult,
  type Middleware,
  type RequestContext,
  type Route,
} from "./route.js";
import { compileRoutes } from "./router.js";
import { sseFrames } from "./sse.js";
import { nulInParams, refuseNulInQuery } from "./text.js";

export interface ServiceDefinition {
  name: string;
  /** OpenAPI info. */
  title: string;
  version: string;
  description?: string;
  /** Path prefixes this service owns (relative to basePath): unmatched paths under them get this service's 404/405. */
  mounts: string[];
  routes: Route[];
  /** Middleware run around every route, outermost first. */
  use?: Middleware[];
  /**
   * The wire error body. Default, and what every kit service uses: the one body of CONTRACT §0,
   * `{ error, details?, requestId }`. A replacement must keep `requestId` equal to X-Request-Id.
   */
  errorBody?(error: KitError, requestId: string): unknown;
  /** Zod schema of that body, for the OpenAPI document; default the kit's. */
  errorSchema?: z.ZodType;
  securitySchemes?: Record<string, Record<string, unknown>>;
  basePath?: string;
  bodyLimit?: number;
  /** Cross-origin access for browser pages on other origins (preflight and response headers). */
  cors?: CorsOptions;
  clock?: Clock;
  logger?: Logger;
  ids?: IdGenerator;
  dispose?: () => Promise<void> | void;
}

export interface Service {
  readonly name: string;
  readonly basePath: string;
  readonly mounts: readonly string[];
  readonly routes: readonly Route[];
  /** Whether `path` (as the adapter sees it, basePath included) is this service's to answer. */
  owns(path: string): boolean;
  /** Dispatches a request; `null` when the path is not this service's. */
  handle(request: KitRequest): Promise<KitResponse | null>;
  /** `(Request) => Promise<Response>` for fetch runtimes. */
  fetch(request: Request): Promise<Response>;
  /**
   * The OpenAPI 3.1 document derived from the route table. Paths include the service's basePath;
   * `servers` is the host's mount prefix (`/` at the root), so a document served under a framework
   * mount points its clients at the right place.
   */
  openapi(options?: { mountPath?: string }): OpenApiDocument;
  /** The error body for a request no service owns. */
  notFound(request: KitRequest): KitResponse;
  /**
   * Answers an error raised outside the kit (e.g. a host body parser that ran first) with this
   * service's error body; `null` when the path is not this service's.
   */
  errorResponse(request: Pick<KitRequest, "method" | "path" | "headers">, error: unknown): KitResponse | null;
  dispose(): Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A client's X-Request-Id when it is safe to log and echo, else undefined. */
const saneRequestId = (incoming: string | undefined) => (incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : undefined);

/** Request ids need to be unique, not secret: a random per-process prefix and a counter. */
const requestIds = (() => {
  const prefix = `req_${randomIds().slice(0, 10)}`;
  let n = 0;
  return () => `${prefix}${(++n).toString(36)}`;
})();

function queryObject(q: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(q.keys())) {
    const all = q.getAll(key);
    out[key] = all.length === 1 ? all[0]! : all;
  }
  return out;
}

/** Zod issues as `[{ path, message }]` with dotted paths prefixed by where the value came from. */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[], prefix?: string): Array<{ path: string; message: string }> {
  return issues.map((i) => {
    const segs = i.path.map((p) => (typeof p === "number" ? `[${p}]` : String(p)));
    const joined = segs.reduce((acc, s) => (s.startsWith("[") ? acc + s : acc ? `${acc}.${s}` : s), "");
    return { path: prefix ? (joined ? `${prefix}.${joined}` : prefix) : joined, message: i.message };
  });
}

function validate(schema: z.ZodType | undefined, value: unknown, where: string): unknown {
  if (!schema) return value;
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const details = issuesToDetails(r.error.issues, where === "body" ? undefined : where);
  const first = details[0];
  const message = first ? `invalid ${where}: ${first.path ? `${first.path}: ` : ""}${first.message}` : `invalid ${where}`;
  throw coreError("invalid_request", { message, details });
}

const JSON_ONLY = ["application/json"];
const JSON_TYPE = "application/json; charset=utf-8";

interface RoutePlan {
  chain: Middleware[];
  body: { mode: "json" | "raw"; accepts: readonly string[]; limit: number } | undefined;
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const NOT_MINE: Promise<null> = Promise.resolve(null);
const isPromiseLike = <T>(v: T | PromiseLike<T>): v is PromiseLike<T> => typeof (v as { then?: unknown } | null)?.then === "function";
const upperMethod = (m: string) => (METHODS.has(m) ? m : m.toUpperCase());

/** The handler's view of a request. A class, so per-request getters cost no closures. */
class Context implements RequestContext<Record<string, string>, Record<string, unknown>, unknown> {
  body: unknown = undefined;
  rawBody: Uint8Array | undefined = undefined;
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

/** A path-ownership test over mount prefixes, compiled once: runs on every request, so no closures. */
function mountMatcher(mounts: readonly string[]): (path: string) => boolean {
  const under = mounts.map((m) => (m.endsWith("/") ? m : `${m}/`));
  return (path) => {
    for (let i = 0; i < mounts.length; i++) if (path === mounts[i] || path.startsWith(under[i]!)) return true;
    return false;
  };
}

export function defineService(def: ServiceDefinition): Service {
  const basePath = (def.basePath ?? "").replace(/\/+$/, "");
  const clock = def.clock ?? systemClock;
  const log = kitLogger(def.logger);
  const ids = def.ids ?? randomIds;
  const bodyLimit = def.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const errorBody = def.errorBody ?? kitErrorBody;
  const errorSchema = def.errorSchema ?? (def.errorBody ? undefined : ErrorBodySchema);
  const match = compileRoutes(def.routes);
  // each route's middleware (outermost first) and body handling, resolved once
  const plans = new Map<Route, RoutePlan>(
    def.routes.map((r) => {
      const mode = r.bodyMode ?? (r.body ? "json" : "none");
      const body = mode === "none" ? undefined : { mode, accepts: r.accepts ?? JSON_ONLY, limit: r.bodyLimit ?? bodyLimit };
      return [r, { chain: [...(def.use ?? []), ...(r.use ?? [])], body }];
    }),
  );
  let openapiCache: OpenApiDocument | undefined;
  const cors = def.cors ? corsPolicy(def.cors) : undefined;

  const errorResult = (err: unknown, requestId: string, method: string, path: string): HandlerResult => {
    let kitErr: KitError;
    if (isKitError(err)) kitErr = err;
    else {
      log.error("unhandled error", { service: def.name, requestId, method, path, error: err });
      kitErr = coreError("internal");
    }
    if (kitErr.status >= 500 && isKitError(err) && err.cause)
      log.error("service error", { service: def.name, requestId, error: err.cause });
    return { status: kitErr.status, json: errorBody(kitErr, requestId), headers: kitErr.headers };
  };

  const safe = (fn: () => Promise<HandlerResult>, requestId: string, method: string, path: string) => async (): Promise<HandlerResult> => {
    try {
      return await fn();
    } catch (e) {
      return errorResult(e, requestId, method, path);
    }
  };

  /**
   * The wire response. `requestId` goes out as X-Request-Id when there is one (see Context.requestId);
   * a root-relative Location or Link gets the host's mount prefix in front.
   */
  function serialise(result: HandlerResult, request: KitRequest, requestId: string | undefined): KitResponse {
    const out = serialiseResult(result, request, requestId);
    return request.mountPath && (out.headers.location !== undefined || out.headers.link !== undefined)
      ? withMountPrefix(out, request.mountPath)
      : out;
  }

  function serialiseResult(result: HandlerResult, request: KitRequest, requestId: string | undefined): KitResponse {
    const id = requestId === undefined ? undefined : { "x-request-id": requestId };
    if (isSseResult(result)) {
      return {
        status: 200,
        headers: { ...SSE_HEADERS, ...result.headers, ...id },
        stream: sseFrames(result.sse.events, { retryMs: result.sse.retryMs, heartbeatMs: result.sse.heartbeatMs, signal: request.signal }),
      };
    }
    const head = request.method === "HEAD";
    if (isJsonResult(result)) {
      // the common cases as one literal each: adding a property later grows the object's backing store
      const headers =
        result.headers || requestId === undefined
          ? { ...result.headers, ...id, "content-type": JSON_TYPE }
          : { "x-request-id": requestId, "content-type": JSON_TYPE };
      return { status: result.status, headers, body: head ? undefined : JSON.stringify(result.json) };
    }
    if (isTextResult(result)) {
      const headers = { ...result.headers, ...id, "content-type": result.contentType };
      return { status: result.status, headers, body: head ? undefined : result.text };
    }
    return { status: result.status, headers: { ...result.headers, ...id } };
  }

  /** The path relative to this service, or null when the service does not own it. */
  const owns = mountMatcher(def.mounts);
  const baseSlash = `${basePath}/`;
  function ownPath(requestPath: string): string | null {
    let path = requestPath || "/";
    if (basePath) {
      if (path !== basePath && !path.startsWith(baseSlash)) return null;
      path = path.slice(basePath.length) || "/";
    }
    return owns(path) ? path : null;
  }

  const readRouteBody = (plan: RoutePlan, request: KitRequest) =>
    readBody(request.body, plan.body!, request.headers["content-type"], request.headers["content-length"]);

  /** Whether this request carries a body the route reads. */
  const readsBody = (plan: RoutePlan, method: string) => plan.body !== undefined && method !== "GET" && method !== "HEAD";

  function setBody(ctx: Context, b: ReadBody): void {
    ctx.body = b.value;
    ctx.rawBody = b.raw;
    ctx.contentType = b.contentType;
  }

  function validateInputs(r: Route, ctx: Context): void {
    if (r.params) ctx.params = validate(r.params, ctx.params, "path") as Record<string, string>;
    // without a query schema the query stays unparsed until a handler reads it
    if (r.query) ctx.query = validate(r.query, ctx.query, "query") as Record<string, unknown>;
    if (r.body) ctx.body = validate(r.body, dropNullOptionals(r.body, ctx.body), "body");
  }

  /** A route with middleware: each layer is a closure around the next, errors caught at every layer. */
  function runChain(r: Route, plan: RoutePlan, ctx: Context, request: KitRequest): Promise<HandlerResult> {
    const inner = async (): Promise<HandlerResult> => {
      if (readsBody(plan, ctx.method)) setBody(ctx, await readRouteBody(plan, request));
      validateInputs(r, ctx);
      return r.handler(ctx as never);
    };
    let next = safe(inner, ctx.requestId, ctx.method, ctx.path);
    for (let i = plan.chain.length - 1; i >= 0; i--) {
      const mw = plan.chain[i]!;
      const downstream = next;
      next = safe(() => mw(ctx, downstream), ctx.requestId, ctx.method, ctx.path);
    }
    return next();
  }

  /** Validates the inputs and calls the handler; every failure becomes the service's error result. */
  function invoke(r: Route, ctx: Context): HandlerResult | PromiseLike<HandlerResult> {
    try {
      validateInputs(r, ctx);
      const out = r.handler(ctx as never);
      return isPromiseLike(out) ? out.then(undefined, (e) => errorResult(e, ctx.requestId, ctx.method, ctx.path)) : out;
    } catch (e) {
      return errorResult(e, ctx.requestId, ctx.method, ctx.path);
    }
  }

  /** Serialises a result once it is there. */
  function settle(result: HandlerResult | PromiseLike<HandlerResult>, ctx: Context): KitResponse | PromiseLike<KitResponse> {
    return isPromiseLike(result) ? result.then((done) => respond(done, ctx)) : respond(result, ctx);
  }

  /**
   * A route without middleware: synchronous up to the body read or an async handler. Promise chains
   * rather than async functions: a suspended async frame keeps its whole register file per request.
   */
  function runPlain(r: Route, plan: RoutePlan, ctx: Context, request: KitRequest): KitResponse | PromiseLike<KitResponse> {
    if (!readsBody(plan, ctx.method)) return settle(invoke(r, ctx), ctx);
    const rules = plan.body!;
    const body = request.body;
    // a body still on the wire: read, parse, validate and run in one step
    if (body.kind === "stream")
      return readRawBody(body, rules, request.headers["content-length"]).then(
        (raw) => {
          try {
            setBody(ctx, parseBody(raw, mediaType(ctx.contentType), rules));
          } catch (e) {
            return respond(errorResult(e, ctx.requestId, ctx.method, ctx.path), ctx);
          }
          return settle(invoke(r, ctx), ctx);
        },
        (e) => respond(errorResult(bodyReadError(e), ctx.requestId, ctx.method, ctx.path), ctx),
      );
    return readRouteBody(plan, request).then(
      (b) => {
        setBody(ctx, b);
        return settle(invoke(r, ctx), ctx);
      },
      (e) => respond(errorResult(e, ctx.requestId, ctx.method, ctx.path), ctx),
    );
  }

  function respond(result: HandlerResult, ctx: Context): KitResponse {
    if (ctx.started >= 0) {
      const response = serialise(result, ctx.request, ctx.requestId);
      log.debug(`${ctx.method} ${basePath}${ctx.path} ${response.status} ${(performance.now() - ctx.started).toFixed(1)}ms`, {
        requestId: ctx.requestId,
      });
      return response;
    }
    return serialise(result, ctx.request, ctx.assignedRequestId);
  }

  function handle(request: KitRequest): Promise<KitResponse | null> {
    try {
      const path = ownPath(request.path);
      if (path === null) return NOT_MINE;
      // cross-origin calls: only requests a browser marked with Origin pay for this
      const origin = cors === undefined ? undefined : request.headers.origin;
      if (origin !== undefined && cors!.covers(path)) {
        if (request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined)
          return Promise.resolve(cors!.preflight(origin));
        return answer(request, path).then((r) => cors!.decorate(r, origin));
      }
      return answer(request, path);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  function answer(request: KitRequest, path: string): Promise<KitResponse> {
    try {
      // the per-request debug line, and its timing, only when someone reads it
      const started = log.isLevelEnabled?.("debug") === false ? -1 : performance.now();
      const method = upperMethod(request.method);
      const m = match(method, path);
      const ctx = new Context(
        request,
        method as HttpMethod,
        path,
        m.kind === "match" ? m.params : {},
        request.headers["x-request-id"],
        clock,
        log,
        started,
        basePath,
      );

      let response: KitResponse | PromiseLike<KitResponse>;
      const nul = m.kind === "match" ? nulInParams(m.params) : undefined;
      if (nul) response = respond(errorResult(nul, ctx.requestId, method, path), ctx);
      else if (m.kind === "match") {
        const plan = plans.get(m.route)!;
        response = plan.chain.length === 0 ? runPlain(m.route, plan, ctx, request) : settle(runChain(m.route, plan, ctx, request), ctx);
      } else if (m.kind === "none") {
        response = respond(
          errorResult(coreError("not_found", { message: `no route for ${method} ${path}` }), ctx.requestId, method, path),
          ctx,
        );
      } else if (m.kind === "bad_encoding") {
        const err = coreError("malformed_url");
        response = respond(errorResult(err, ctx.requestId, method, path), ctx);
      } else {
        const allow = [...m.allow, ...(m.allow.includes("GET") ? ["HEAD"] : [])].join(", ");
        response = respond(
          errorResult(coreError("method_not_allowed", { details: { allow }, headers: { allow } }), ctx.requestId, method, path),
          ctx,
        );
      }
      return Promise.resolve(response);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  const service: Service = {
    name: def.name,
    basePath,
    mounts: def.mounts,
    routes: def.routes,
    owns: (path) => ownPath(path) !== null,
    handle,
    fetch: (req) => fetchHandler(req),
    openapi(options = {}) {
      openapiCache ??= buildOpenApi({
        title: def.title,
        version: def.version,
        description: def.description,
        routes: def.routes,
        use: def.use,
        basePath,
        errorSchema,
        securitySchemes: def.securitySchemes,
      });
      return { ...openapiCache, servers: [{ url: normaliseMountPath(options.mountPath) || "/" }] };
    },
    notFound(request) {
      const requestId = ids("req");
      const err = coreError("not_found", { message: `no route for ${request.method} ${request.path}` });
      return {
        status: 404,
        headers: { "content-type": "application/json; charset=utf-8", "x-request-id": requestId },
        body: JSON.stringify(errorBody(err, requestId)),
      };
    },
    errorResponse(request, error) {
      const path = ownPath(request.path);
      if (path === null) return null;
      const requestId = saneRequestId(request.headers["x-request-id"]) ?? ids("req");
      const result = errorResult(error, requestId, request.method, path);
      return serialise(result, { method: request.method, signal: new AbortController().signal } as KitRequest, requestId);
    },
    async dispose() {
      await def.dispose?.();
    },
  };
  const fetchHandler = toFetchHandler(service, { bodyLimit });
  return service;
}

/** Dispatches across several services mounted side by side: the first that owns the path answers. */
export function dispatch(services: readonly Service[], request: KitRequest): Promise<KitResponse | null> {
  // the owner's promise, as is: no extra async frame per request
  if (services.length === 1) return services[0]!.handle(request);
  for (const s of services) if (s.owns(request.path)) return s.handle(request);
  return NOT_MINE;
}

/**
 * Translates errors of common host body parsers (body-parser, raw-body: `status` + `type`) into
 * KitErrors, so the service answers them with its own body.
 */
export function hostParserError(error: unknown): KitError | undefined {
  if (isKitError(error)) return error;
  const e = error as { status?: number; statusCode?: number; type?: string; message?: string } | null;
  const status = e?.status ?? e?.statusCode;
  if (!status || status < 400 || status >= 500) return undefined;
  if (status === 413) return coreError("payload_too_large");
  if (status === 415) return coreError("unsupported_media_type");
  if (e?.type === "entity.parse.failed") return hostJsonError((e as { body?: unknown }).body, error);
  return coreError("invalid_request", { message: "invalid request body" });
}

/** body-parser keeps the text it failed on: parsing it again gives the reason the kit itself would report. */
function hostJsonError(text: unknown, original: unknown): KitError {
  if (typeof text === "string")
    try {
      JSON.parse(text);
    } catch (e) {
      return invalidJson(e);
    }
  return invalidJson(original);
}

export { genericNotFound } from "./http.js";
export { KitError };
