// Fastify plugin: encapsulated (its body parsing never leaks into the host), glue over the Node bridge.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import {
  admitStream,
  coreError,
  DEFAULT_BODY_TIMEOUT_MS,
  dispatch,
  genericNotFound,
  hostParserError,
  isKitError,
  type KitError,
  type KitRequest,
  type KitResponse,
  kitErrorResponse,
  type Service,
  streamGate,
} from "@mountkit/core";
import {
  type ConnectionAbort,
  connectionSignal,
  type NodeBridgeOptions,
  OpenStreams,
  toKitRequest,
  writeKitResponse,
} from "@mountkit/node";

export interface MountkitPluginOptions extends NodeBridgeOptions {
  services: Service | readonly Service[];
}

/** `app.register(mountkitPlugin, { services: [a, b], prefix: "/x" })`. */
export const mountkitPlugin: FastifyPluginAsync<MountkitPluginOptions> = async (fastify: FastifyInstance, opts) => {
  const list = Array.isArray(opts.services) ? opts.services : [opts.services as Service];
  // Leave the body stream untouched: the core reads it with its own limit, content type and errors.
  fastify.removeAllContentTypeParsers();
  const passThrough = (_req: unknown, _payload: unknown, done: (err: null, body: undefined) => void) => done(null, undefined);
  fastify.addContentTypeParser("*", passThrough);
  // Also under each media type the routes accept: Fastify caches a named parser per content-type
  // string, while the catch-all is looked up (and the header parsed) again on every request.
  for (const type of acceptedTypes(list)) fastify.addContentTypeParser(type, passThrough);
  const prefix = fastify.prefix ?? "";
  const gate = streamGate(opts.maxStreams);
  const bodyTimeoutMs = opts.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  // app.close() waits on every open connection: end the SSE streams before it starts waiting
  const streams = new OpenStreams();
  fastify.addHook("preClose", (done) => {
    streams.closeStreams();
    done();
  });

  // Callback style (send, return nothing) rather than an async handler: one promise chain per request
  // instead of a suspended async frame on top of the core's.
  const respond = (found: KitResponse | null, kreq: KitRequest, reply: FastifyReply, conn: ConnectionAbort): unknown => {
    if (!found) return reply.callNotFound();
    const k = found.stream ? admitStream(list, kreq, found, gate, conn.controller) : found;
    if (k.stream) {
      // streams bypass Fastify's serialisation; hijack so hooks do not write after us (fastify#3979)
      reply.hijack();
      streams.add(reply.raw, conn.controller);
      return writeKitResponse(reply.raw, k, conn.controller, opts);
    }
    // no body (HEAD, 204): send nothing, not a serialised `null` whose length Fastify would declare
    return reply.code(k.status).headers(k.headers).send(k.body);
  };
  // a bug below the core (it answers its own errors): Fastify's error handler, or drop a started response
  const failed = (reply: FastifyReply, err: unknown) => {
    if (reply.raw.headersSent) reply.raw.destroy();
    else reply.send(err);
  };
  const settle = (found: KitResponse | null, kreq: KitRequest, reply: FastifyReply, conn: ConnectionAbort) => {
    try {
      const r = respond(found, kreq, reply, conn);
      if (r instanceof Promise) r.catch((err: unknown) => failed(reply, err));
    } catch (err) {
      failed(reply, err);
    }
  };
  const handler = (request: FastifyRequest, reply: FastifyReply): void => {
    const conn = connectionSignal(reply.raw);
    const kreq = toKitRequest(request.raw, { stripPrefix: prefix, signal: conn, bodyTimeoutMs });
    dispatch(list, kreq).then(
      (found) => settle(found, kreq, reply, conn),
      (err: unknown) => failed(reply, err),
    );
  };

  // Fastify judges a request before the handler runs (an unparsable Content-Type such as
  // `application/json, text/plain`, issue #10 break 7) and answers in its own shape. The core decides
  // those requests exactly as under Express and fetch; anything else Fastify raises on these routes
  // gets the owning service's error body.
  fastify.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
    if (error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE" && !reply.sent) return handler(request, reply);
    const kitErr = fastifyErrorToKit(error);
    const path = (request.raw.url ?? "/").split("?")[0]!;
    const headers = request.raw.headers as Record<string, string | undefined>;
    const kreq = { method: request.raw.method ?? "GET", path: stripPrefix(path, prefix), headers };
    for (const s of list) {
      const k = s.errorResponse(kreq, kitErr);
      if (k) return reply.code(k.status).headers(k.headers).send(k.body);
    }
    return reply.send(error);
  });

  const paths = new Set<string>();
  for (const s of list) {
    for (const m of s.mounts) {
      const base = `${s.basePath}${m}`.replace(/\/+$/, "");
      paths.add(base || "/");
      paths.add(`${base}/*`);
    }
  }
  for (const url of paths)
    fastify.route({ method: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"], url, handler, exposeHeadRoute: false });
};

function stripPrefix(path: string, prefix: string): string {
  return prefix && path.startsWith(prefix) ? path.slice(prefix.length) || "/" : path;
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

// Marks the plugin as not needing fastify-plugin's skip-override: it stays encapsulated on purpose.
export default mountkitPlugin;

/**
 * Pass as `Fastify({ frameworkErrors: mountkitFrameworkErrors(services) })`: Fastify answers some bad
 * requests (a malformed percent-encoding in the URL, a bad Accept-Version) in its router, before any
 * plugin runs. A malformed URL is decided by the kit exactly as under Express and fetch (the owning
 * service's 404, or its 400 when a route's parameter is the bad part; a generic JSON 404 for paths no
 * service owns); other router errors get the owning service's error body.
 */
export function mountkitFrameworkErrors(services: Service | readonly Service[]) {
  const list = Array.isArray(services) ? services : [services as Service];
  return (
    error: Error & { statusCode?: number; code?: string },
    request: import("fastify").FastifyRequest,
    reply: import("fastify").FastifyReply,
  ) => {
    const path = (request.raw.url ?? "/").split("?")[0]!;
    if (error.code === "FST_ERR_BAD_URL") {
      const conn = connectionSignal(reply.raw);
      // the core never reads a body on these: no route has a literal segment that is bad percent-encoding
      return dispatch(list, toKitRequest(request.raw, { signal: conn })).then(
        (found) => {
          // no route context here for the host's 404 handler: the kit's generic 404, as createFetchServer answers
          const k = found && !found.stream ? found : genericNotFound({ method: request.raw.method ?? "GET", path });
          return reply.code(k.status).headers(k.headers).send(k.body);
        },
        (err: unknown) => reply.code(500).send(err),
      );
    }
    const kitErr = fastifyErrorToKit(error, 400);
    const headers = request.raw.headers as Record<string, string | undefined>;
    for (const s of list) {
      const k = s.errorResponse({ method: request.raw.method ?? "GET", path, headers }, kitErr);
      if (k) return reply.code(k.status).headers(k.headers).send(k.body);
    }
    const k = kitErrorResponse(kitErr);
    return reply.code(k.status).headers(k.headers).send(k.body);
  };
}
