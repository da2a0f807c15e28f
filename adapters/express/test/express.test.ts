// @mountkit/express on real sockets: paths the services do not own fall through to the host's next handler, the
// host's parser errors on the kit's paths get the service's error body, and other errors reach the host's own.
import { createServer, type Server } from "node:http";
import { mountkit } from "@mountkit/express";
import express, { type ErrorRequestHandler } from "express";
import { afterEach, describe, expect, it } from "vitest";
import { echoService } from "../../../test/fixtures/echo-service.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((r) => s.close(() => r()).closeAllConnections());
});

async function start(app: express.Express): Promise<string> {
  const server = createServer(app);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/** The host's own error middleware: answers in a shape the kit never uses. */
const hostErrors: ErrorRequestHandler = (err, _req, res, _next) => {
  res.status(599).json({ host: "error", message: String(err.message ?? err) });
};

const postJson = (url: string, body: string) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });

describe("next() fall-through", () => {
  it("passes paths no service owns to the host's routes, at the root and under a prefix", async () => {
    const app = express();
    app.use(mountkit(echoService()));
    app.use("/kit", mountkit([echoService()]));
    app.get("/host", (_req, res) => void res.json({ host: true }));
    app.get("/kit/host", (_req, res) => void res.json({ host: "under kit" }));
    app.use((_req, res) => void res.status(404).json({ host: "not found" }));
    const base = await start(app);
    expect(await (await fetch(`${base}/host`)).json()).toEqual({ host: true });
    expect(await (await fetch(`${base}/kit/host`)).json()).toEqual({ host: "under kit" });
    const other = await fetch(`${base}/elsewhere`);
    expect([other.status, await other.json()]).toEqual([404, { host: "not found" }]);
    // a path the service owns is the service's, even without a route: its own 404 body
    const owned = await fetch(`${base}/kit/echo/nope`);
    expect(owned.status).toBe(404);
    expect((await owned.json()).requestId).toBeTruthy();
    const item = await fetch(`${base}/kit/echo/items/abc?q=1`);
    expect(await item.json()).toEqual({ id: "abc", q: "1" });
  });
});

describe("the host's error middleware", () => {
  it("express.json() errors on the kit's paths get the service's error body; elsewhere the host's handler", async () => {
    const app = express();
    app.use(express.json({ limit: "1kb" }));
    app.use(mountkit(echoService()));
    app.post("/host", (req, res) => void res.json(req.body));
    app.use(hostErrors);
    const base = await start(app);
    const bad = await postJson(`${base}/echo/json`, "{oops");
    expect(bad.status).toBe(400);
    const body = await bad.json();
    expect(body.requestId).toBeTruthy();
    expect(body.host).toBeUndefined();
    const big = await postJson(`${base}/echo/json`, JSON.stringify({ name: "x".repeat(4096) }));
    expect(big.status).toBe(413);
    expect((await big.json()).requestId).toBeTruthy();
    // a body the host parser accepted still reaches the route
    expect((await (await postJson(`${base}/echo/json`, '{"name":"a"}')).json()).got).toEqual({ name: "a" });
    const hostBad = await postJson(`${base}/host`, "{oops");
    expect(hostBad.status).toBe(599);
    expect((await hostBad.json()).host).toBe("error");
  });

  it("passes errors that are not a body parser's to the host's handler", async () => {
    const app = express();
    app.use((_req, _res, next) => next(new Error("host middleware failed")));
    app.use(mountkit(echoService()));
    app.use(hostErrors);
    const base = await start(app);
    const r = await fetch(`${base}/echo/items/abc`);
    expect(r.status).toBe(599);
    expect(await r.json()).toEqual({ host: "error", message: "host middleware failed" });
  });
});

describe("attach", () => {
  it("makes server.close() end the kit's open streams cleanly first", async () => {
    const kit = mountkit(echoService());
    const app = express();
    app.use(kit);
    const server = kit.attach(createServer(app));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const res = await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/echo/stream?count=0&hold=1`);
    const reader = res.body!.getReader();
    await reader.read();
    const closed = new Promise<void>((r) => server.close(() => r()));
    let r = await reader.read();
    while (!r.done) r = await reader.read();
    await closed;
    expect(r.done).toBe(true);
  });
});
