// Runs one request through a service, as Hono's compose.ts does: match, context, body, validation, middleware,
// handler, serialise. Module-level functions over a runtime resolved once, so a request makes no extra closures.
import { bodyReadError, mediaType, parseBody, type ReadBody, readBody, readRawBody } from "./body.js";
import { streamBody } from "./body-stream.js";
import type { Clock } from "./clock.js";
import { Context } from "./context.js";
import type { CorsPolicy } from "./cors.js";
import { coreError, isKitError, type KitError } from "./errors.js";
import type { KitRequest, KitResponse } from "./http.js";
import type { Logger } from "./logger.js";
import type { HandlerResult, HttpMethod, Middleware, Route } from "./route.js";
import type { compileRoutes } from "./router.js";
import { serialise } from "./serialise.js";
import { type HttpTelemetry, observeRequest, type RequestObservation, requestDone, UNMATCHED_ROUTE } from "./telemetry.js";
import { nulInParams } from "./text.js";
import { validateInputs } from "./validate.js";

/** A route's middleware (outermost first) and body handling, resolved once. */
export interface RoutePlan {
  chain: Middleware[];
  body: { mode: "json" | "raw" | "stream"; accepts: readonly string[]; limit: number } | undefined;
}

/** What a service resolves once from its definition and every request reads. */
export interface Runtime {
  name: string;
  /** The service's basePath without a trailing slash ("" at the root), and that plus "/". */
  basePath: string;
  baseSlash: string;
  /** Whether a path relative to basePath is under one of the service's mounts. */
  owns: (path: string) => boolean;
  match: ReturnType<typeof compileRoutes>;
  plans: Map<Route, RoutePlan>;
  cors: CorsPolicy | undefined;
  clock: Clock;
  log: Logger;
  errorBody: (error: KitError, requestId: string) => unknown;
  /** Request metrics and spans; `undefined` when no OpenTelemetry SDK was registered as the service was built. */
  telemetry: HttpTelemetry | undefined;
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
export const NOT_MINE: Promise<null> = Promise.resolve(null);
const isPromiseLike = <T>(v: T | PromiseLike<T>): v is PromiseLike<T> => typeof (v as { then?: unknown } | null)?.then === "function";
const upperMethod = (m: string) => (METHODS.has(m) ? m : m.toUpperCase());

/** A path-ownership test over mount prefixes, compiled once: runs on every request, so no closures. */
export function mountMatcher(mounts: readonly string[]): (path: string) => boolean {
  const under = mounts.map((m) => (m.endsWith("/") ? m : `${m}/`));
  return (path) => {
    for (let i = 0; i < mounts.length; i++) if (path === mounts[i] || path.startsWith(under[i]!)) return true;
    return false;
  };
}

/** The path relative to this service, or null when the service does not own it. */
export function ownPath(rt: Runtime, requestPath: string): string | null {
  let path = requestPath || "/";
  if (rt.basePath) {
    if (path !== rt.basePath && !path.startsWith(rt.baseSlash)) return null;
    path = path.slice(rt.basePath.length) || "/";
  }
  return rt.owns(path) ? path : null;
}

/** Any failure as the service's error result: a KitError as itself, anything else as a logged opaque 500. */
export function errorResult(rt: Runtime, err: unknown, requestId: string, method: string, path: string): HandlerResult {
  let kitErr: KitError;
  if (isKitError(err)) {
    kitErr = err;
    if (err.status === 429) rt.telemetry?.refusals?.add(1, { "mountkit.service": rt.name, "mountkit.error": err.code });
  } else {
    rt.log.error("unhandled error", { service: rt.name, requestId, method, path, error: err });
    kitErr = coreError("internal");
  }
  if (kitErr.status >= 500 && isKitError(err) && err.cause)
    rt.log.error("service error", { service: rt.name, requestId, error: err.cause });
  return { status: kitErr.status, json: rt.errorBody(kitErr, requestId), headers: kitErr.headers };
}

// the request id is read when the layer is built, so a route with middleware always has one to send
const safe =
  (rt: Runtime, fn: () => Promise<HandlerResult>, requestId: string, method: string, path: string) => async (): Promise<HandlerResult> => {
    try {
      return await fn();
    } catch (e) {
      return errorResult(rt, e, requestId, method, path);
    }
  };

const readRouteBody = (plan: RoutePlan, request: KitRequest) =>
  readBody(request.body, plan.body!, request.headers["content-type"], request.headers["content-length"]);

/** Whether this request carries a body the route reads. */
const readsBody = (plan: RoutePlan, method: string) => plan.body !== undefined && method !== "GET" && method !== "HEAD";

/** A `bodyMode: "stream"` route's body, left on the wire for the handler (throws its 415/413 at once). */
const setBodyStream = (plan: RoutePlan, ctx: Context, request: KitRequest) => {
  ctx.bodyStream = streamBody(request.body, plan.body!, request.headers["content-type"], request.headers["content-length"]);
};

function setBody(ctx: Context, b: ReadBody): void {
  ctx.body = b.value;
  ctx.rawBody = b.raw;
  ctx.contentType = b.contentType;
}

/** A route with middleware: each layer is a closure around the next, errors caught at every layer. */
function runChain(rt: Runtime, r: Route, plan: RoutePlan, ctx: Context, request: KitRequest): Promise<HandlerResult> {
  const inner = async (): Promise<HandlerResult> => {
    if (readsBody(plan, ctx.method)) {
      if (plan.body!.mode === "stream") setBodyStream(plan, ctx, request);
      else setBody(ctx, await readRouteBody(plan, request));
    }
    validateInputs(r, ctx);
    return r.handler(ctx as never);
  };
  let next = safe(rt, inner, ctx.requestId, ctx.method, ctx.path);
  for (let i = plan.chain.length - 1; i >= 0; i--) {
    const mw = plan.chain[i]!;
    const downstream = next;
    next = safe(rt, () => mw(ctx, downstream), ctx.requestId, ctx.method, ctx.path);
  }
  return next();
}

/** Validates the inputs and calls the handler; every failure becomes the service's error result. */
function invoke(rt: Runtime, r: Route, ctx: Context): HandlerResult | PromiseLike<HandlerResult> {
  try {
    validateInputs(r, ctx);
    const out = r.handler(ctx as never);
    return isPromiseLike(out) ? out.then(undefined, (e) => errorResult(rt, e, ctx.requestId, ctx.method, ctx.path)) : out;
  } catch (e) {
    return errorResult(rt, e, ctx.requestId, ctx.method, ctx.path);
  }
}

/** Serialises a result once it is there. */
function settle(rt: Runtime, result: HandlerResult | PromiseLike<HandlerResult>, ctx: Context): KitResponse | PromiseLike<KitResponse> {
  return isPromiseLike(result) ? result.then((done) => respond(rt, done, ctx)) : respond(rt, result, ctx);
}

/** A failure before the handler ran, answered at once. */
const fail = (rt: Runtime, e: unknown, ctx: Context) => respond(rt, errorResult(rt, e, ctx.requestId, ctx.method, ctx.path), ctx);

/**
 * A route without middleware: synchronous up to the body read or an async handler. Promise chains
 * rather than async functions: a suspended async frame keeps its whole register file per request.
 */
function runPlain(rt: Runtime, r: Route, plan: RoutePlan, ctx: Context, request: KitRequest): KitResponse | PromiseLike<KitResponse> {
  if (!readsBody(plan, ctx.method)) return settle(rt, invoke(rt, r, ctx), ctx);
  const rules = plan.body!;
  if (rules.mode === "stream") {
    try {
      setBodyStream(plan, ctx, request);
    } catch (e) {
      return fail(rt, e, ctx);
    }
    return settle(rt, invoke(rt, r, ctx), ctx);
  }
  const body = request.body;
  // a body still on the wire: read, parse, validate and run in one step
  if (body.kind === "stream")
    return readRawBody(body, rules, request.headers["content-length"]).then(
      (raw) => {
        try {
          setBody(ctx, parseBody(raw, mediaType(ctx.contentType), rules));
        } catch (e) {
          return fail(rt, e, ctx);
        }
        return settle(rt, invoke(rt, r, ctx), ctx);
      },
      (e) => fail(rt, bodyReadError(e), ctx),
    );
  return readRouteBody(plan, request).then(
    (b) => {
      setBody(ctx, b);
      return settle(rt, invoke(rt, r, ctx), ctx);
    },
    (e) => fail(rt, e, ctx),
  );
}

/** The wire response, with the per-request debug line when that level is on. */
function respond(rt: Runtime, result: HandlerResult, ctx: Context): KitResponse {
  if (ctx.started >= 0) {
    const response = serialise(result, ctx.request, ctx.requestId);
    rt.log.debug(`${ctx.method} ${rt.basePath}${ctx.path} ${response.status} ${(performance.now() - ctx.started).toFixed(1)}ms`, {
      requestId: ctx.requestId,
    });
    return response;
  }
  return serialise(result, ctx.request, ctx.assignedRequestId);
}

/** `Service.handle`: `null` when the path is not the service's; cross-origin requests pass the CORS policy. */
export function handleRequest(rt: Runtime, request: KitRequest): Promise<KitResponse | null> {
  try {
    const path = ownPath(rt, request.path);
    if (path === null) return NOT_MINE;
    // cross-origin calls: only requests a browser marked with Origin pay for this
    const cors = rt.cors;
    const origin = cors === undefined ? undefined : request.headers.origin;
    if (origin !== undefined && cors!.covers(path)) {
      if (request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined)
        return Promise.resolve(cors!.preflight(origin));
      return observed(rt, request, path).then((r) => cors!.decorate(r, origin));
    }
    return observed(rt, request, path);
  } catch (e) {
    return Promise.reject(e);
  }
}

/** `answer`, counted and timed (and in a span) when telemetry is on; as is otherwise. */
function observed(rt: Runtime, request: KitRequest, path: string): Promise<KitResponse> {
  const tel = rt.telemetry;
  if (tel === undefined) return answer(rt, request, path, undefined);
  return observeRequest(tel, upperMethod(request.method), request.headers, (o) => answer(rt, request, path, o));
}

/** Settles the observation of a request once its response is there (a failure to answer counts as a 500). */
function observe(rt: Runtime, o: RequestObservation, method: string, route: string, response: Promise<KitResponse>): Promise<KitResponse> {
  const tel = rt.telemetry!;
  return response.then(
    (r) => {
      requestDone(tel, o, method, route, r.status);
      return r;
    },
    (e) => {
      requestDone(tel, o, method, route, 500);
      throw e;
    },
  );
}

/** A request the service owns: the route's answer, or the 400/404/405 the dispatcher gives itself. */
function answer(rt: Runtime, request: KitRequest, path: string, o: RequestObservation | undefined): Promise<KitResponse> {
  try {
    // the per-request debug line, and its timing, only when someone reads it
    const started = rt.log.isLevelEnabled?.("debug") === false ? -1 : performance.now();
    const method = upperMethod(request.method);
    const m = rt.match(method, path);
    const params = m.kind === "match" ? m.params : {};
    const ctx = new Context(
      request,
      method as HttpMethod,
      path,
      params,
      request.headers["x-request-id"],
      rt.clock,
      rt.log,
      started,
      rt.basePath,
    );

    let response: KitResponse | PromiseLike<KitResponse>;
    const nul = m.kind === "match" ? nulInParams(m.params) : undefined;
    if (nul) response = fail(rt, nul, ctx);
    else if (m.kind === "match") {
      const plan = rt.plans.get(m.route)!;
      response =
        plan.chain.length === 0 ? runPlain(rt, m.route, plan, ctx, request) : settle(rt, runChain(rt, m.route, plan, ctx, request), ctx);
    } else if (m.kind === "none") {
      response = fail(rt, coreError("not_found", { message: `no route for ${method} ${path}` }), ctx);
    } else if (m.kind === "bad_encoding") {
      response = fail(rt, coreError("malformed_url"), ctx);
    } else {
      const allow = [...m.allow, ...(m.allow.includes("GET") ? ["HEAD"] : [])].join(", ");
      response = fail(rt, coreError("method_not_allowed", { details: { allow }, headers: { allow } }), ctx);
    }
    if (o === undefined) return Promise.resolve(response);
    return observe(rt, o, method, m.kind === "match" ? rt.basePath + m.route.path : UNMATCHED_ROUTE, Promise.resolve(response));
  } catch (e) {
    if (o !== undefined) requestDone(rt.telemetry!, o, upperMethod(request.method), UNMATCHED_ROUTE, 500);
    return Promise.reject(e);
  }
}
