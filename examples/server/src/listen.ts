// Starts services on a real socket under one of the three adapters, with graceful shutdown.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { genericNotFound, type Logger, type Service, silentLogger } from "@mountkit/core";
import { mountkit } from "@mountkit/express";
import { mountkitFrameworkErrors, mountkitPlugin } from "@mountkit/fastify";
import { createFetchServer } from "@mountkit/fetch";
import { applyServerLimits, clientErrorHandler, type NodeBridgeOptions, type ServerLimits, serverOptions } from "@mountkit/node";
import express from "express";
import Fastify from "fastify";

export const FRAMEWORKS = ["fastify", "express", "fetch"] as const;
export type Framework = (typeof FRAMEWORKS)[number];

export interface ListenOptions {
  port?: number;
  host?: string;
  logger?: Logger;
  /** Express only: run `express.json()` before the kit, as many hosts do. */
  hostJsonParser?: boolean;
  /** How long shutdown waits for in-flight requests before cutting connections. */
  shutdownGraceMs?: number;
  /** Server timeouts and connection cap; `serverDefaults` when left out. */
  limits?: Partial<ServerLimits>;
  /** The kit's own limits: body deadline, open streams, stalled stream clients. */
  bridge?: NodeBridgeOptions;
}

export interface Running {
  url: string;
  server: Server;
  /** Stops accepting, finishes in-flight requests, ends SSE streams, disposes nothing (the caller owns services). */
  close(): Promise<void>;
}

function notFound(req: IncomingMessage, res: ServerResponse) {
  const k = genericNotFound({ method: req.method ?? "GET", path: (req.url ?? "/").split("?")[0]! });
  res.writeHead(k.status, k.headers).end(k.body);
}

async function build(
  framework: Framework,
  services: readonly Service[],
  o: ListenOptions,
): Promise<{ server: Server; ready: () => Promise<void> }> {
  if (framework === "express") {
    const app = express();
    app.disable("x-powered-by");
    if (o.hostJsonParser) app.use(express.json());
    app.use(mountkit(services, o.bridge));
    app.use((req, res) => notFound(req, res));
    const { createServer } = await import("node:http");
    return { server: createServer(serverOptions, app), ready: async () => {} };
  }
  if (framework === "fastify") {
    const app = Fastify({
      logger: false,
      forceCloseConnections: false,
      return503OnClosing: false,
      frameworkErrors: mountkitFrameworkErrors(services),
      clientErrorHandler: clientErrorHandler(),
      http: serverOptions,
    });
    await app.register(mountkitPlugin, { ...o.bridge, services });
    app.setNotFoundHandler((request, reply) => {
      const k = genericNotFound({ method: request.method, path: request.url.split("?")[0]! });
      reply.code(404).headers(k.headers).send(k.body);
    });
    await app.ready();
    return { server: app.server, ready: async () => {} };
  }
  return { server: createFetchServer(services, { ...o.bridge, limits: o.limits }), ready: async () => {} };
}

export async function listen(framework: Framework, services: readonly Service[], o: ListenOptions = {}): Promise<Running> {
  const log = o.logger ?? silentLogger;
  const { server } = await build(framework, services, o);
  // stalled or flooding clients run into these (issue #10, break 2); Fastify's own defaults set none
  applyServerLimits(server, o.limits);
  // Node answers parser errors (431, malformed request lines) with an empty reply unless told otherwise
  if (framework !== "fastify") server.on("clientError", clientErrorHandler());
  const inFlight = new Set<ServerResponse>();
  server.on("request", (_req: IncomingMessage, res: ServerResponse) => {
    inFlight.add(res);
    res.once("close", () => inFlight.delete(res));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port ?? 0, o.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  const url = `http://${host}:${addr.port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    server,
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((r) => server.close(() => r()));
        server.closeIdleConnections();
        const isStream = (res: ServerResponse) => String(res.getHeader("content-type") ?? "").startsWith("text/event-stream");
        // SSE streams never finish on their own: end them so clients reconnect elsewhere
        for (const res of inFlight) if (isStream(res)) res.end();
        const deadline = Date.now() + (o.shutdownGraceMs ?? 10_000);
        while ([...inFlight].some((r) => !isStream(r)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        for (const res of inFlight) if (isStream(res) && !res.writableEnded) res.end();
        server.closeAllConnections();
        await closed;
        log.debug("server closed", { url });
      })();
      return closing;
    },
  };
}
