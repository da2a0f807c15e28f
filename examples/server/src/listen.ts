// Starts services on a real socket under one of the three adapters, with graceful shutdown: each adapter's own
// lifecycle ends the kit's SSE streams, and connections still busy after the grace period are cut.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Logger, type Service, silentLogger } from "@mountkit/core";
import { genericNotFound } from "@mountkit/core/adapter";
import { mountkit } from "@mountkit/express";
import { mountkitFrameworkErrors, mountkitPlugin } from "@mountkit/fastify";
import { createFetchServer } from "@mountkit/fetch";
import {
  applyServerLimits,
  clientErrorHandler,
  closeStreamsOnClose,
  type NodeBridgeOptions,
  type ServerLimits,
  serverOptions,
} from "@mountkit/node";
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

/** A host server and the call that shuts it down. */
interface Host {
  server: Server;
  close(): Promise<void>;
}

/** Express: `kit.attach(server)` makes `server.close()` end the kit's streams and each connection once it is done. */
function expressHost(services: readonly Service[], o: ListenOptions): Host {
  const app = express();
  app.disable("x-powered-by");
  if (o.hostJsonParser) app.use(express.json());
  const kit = mountkit(services, o.bridge);
  app.use(kit);
  app.use((req, res) => {
    const k = genericNotFound({ method: req.method, path: req.path });
    res.writeHead(k.status, k.headers).end(k.body);
  });
  const server = kit.attach(createServer(serverOptions, app));
  server.on("clientError", clientErrorHandler());
  return { server, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Fastify: `app.close()` runs the plugin's preClose, which ends its streams before the server closes. */
async function fastifyHost(services: readonly Service[], o: ListenOptions): Promise<Host> {
  // requests that arrive while closing are still served, as under the other hosts
  const app = Fastify({
    logger: false,
    return503OnClosing: false,
    forceCloseConnections: false,
    http: serverOptions,
    clientErrorHandler: clientErrorHandler(),
    frameworkErrors: mountkitFrameworkErrors(services),
  });
  await app.register(mountkitPlugin, { ...o.bridge, services });
  app.setNotFoundHandler((request, reply) => {
    const k = genericNotFound({ method: request.method, path: request.url.split("?")[0]! });
    reply.code(404).headers(k.headers).send(k.body);
  });
  await app.ready();
  // connections busy when closing starts end once their response is out, instead of idling to the keep-alive timeout
  closeStreamsOnClose(app.server);
  return { server: app.server, close: () => app.close() };
}

/** fetch: `createFetchServer` applies the limits and makes its own `close()` end the streams. */
function fetchHost(services: readonly Service[], o: ListenOptions): Host {
  const server = createFetchServer(services, { ...o.bridge, limits: o.limits });
  server.on("clientError", clientErrorHandler());
  return { server, close: () => new Promise<void>((r) => server.close(() => r())) };
}

export async function listen(framework: Framework, services: readonly Service[], o: ListenOptions = {}): Promise<Running> {
  const log = o.logger ?? silentLogger;
  const host =
    framework === "express" ? expressHost(services, o) : framework === "fastify" ? await fastifyHost(services, o) : fetchHost(services, o);
  const { server } = host;
  // stalled or flooding clients run into these (issue #10, break 2); Fastify's own defaults set none
  applyServerLimits(server, o.limits);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port ?? 0, o.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const url = `http://${addr.family === "IPv6" ? `[${addr.address}]` : addr.address}:${addr.port}`;
  let closing: Promise<void> | undefined;
  const close = async () => {
    const cut = setTimeout(() => server.closeAllConnections(), o.shutdownGraceMs ?? 10_000);
    await host.close();
    clearTimeout(cut);
    log.debug("server closed", { url });
  };
  return { url, server, close: () => (closing ??= close()) };
}
