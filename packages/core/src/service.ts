// A service is a route table plus its error body; `defineService` derives dispatch, fetch and OpenAPI from it.
import { DEFAULT_BODY_LIMIT, invalidJson } from "./body.js";
import { systemClock } from "./clock.js";
import { saneRequestId } from "./context.js";
import { corsPolicy } from "./cors.js";
import { coreError, ErrorBodySchema, isKitError, KitError, errorBody as kitErrorBody } from "./errors.js";
import { toFetchHandler } from "./fetch.js";
import { type KitRequest, type KitResponse, normaliseMountPath } from "./http.js";
import { randomIds } from "./ids.js";
import { kitLogger } from "./logger.js";
import { buildOpenApi, type OpenApiDocument } from "./openapi.js";
import type { Route } from "./route.js";
import { compileRoutes } from "./router.js";
import { errorResult, handleRequest, mountMatcher, NOT_MINE, ownPath, type RoutePlan, type Runtime } from "./run.js";
import { serialise } from "./serialise.js";
import type { Service, ServiceDefinition } from "./service-types.js";
import { httpTelemetry } from "./telemetry.js";

export { issuesToDetails } from "./validate.js";

const JSON_ONLY = ["application/json"];

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
