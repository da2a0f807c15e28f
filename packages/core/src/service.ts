// A service is a route table plus its error body; `defineService` derives dispatch, fetch and OpenAPI from it.
import type * as z from "zod";
import { DEFAULT_BODY_LIMIT, invalidJson } from "./body.js";
import { type Clock, systemClock } from "./clock.js";
import { saneRequestId } from "./context.js";
import { type CorsOptions, corsPolicy } from "./cors.js";
import { coreError, ErrorBodySchema, isKitError, KitError, errorBody as kitErrorBody } from "./errors.js";
import { toFetchHandler } from "./fetch.js";
import { type KitRequest, type KitResponse, normaliseMountPath } from "./http.js";
import { type IdGenerator, randomIds } from "./ids.js";
import { kitLogger, type Logger } from "./logger.js";
import { buildOpenApi, type OpenApiDocument } from "./openapi.js";
import type { Middleware, Route } from "./route.js";
import { compileRoutes } from "./router.js";
import { errorResult, handleRequest, mountMatcher, NOT_MINE, ownPath, type RoutePlan, type Runtime } from "./run.js";
import { serialise } from "./serialise.js";
import { httpTelemetry } from "./telemetry.js";

export { issuesToDetails } from "./validate.js";

const JSON_ONLY = ["application/json"];

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
   * The wire error body. Default, and what every kit service uses: the one body of docs/conventions.md#error-body,
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

/** What every request reads, resolved once: route plans, matcher, error body, logger, CORS policy. */
function runtimeOf(def: ServiceDefinition, basePath: string, bodyLimit: number): Runtime {
  const plans = new Map<Route, RoutePlan>(
    def.routes.map((r) => {
      const mode = r.bodyMode ?? (r.body ? "json" : "none");
      const body = mode === "none" ? undefined : { mode, accepts: r.accepts ?? JSON_ONLY, limit: r.bodyLimit ?? bodyLimit };
      return [r, { chain: [...(def.use ?? []), ...(r.use ?? [])], body }];
    }),
  );
  return {
    name: def.name,
    basePath,
    baseSlash: `${basePath}/`,
    owns: mountMatcher(def.mounts),
    match: compileRoutes(def.routes),
    plans,
    cors: def.cors ? corsPolicy(def.cors) : undefined,
    clock: def.clock ?? systemClock,
    log: kitLogger(def.logger),
    errorBody: def.errorBody ?? kitErrorBody,
    telemetry: httpTelemetry(def.name),
  };
}

/** The OpenAPI document, built on first call; each call gets its own `servers` for the host's mount prefix. */
function openapiOf(def: ServiceDefinition, basePath: string): Service["openapi"] {
  const errorSchema = def.errorSchema ?? (def.errorBody ? undefined : ErrorBodySchema);
  let cache: OpenApiDocument | undefined;
  return (options = {}) => {
    cache ??= buildOpenApi({
      title: def.title,
      version: def.version,
      description: def.description,
      routes: def.routes,
      use: def.use,
      basePath,
      errorSchema,
      securitySchemes: def.securitySchemes,
    });
    return { ...cache, servers: [{ url: normaliseMountPath(options.mountPath) || "/" }] };
  };
}

/** Assembles a service from its definition: the runtime in run.ts answers requests, the rest is derived here. */
export function defineService(def: ServiceDefinition): Service {
  const basePath = (def.basePath ?? "").replace(/\/+$/, "");
  const ids = def.ids ?? randomIds;
  const bodyLimit = def.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const rt = runtimeOf(def, basePath, bodyLimit);

  const service: Service = {
    name: def.name,
    basePath,
    mounts: def.mounts,
    routes: def.routes,
    owns: (path) => ownPath(rt, path) !== null,
    handle: (request) => handleRequest(rt, request),
    fetch: (req) => fetchHandler(req),
    openapi: openapiOf(def, basePath),
    notFound(request) {
      const requestId = ids("req");
      const err = coreError("not_found", { message: `no route for ${request.method} ${request.path}` });
      return {
        status: 404,
        headers: { "content-type": "application/json; charset=utf-8", "x-request-id": requestId },
        body: JSON.stringify(rt.errorBody(err, requestId)),
      };
    },
    errorResponse(request, error) {
      const path = ownPath(rt, request.path);
      if (path === null) return null;
      const requestId = saneRequestId(request.headers["x-request-id"]) ?? ids("req");
      const result = errorResult(rt, error, requestId, request.method, path);
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
