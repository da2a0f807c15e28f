// The HTTP suites' own servers: services under Express, Fastify or fetch-on-node:http on a real socket, mounted as a
// host app mounts them, with the server limits, JSON answers to Node's parser errors, a close that ends streams, and
// the loop-delay guard (./loop-delay.ts): close() fails when the server stalled its event loop.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Service } from "@mountkit/core";
import { genericNotFound } from "@mountkit/core/adapter";
import { mountkit } from "@mountkit/express";
import { mountkitFrameworkErrors, mountkitPlugin } from "@mountkit/fastify";
import { createFetchServer } from "@mountkit/fetch";
import { applyServerLimits, clientErrorHandler, type NodeBridgeOptions, type ServerLimits, serverOptions } from "@mountkit/node";
import express from "express";
import Fastify from "fastify";
import { LoopGuard } from "./loop-delay.js";

export const FRAMEWORKS = ["fastify", "express", "fetch"] as const;
export type Framework = (typeof FRAMEWORKS)[number];

export interface ListenOptions {
  /** The kit's limits (body deadline, open streams, slow stream readers) and the server's (timeouts, connection cap). */
  bridge?: NodeBridgeOptions;
  limits?: Partial<ServerLimits>;
  /** Express only: mount the kit after the host's `express.json()`. */
  hostJsonParser?: boolean;
  /** How long `close()` lets in-flight requests finish before it cuts their connections. Default 10 s. */
  shutdownGraceMs?: number;
}

/** A listening server; `close()` leaves the services to the caller. */
export interface Running {
  url: string;
  server: Server;
  /** The server's event-loop delay, window by window (the harness labels one window per test). */
  loop: LoopGuard;
  /** Closes the server, then throws if its event loop stalled past the guard's threshold. */
  close(): Promise<void>;
}

/** Paths no service owns: the kit's generic JSON 404, so every host answers them alike. */
function notFound(method: string, url: string) {
  return genericNotFound({ method, path: url.split("?")[0]! });
}

/** Each framework's server with the services mounted at the root; the limits go on afterwards. */
const hosts: Record<Framework, (services: readonly Service[], o: ListenOptions) => Promise<Server>> = {
  async express(services, o) {
    const app = express().disable("x-powered-by");
    if (o.hostJsonParser) app.use(express.json());
    app.use(mountkit(services, o.bridge), (req: IncomingMessage, res: ServerResponse) => {
      const k = notFound(req.method ?? "GET", req.url ?? "/");
      res.writeHead(k.status, k.headers).end(k.body);
    });
    return withClientErrors(createServer(serverOptions, app));
  },
  async fastify(services, o) {
    // Fastify's own clientErrorHandler option, and no closing behaviour of its own: close() below does it for every host
    const app = Fastify({
      http: serverOptions,
      clientErrorHandler: clientErrorHandler(),
      frameworkErrors: mountkitFrameworkErrors(services),
      forceCloseConnections: false,
      return503OnClosing: false,
      logger: false,
    });
    await app.register(mountkitPlugin, { services, ...o.bridge });
    app.setNotFoundHandler((request, reply) => {
      const k = notFound(request.method, request.url);
      reply.code(k.status).headers(k.headers).send(k.body);
    });
    await app.ready();
    return app.server;
  },
  fetch: async (services, o) => withClientErrors(createFetchServer(services, { ...o.bridge, limits: o.limits })),
};

/** Node answers parser errors (431, malformed request lines) with an empty reply unless told otherwise. */
function withClientErrors(server: Server): Server {
  return server.on("clientError", clientErrorHandler());
}

export async function listen(framework: Framework, services: readonly Service[], o: ListenOptions = {}): Promise<Running> {
  // stalled or flooding clients run into these (issue #10, break 2); Fastify's own defaults set none
  const server = applyServerLimits(await hosts[framework](services, o), o.limits);
  const inFlight = new Set<ServerResponse>();
  server.on("request", (_req: IncomingMessage, res: ServerResponse) => {
    inFlight.add(res);
    res.once("close", () => inFlight.delete(res));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject).listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const loop = new LoopGuard(`the ${framework} server at 127.0.0.1:${port}`);
  let closing: Promise<void> | undefined;
  const close = async () => {
    try {
      await closeGracefully(server, inFlight, o.shutdownGraceMs ?? 10_000);
    } finally {
      await loop.stop();
    }
    loop.check();
  };
  return { url: `http://127.0.0.1:${port}`, server, loop, close: () => (closing ??= close()) };
}

const isStream = (res: ServerResponse) => String(res.getHeader("content-type") ?? "").startsWith("text/event-stream");

/** Ends the SSE streams (they never finish on their own), lets the other requests finish within the grace, then cuts the rest. */
async function closeGracefully(server: Server, inFlight: Set<ServerResponse>, graceMs: number): Promise<void> {
  const closed = new Promise<void>((r) => server.close(() => r()));
  server.closeIdleConnections();
  for (const res of inFlight) if (isStream(res)) res.end();
  const deadline = Date.now() + graceMs;
  while ([...inFlight].some((r) => !isStream(r)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  for (const res of inFlight) if (isStream(res) && !res.writableEnded) res.end();
  server.closeAllConnections();
  await closed;
}
