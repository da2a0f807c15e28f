// Each framework's own shutdown call returns promptly while an SSE client is connected, with the services
// still running (hosts close the server first and dispose the services in its callback).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mountkit } from "@mountkit/express";
import { mountkitPlugin } from "@mountkit/fastify";
import { createFetchServer, toFetchHandler } from "@mountkit/fetch";
import { closeStreamsOnClose } from "@mountkit/node";
import express from "express";
import Fastify from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { echoService } from "./fixtures/echo-service.js";

type Service = ReturnType<typeof echoService>;
const services: Service[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.dispose();
});

function listening(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

/** Opens a held stream, runs `shutdown`, and answers how long it took and whether the stream ended cleanly. */
async function shutdownWithStreamOpen(url: string, shutdown: () => Promise<void>) {
  const res = await fetch(`${url}/echo/stream?count=0&hold=1`);
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  await reader.read();
  const started = performance.now();
  await shutdown();
  const ms = performance.now() - started;
  // a stream the server ended reports done; a cut connection would reject
  let r = await reader.read();
  while (!r.done) r = await reader.read();
  return { ms, ended: r.done };
}

const closeServer = (server: Server) => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));

describe("idiomatic shutdown with an SSE client connected", () => {
  it("Express: kit.attach(server), then server.close(callback)", async () => {
    const svc = echoService();
    services.push(svc);
    const app = express();
    app.use(express.json());
    const kit = mountkit(svc);
    app.use(kit);
    const server = kit.attach(createServer(app));
    const url = await listening(server);
    const { ms, ended } = await shutdownWithStreamOpen(url, () => closeServer(server));
    expect(ended).toBe(true);
    expect(ms).toBeLessThan(1000);
  });

  it("Express without attach: kit.closeStreams() before server.close()", async () => {
    const svc = echoService();
    services.push(svc);
    const app = express();
    const kit = mountkit(svc);
    app.use(kit);
    const server = createServer(app);
    const url = await listening(server);
    const { ms, ended } = await shutdownWithStreamOpen(url, () => {
      kit.closeStreams();
      return closeServer(server);
    });
    expect(ended).toBe(true);
    expect(ms).toBeLessThan(1000);
  });

  it("Fastify: app.close() with kit.close() in an onClose hook", async () => {
    const svc = echoService();
    services.push(svc);
    let disposedInHook = false;
    const app = Fastify();
    await app.register(mountkitPlugin, { services: [svc], prefix: "/kit" });
    app.addHook("onClose", async () => {
      await svc.dispose();
      disposedInHook = true;
    });
    const url = await app.listen({ port: 0, host: "127.0.0.1" });
    const { ms, ended } = await shutdownWithStreamOpen(`${url}/kit`, () => app.close());
    expect(ended).toBe(true);
    expect(disposedInHook).toBe(true);
    expect(ms).toBeLessThan(1000);
  });

  it("fetch adapter: createFetchServer(...).close(callback)", async () => {
    const svc = echoService();
    services.push(svc);
    const server = createFetchServer(svc);
    const url = await listening(server);
    const { ms, ended } = await shutdownWithStreamOpen(url, () => closeServer(server));
    expect(ended).toBe(true);
    expect(ms).toBeLessThan(1000);
  });

  it("a fetch handler on a server of the host's: closeStreamsOnClose(server, handler)", async () => {
    const svc = echoService();
    services.push(svc);
    const handler = toFetchHandler(svc);
    // a host's own fetch-to-node glue (as @hono/node-server is): the kit knows nothing of its responses
    const server = createServer(async (req, res) => {
      const response = await handler(new Request(`http://localhost${req.url}`, { method: req.method }));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      const reader = response.body!.getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) res.write(r.value);
      res.end();
    });
    closeStreamsOnClose(server, handler);
    const url = await listening(server);
    const { ms, ended } = await shutdownWithStreamOpen(url, () => closeServer(server));
    expect(ended).toBe(true);
    expect(ms).toBeLessThan(1000);
  });
});
