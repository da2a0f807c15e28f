// What a service is (`Service`) and what defines one (`ServiceDefinition`), apart from `defineService` so that the
// fetch handler and the stream gate can name a service without importing the assembly that uses them.
import type * as z from "zod";
import type { Clock } from "./clock.js";
import type { CorsOptions } from "./cors.js";
import type { KitError } from "./errors.js";
import type { KitRequest, KitResponse } from "./http.js";
import type { IdGenerator } from "./ids.js";
import type { Logger } from "./logger.js";
import type { OpenApiDocument } from "./openapi.js";
import type { Middleware, Route } from "./route.js";

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
