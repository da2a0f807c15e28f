// Fastify plugin: encapsulated (its body parsing never leaks into the host), glue over the Node bridge.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { coreError, isKitError, type KitError, type KitRequest, type KitResponse, type Service } from "@mountkit/core";
import {
  admitStream,
  DEFAULT_BODY_TIMEOUT_MS,
  dispatch,
  genericNotFound,
  hostParserError,
  kitErrorResponse,
  type StreamGate,
  streamGate,
} from "@mountkit/core/adapter";
import {
  type ConnectionAbort,
  connectionSignal,
  hostErrorResponse,
  type NodeBridgeOptions,
  OpenStreams,
  serviceList,
  toKitRequest,
  writeKitResponse,
} from "@mountkit/node";

export interface MountkitPluginOptions extends NodeBridgeOptions {
  services: Service | readonly Service[];
}

/** One registration of the plugin: what its request handler works with. */
interface Mount {
  list: readonly Service[];
  opts: MountkitPluginOptions;
  /** Fastify's plugin prefix, still on the URL: the core routes without it. */
  prefix: string;
  gate: StreamGate;
  bodyTimeoutMs: number;
  streams: OpenStreams;
}

const plugin: FastifyPluginAsync<MountkitPluginOptions> = async (fastify: FastifyInstance, opts) => {
  const list = serviceList(opts.services);
  rawBodies(fastify, list);
  const m: Mount = {
    list,
    opts,
    prefix: fastify.prefix ?? "",
    gate: streamGate(opts.maxStreams),
    bodyTimeoutMs: opts.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
    streams: new OpenStreams(),
  };
  // app.close() waits on every open connection: end the SSE streams before it starts waiting
  fastify.addHook("preClose", (done) => {
    m.streams.closeStreams();
    done();
  });
  const handler = (request: FastifyRequest, reply: FastifyReply): void => handle(m, request, reply);

  // Fastify judges a request before the handler runs (an unparsable Content-Type such as
  // `application/json, text/plain`, issue #10 break 7) and answers in its own shape. The core decides
  // those requests exactly as under Express and fetch; anything else Fastify raises on these routes
  // gets the owning service's error body.
  fastify.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
    if (error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE" && !reply.sent) return handler(request, reply);
    const k = hostErrorResponse(list, request.raw, fastifyErrorToKit(error), m.prefix);
    return k ? sendKit(reply, k) : reply.send(error);
  });

  // TRACE too, so the core decides it as under Express and fetch: 405 with Allow on a route's path, the service's 404
  for (const url of mountPaths(list))
    fastify.route({ method: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"], url, handler, exposeHeadRoute: false });
};

/**
 * `app.register(mountkitPlugin, { services: [a, b], prefix: "/x" })`. It carries fastify-plugin's metadata
 * (its name, Fastify 5) with `encapsulate: true`: it keeps a context of its own, so its body parsers, error
 * handler and hooks never reach the host's routes, and `prefix` applies.
 */
export const mountkitPlugin: FastifyPluginAsync<MountkitPluginOptions> = fp(plugin, {
  name: "@mountkit/fastify",
  fastify: "5.x",
  encapsulate: true,
});

export default mountkitPlugin;

/** Leaves the body stream untouched: the core reads it with its own limit, content type and errors. */
function rawBodies(fastify: FastifyInstance, list: readonly Service[]): void {
  fastify.removeAllContentTypeParsers();
  const passThrough = (_req: unknown, _payload: unknown, done: (err: null, body: undefined) => void) => done(null, undefined);
  fastify.addContentTypeParser("*", passThrough);
  // Also under each media type the routes accept: Fastify caches a named parser per content-type
  // string, while the catch-all is looked up (and the header parsed) again on every request.
  for (const type of acceptedTypes(list)) fastify.addContentTypeParser(type, passThrough);
}

// Callback style (send, return nothing) rather than an async handler: one promise chain per request
// instead of a suspended async frame on top of the core's.
function handle(m: Mount, request: FastifyRequest, reply: FastifyReply): void {
  const conn = connectionSignal(reply.raw);
  const kreq = toKitRequest(request.raw, { stripPrefix: m.prefix, signal: conn, bodyTimeoutMs: m.bodyTimeoutMs });
  dispatch(m.list, kreq).then(
    (found) => settle(m, found, kreq, reply, conn),
    (err: unknown) => failed(reply, err),
  );
}

function settle(m: Mount, found: KitResponse | null, kreq: KitRequest, reply: FastifyReply, conn: ConnectionAbort): void {
  try {
    const r = respond(m, found, kreq, reply, conn);
    if (r instanceof Promise) r.catch((err: unknown) => failed(reply, err));
  } catch (err) {
    failed(reply, err);
  }
}

function respond(m: Mount, found: KitResponse | null, kreq: KitRequest, reply: FastifyReply, conn: ConnectionAbort): unknown {
  if (!found) return reply.callNotFound();
  const k = found.stream ? admitStream(m.list, kreq, found, m.gate, conn.controller) : found;
  if (k.stream) {
    // streams bypass Fastify's serialisation; hijack so hooks do not write after us (fastify#3979)
    reply.hijack();
    m.streams.add(reply.raw, conn.controller);
    return writeKitResponse(reply.raw, k, conn.controller, m.opts);
  }
  // no body (HEAD, 204): send nothing, not a serialised `null` whose length Fastify would declare
  return sendKit(reply, k);
}

/** A bug below the core (it answers its own errors): Fastify's error handler, or drop a started response. */
function failed(reply: FastifyReply, err: unknown): void {
  if (reply.raw.headersSent) reply.raw.destroy();
  else reply.send(err);
}

function sendKit(reply: FastifyReply, k: KitResponse): FastifyReply {
  return reply.code(k.status).headers(k.headers).send(k.body);
}

/** The routes of the services' mounts: each mount's root and everything below it. */
function mountPaths(list: readonly Service[]): Set<string> {
  const paths = new Set<string>();
  for (const s of list) {
    for (const m of s.mounts) {
      const base = `${s.basePath}${m}`.replace(/\/+$/, "");
      paths.add(base || "/");
      paths.add(`${base}/*`);
    }
  }
  return paths;
}

/** A Fastify error as the kit error the services answer with: a 4xx keeps its meaning, anything else is opaque. */
function fastifyErrorToKit(error: Error & { statusCode?: number; code?: string }, defaultStatus = 500): KitError {
  if (isKitError(error)) return error;
  const status = error.statusCode ?? defaultStatus;
  if (status >= 500) return coreError("internal", { cause: error });
  if (error.code === "FST_ERR_BAD_URL") return coreError("malformed_url");
  return hostParserError({ status, type: (error as { type?: string }).type }) ?? coreError("invalid_request", { message: "bad request" });
}

function acceptedTypes(services: readonly Service[]): Set<string> {
  const types = new Set<string>();
  for (const s of services)
    for (const r of s.routes) for (const t of r.accepts ?? ["application/json"]) if (!t.includes("*")) types.add(t.toLowerCase());
  return types;
}

/**
 * Pass as `Fastify({ frameworkErrors: mountkitFrameworkErrors(services) })`: Fastify answers some bad
 * requests (a malformed percent-encoding in the URL, a bad Accept-Version) in its router, before any
 * plugin runs. A malformed URL is decided by the kit exactly as under Express and fetch (the owning
 * service's 404, or its 400 when a route's parameter is the bad part; a generic JSON 404 for paths no
 * service owns); other router errors get the owning service's error body.
 */
export function mountkitFrameworkErrors(services: Service | readonly Service[]) {
  const list = serviceList(services);
  return (error: Error & { statusCode?: number; code?: string }, request: FastifyRequest, reply: FastifyReply) => {
    if (error.code === "FST_ERR_BAD_URL") {
      const conn = connectionSignal(reply.raw);
      // the core never reads a body on these: no route has a literal segment that is bad percent-encoding
      return dispatch(list, toKitRequest(request.raw, { signal: conn })).then(
        (found) => {
          // no route context here for the host's 404 handler: the kit's generic 404, as createFetchServer answers
          const path = (request.raw.url ?? "/").split("?")[0]!;
          return sendKit(reply, found && !found.stream ? found : genericNotFound({ method: request.raw.method ?? "GET", path }));
        },
        (err: unknown) => reply.code(500).send(err),
      );
    }
    const kitErr = fastifyErrorToKit(error, 400);
    return sendKit(reply, hostErrorResponse(list, request.raw, kitErr) ?? kitErrorResponse(kitErr));
  };
}
