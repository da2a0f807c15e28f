// @mountkit/core: the framework-agnostic kernel every service builds on. The root holds what a service and its
// host use; adapters take `@mountkit/core/adapter`, queues and limits `/jobs`, store suites `/testing`.
export {
  AuthError,
  type BearerOutcome,
  bearerChallenge,
  bearerToken,
  isAuthError,
  type Principal,
  type TokenVerifier,
  verifyBearer,
} from "./auth.js";
export { type Clock, iso, type ManualClock, manualClock, systemClock } from "./clock.js";
export { type EntityTagList, entityTags, ifMatchHolds, ifNoneMatchHits, strongMatch, weakMatch } from "./conditional.js";
export type { CorsOptions } from "./cors.js";
export { base64url, decodeCursor, encodeCursor, isCursorId, isCursorInstant, isCursorInteger } from "./cursor.js";
export {
  commonErrors,
  coreError,
  defineErrors,
  defineServiceErrors,
  ErrorBodySchema,
  errorBody,
  isKitError,
  KitError,
  type KitErrorInit,
} from "./errors.js";
export { type FetchHandler, type FetchHandlerOptions, toFetchHandler } from "./fetch.js";
export type { KitRequest, KitResponse } from "./http.js";
export { type IdGenerator, randomIds, sequentialIds } from "./ids.js";
export { consoleLogger, kitLogger, type Logger, type LogLevel, silentLogger } from "./logger.js";
export { type BuildOpenApiOptions, buildOpenApi, nullableOptionals, type OpenApiDocument, toYaml, toYamlSliced } from "./openapi.js";
export { type PageOptions, pageRoutes } from "./page.js";
export {
  type BytesResult,
  bytes,
  type ChunksResult,
  chunks,
  documented,
  type EmptyResult,
  empty,
  type Handler,
  type HandlerResult,
  type HeaderDoc,
  type HttpMethod,
  type JsonResult,
  json,
  type Middleware,
  type MiddlewareDoc,
  type RequestContext,
  type ResponseDoc,
  type Route,
  type RouteDef,
  route,
  type SseResult,
  sse,
  type TextResult,
  text,
} from "./route.js";
export { defineService, issuesToDetails } from "./service.js";
export type { Service, ServiceDefinition } from "./service-types.js";
export { SLICE_MS, timeSlicer } from "./slice.js";
export { type Channel, channel, type SseEvent } from "./sse.js";
export { kitMeter, kitTracer, TELEMETRY_SCOPE } from "./telemetry.js";
export { NUL_MESSAGE } from "./text.js";
export { constantTimeEqual } from "./util/constant-time.js";
