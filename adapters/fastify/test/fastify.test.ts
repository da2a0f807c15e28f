// @mountkit/fastify on real sockets: fastify-plugin metadata on an encapsulated plugin (its parsers and error
// handler stay inside), unowned paths reaching the host's not-found handler, the router's errors, and app.close().
import { mountkitFrameworkErrors, mountkitPlugin } from "@mountkit/fastify";
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { echoService } from "../../../test/fixtures/echo-service.js";
import { rawRequest } from "../../../test/support/raw-http.js";

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function start(app: FastifyInstance): Promise<string> {
  apps.push(app);
  await app.listen({ port: 0, host: "127.0.0.1" });
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
}

describe("plugin metadata", () => {
  it("carries fastify-plugin's name and Fastify range, and stays encapsulated (no skip-override)", async () => {
    const meta = (mountkitPlugin as unknown as Record<symbol, unknown>)[Symbol.for("plugin-meta")];
    expect(meta).toMatchObject({ name: "@mountkit/fastify", fastify: "5.x", encapsulate: true });
    expect((mountkitPlugin as unknown as Record<symbol, unknown>)[Symbol.for("skip-override")]).toBe(false);
    const app = Fastify();
    apps.push(app);
    await app.register(mountkitPlugin, { services: [echoService()] });
    await app.ready();
    expect(app.printPlugins()).toContain("@mountkit/fastify");
  });
});

describe("encapsulation", () => {
  it("leaves the host's JSON parser and error handler to the host's own routes", async () => {
    const app = Fastify();
    app.setErrorHandler((error: Error, _request, reply) => reply.code(599).send({ host: "error", message: error.message }));
    await app.register(mountkitPlugin, { services: [echoService()], prefix: "/kit" });
    app.post("/host", async (request) => ({ parsed: request.body }));
    app.get("/host/fail", async () => {
      throw new Error("host route failed");
    });
    const base = await start(app);
    const post = (path: string, body: string) =>
      fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body });
    expect(await (await post("/host", '{"a":1}')).json()).toEqual({ parsed: { a: 1 } });
    const hostFail = await fetch(`${base}/host/fail`);
    expect([hostFail.status, (await hostFail.json()).host]).toEqual([599, "error"]);
    // the kit's routes read the raw body themselves and answer in the service's body
    expect((await (await post("/kit/echo/json", '{"name":"a"}')).json()).got).toEqual({ name: "a" });
    const bad = await post("/kit/echo/json", "{oops");
    expect(bad.status).toBe(400);
    expect((await bad.json()).requestId).toBeTruthy();
  });
});

describe("not-found fall-through", () => {
  it("paths no service owns reach the host's not-found handler, at the root and under the prefix", async () => {
    const app = Fastify();
    app.setNotFoundHandler((request, reply) => reply.code(404).send({ host: "not found", url: request.url }));
    await app.register(mountkitPlugin, { services: [echoService()], prefix: "/kit" });
    const base = await start(app);
    for (const path of ["/elsewhere", "/kit/elsewhere"]) {
      const r = await fetch(`${base}${path}`);
      expect([r.status, await r.json()]).toEqual([404, { host: "not found", url: path }]);
    }
    // a path the service owns gets the service's own 404
    const owned = await fetch(`${base}/kit/echo/nope`);
    expect(owned.status).toBe(404);
    expect((await owned.json()).requestId).toBeTruthy();
  });

  it("mountkitFrameworkErrors: a malformed URL is decided by the kit (the owner's answer, else a generic JSON 404)", async () => {
    const services = [echoService()];
    const app = Fastify({ frameworkErrors: mountkitFrameworkErrors(services) });
    await app.register(mountkitPlugin, { services });
    const base = await start(app);
    const owned = await rawRequest(base, "/echo/items/%E0%A4%A");
    expect(owned.status).toBeGreaterThanOrEqual(400);
    expect(owned.status).toBeLessThan(500);
    expect(owned.body.requestId).toBeTruthy();
    const unowned = await rawRequest(base, "/elsewhere/%E0%A4%A");
    expect(unowned.status).toBe(404);
    expect(unowned.body.error).toMatch(/no route for GET/);
  });
});

describe("onClose", () => {
  it("app.close() ends open streams cleanly in preClose, before the host's onClose hooks run", async () => {
    const app = Fastify();
    let streamEndedBeforeOnClose: boolean | undefined;
    let streamEnded = false;
    app.addHook("onClose", async () => {
      streamEndedBeforeOnClose = streamEnded;
    });
    await app.register(mountkitPlugin, { services: [echoService({ onStreamClosed: () => (streamEnded = true) })] });
    await app.listen({ port: 0, host: "127.0.0.1" });
    const res = await fetch(`http://127.0.0.1:${(app.server.address() as { port: number }).port}/echo/stream?count=0&hold=1`);
    const reader = res.body!.getReader();
    await reader.read();
    const closed = app.close();
    let r = await reader.read();
    while (!r.done) r = await reader.read();
    await closed;
    expect(r.done).toBe(true);
    expect(streamEndedBeforeOnClose).toBe(true);
  });
});
