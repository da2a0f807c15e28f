// The foundation's contract, identical under every adapter: statuses, error bodies, bodies, SSE.
import { Agent, createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { defineService, json, route } from "@mountkit/core";
import { mountkit } from "@mountkit/express";
import { mountkitPlugin } from "@mountkit/fastify";
import { createFetchServer } from "@mountkit/fetch";
import { EventSource } from "eventsource";
import express from "express";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { echoService } from "./fixtures/echo-service.js";
import { type AdapterTarget, call, forEachAdapter } from "./harness.js";

let closedStreams = 0;
const make = () => [echoService({ onStreamClosed: () => closedStreams++ })];

function suite(t: AdapterTarget) {
  it("routes JSON with a validated body and a request id", async () => {
    const r = await call(`${t.url}/echo/json`, { body: { name: "ada", n: 3 } });
    expect(r.status).toBe(200);
    expect(r.body.got).toEqual({ name: "ada", n: 3 });
    expect(r.headers.get("x-request-id")).toBe(r.body.requestId);
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("keeps a sane incoming X-Request-Id and replaces an unsafe one", async () => {
    const ok = await call(`${t.url}/echo/json`, { body: { name: "a" }, headers: { "x-request-id": "abc-123" } });
    expect(ok.body.requestId).toBe("abc-123");
    const bad = await call(`${t.url}/echo/json`, { body: { name: "a" }, headers: { "x-request-id": "x y<script>" } });
    expect(bad.body.requestId).not.toBe("x y<script>");
  });

  it("decodes path params and query", async () => {
    const r = await call(`${t.url}/echo/items/abc-1?q=hello%20world`);
    expect(r.body).toEqual({ id: "abc-1", q: "hello world" });
    const bad = await call(`${t.url}/echo/items/ABC`);
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].path).toBe("path.id");
  });

  it("answers malformed JSON with 400 and the service's error body", async () => {
    const r = await call(`${t.url}/echo/json`, { rawBody: '{"name": ', headers: { "content-type": "application/json" } });
    expect(r.status).toBe(400);
    expect(typeof r.body.error).toBe("string");
    expect(r.body.requestId).toBeTruthy();
  });

  it("answers schema violations with 400 and every failing path", async () => {
    const r = await call(`${t.url}/echo/json`, { body: { name: "", n: "x" } });
    expect(r.status).toBe(400);
    expect(r.body.details.map((d: { path: string }) => d.path).sort()).toEqual(["n", "name"]);
  });

  it("answers a body that is not an object, or missing, with 400", async () => {
    expect((await call(`${t.url}/echo/json`, { body: [1, 2] })).status).toBe(400);
    expect((await call(`${t.url}/echo/json`, { method: "POST" })).status).toBe(400);
    expect((await call(`${t.url}/echo/json`, { rawBody: "null", headers: { "content-type": "application/json" } })).status).toBe(400);
  });

  it("refuses JSON nested deeper than 64 levels with 400, not a stack overflow", async () => {
    const deep = `{"name":"a","n":1,"x":${"[".repeat(30_000)}${"]".repeat(30_000)}}`;
    const r = await call(`${t.url}/echo/json`, { rawBody: deep, headers: { "content-type": "application/json" } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/nested/);
    const ok = `{"name":"a","x":${"[".repeat(60)}${"]".repeat(60)}}`;
    expect((await call(`${t.url}/echo/json`, { rawBody: ok, headers: { "content-type": "application/json" } })).status).toBe(200);
  });

  it("refuses lone UTF-16 surrogates (storage would corrupt them) and keeps real pairs", async () => {
    const lone = await call(`${t.url}/echo/json`, { rawBody: '{"name":"a\\ud800b"}', headers: { "content-type": "application/json" } });
    expect(lone.status).toBe(400);
    expect(lone.body.error).toMatch(/surrogate/);
    const key = await call(`${t.url}/echo/json`, { rawBody: '{"name":"a","\\udfff":1}', headers: { "content-type": "application/json" } });
    expect(key.status).toBe(400);
    const pair = await call(`${t.url}/echo/json`, {
      rawBody: '{"name":"\\ud83d\\ude00"}',
      headers: { "content-type": "application/json" },
    });
    expect(pair.status).toBe(200);
    expect(pair.body.got.name).toBe("😀");
  });

  it("answers a malformed percent-encoding in a path parameter with 400", async () => {
    const r = await call(`${t.url}/echo/items/%E0%A4%A`);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/malformed URL/);
  });

  it("answers a wrong content type with 415", async () => {
    const r = await call(`${t.url}/echo/json`, { rawBody: "name=ada", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(r.status).toBe(415);
    expect(r.body.error).toMatch(/content type/);
    const none = await call(`${t.url}/echo/json`, { rawBody: '{"name":"a"}', headers: { "content-type": "" } });
    expect(none.status).toBe(415);
  });

  it("accepts application/json with a charset and +json types", async () => {
    const r = await call(`${t.url}/echo/json`, { rawBody: '{"name":"a"}', headers: { "content-type": "application/json; charset=utf-8" } });
    expect(r.status).toBe(200);
    const v = await call(`${t.url}/echo/json`, { rawBody: '{"name":"a"}', headers: { "content-type": "application/vnd.test+json" } });
    expect(v.status).toBe(200);
  });

  it("answers an oversized body with 413 (declared length and streamed)", async () => {
    const big = JSON.stringify({ name: "x".repeat(100 * 1024) });
    const r = await call(`${t.url}/echo/json`, { rawBody: big, headers: { "content-type": "application/json" } });
    expect(r.status).toBe(413);
    expect(r.body.requestId).toBeTruthy();
    // chunked, no content-length: the limit applies while reading
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        `${t.url}/echo/json`,
        { method: "POST", headers: { "content-type": "application/json", "transfer-encoding": "chunked" } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      const chunk = "x".repeat(16 * 1024);
      req.write('{"name":"');
      for (let i = 0; i < 8; i++) req.write(chunk);
      req.end('"}');
    });
    expect(status).toBe(413);
  });

  it("answers 413 to a chunked body over the kit's limit but under a host parser's (80 KiB, limit 64 KiB)", async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        `${t.url}/echo/json`,
        { method: "POST", headers: { "content-type": "application/json", "transfer-encoding": "chunked" } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.write('{"name":"');
      for (let i = 0; i < 5; i++) req.write("x".repeat(16 * 1024));
      req.end('"}');
    });
    expect(status).toBe(413);
  });

  it("a keep-alive connection that got a 413 mid-body answers the next request", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (chunks: number) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          `${t.url}/echo/json`,
          { method: "POST", agent, headers: { "content-type": "application/json", "transfer-encoding": "chunked" } },
          (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          },
        );
        req.on("error", reject);
        req.write('{"name":"a');
        for (let i = 0; i < chunks; i++) req.write("x".repeat(16 * 1024));
        req.end('"}');
      });
    try {
      expect(await send(8)).toBe(413);
      expect(await send(0)).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  it("answers unknown routes with 404 and wrong methods with 405 + Allow", async () => {
    const nf = await call(`${t.url}/echo/nope`);
    expect(nf.status).toBe(404);
    expect(typeof nf.body.error).toBe("string");
    const outside = await call(`${t.url}/elsewhere`);
    expect(outside.status).toBe(404);
    expect(typeof outside.body.error).toBe("string");
    const na = await call(`${t.url}/echo/json`, { method: "DELETE" });
    expect(na.status).toBe(405);
    expect(na.headers.get("allow")).toBe("POST");
    expect(typeof na.body.error).toBe("string");
  });

  it("maps KitErrors to their status and hides unknown errors behind an opaque 500", async () => {
    const tea = await call(`${t.url}/echo/teapot`);
    expect(tea.status).toBe(418);
    expect(tea.body.error).toBe("short and stout");
    const boom = await call(`${t.url}/echo/boom`);
    expect(boom.status).toBe(500);
    expect(boom.body.error).toBe("internal error");
    expect(boom.text).not.toMatch(/passwd|at |Error/);
    expect(boom.body.requestId).toBeTruthy();
  });

  it("passes raw bodies of other accepted types through", async () => {
    const r = await call(`${t.url}/echo/raw`, { rawBody: "openapi: 3.1.0\n", headers: { "content-type": "application/yaml" } });
    expect(r.status).toBe(200);
    expect(r.text).toBe("openapi: 3.1.0\n");
  });

  it("streams SSE with retry first, ids, multi-line data and the right headers", async () => {
    const res = await fetch(`${t.url}/echo/stream?count=2`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(res.headers.get("cache-control")).toMatch(/no-cache/);
    expect(res.headers.get("x-accel-buffering")).toBe("no");
    const body = await res.text();
    expect(body.startsWith("retry: 1000\n\n")).toBe(true);
    expect(body).toContain('data: {"type":"connected"}\n\n');
    expect(body).toContain('id: 1\ndata: {"type":"tick","n":1,"text":"two\\nlines"}\n\n');
    expect(body).toContain("id: 2\n");
  });

  it("delivers events to a real EventSource client, with heartbeats while idle", async () => {
    const es = new EventSource(`${t.url}/echo/stream?count=3&hold=1`);
    const got: string[] = [];
    await new Promise<void>((resolve, reject) => {
      es.onmessage = (e) => {
        got.push(e.data);
        if (got.length === 4) resolve();
      };
      es.onerror = () => reject(new Error("eventsource error"));
    });
    es.close();
    expect(JSON.parse(got[0]!)).toEqual({ type: "connected" });
    expect(JSON.parse(got[3]!).n).toBe(3);
    // heartbeats: a raw read of a held stream shows `: ping` within the 200 ms test interval
    const ctl = new AbortController();
    const res = await fetch(`${t.url}/echo/stream?count=0&hold=1`, { signal: ctl.signal });
    const reader = res.body!.getReader();
    let acc = "";
    const deadline = Date.now() + 5000;
    while (!acc.includes(": ping") && Date.now() < deadline) acc += new TextDecoder().decode((await reader.read()).value);
    ctl.abort();
    expect(acc).toContain(": ping\n\n");
  });

  it("cleans up a stream as soon as the client disconnects", async () => {
    const before = closedStreams;
    const ctl = new AbortController();
    const res = await fetch(`${t.url}/echo/stream?count=1&hold=1`, { signal: ctl.signal });
    const reader = res.body!.getReader();
    await reader.read();
    ctl.abort();
    const deadline = Date.now() + 5000;
    while (closedStreams === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(closedStreams).toBe(before + 1);
  });

  it("serves HEAD for GET routes without a body", async () => {
    const r = await fetch(`${t.url}/echo/items/x`, { method: "HEAD" });
    expect(r.status).toBe(200);
    expect(await r.text()).toBe("");
    // a Content-Length on HEAD, when sent, must be the one GET would send (RFC 9110 §9.3.2)
    const declared = r.headers.get("content-length");
    const get = await fetch(`${t.url}/echo/items/x`);
    const length = new TextEncoder().encode(await get.text()).byteLength;
    if (declared !== null) expect(Number(declared)).toBe(length);
  });
}

forEachAdapter("foundation", make, suite);
forEachAdapter("foundation behind express.json()", make, suite, { frameworks: ["express"], hostJsonParser: true });

describe("mounting under a prefix", () => {
  forEachAdapter(
    "prefixed",
    () => [echoService({ basePath: "/kit" })],
    (t) => {
      it("serves under the prefix only", async () => {
        expect((await call(`${t.url}/kit/echo/items/a`)).body).toEqual({ id: "a", q: null });
        expect((await call(`${t.url}/echo/items/a`)).status).toBe(404);
      });
    },
  );
});

describe("mounted by the host under its own prefix", () => {
  // a root-relative Location is relative to the service's mount: the host's prefix belongs in front of it
  const created = () =>
    defineService({
      name: "made",
      title: "Made",
      version: "1.0.0",
      mounts: ["/things"],
      errorBody: (e) => ({ error: e.message }),
      routes: [route({ method: "POST", path: "/things", handler: () => json(201, { id: "t1" }, { location: "/things/t1" }) })],
    });
  const hosts: Array<[string, () => Promise<{ url: string; close(): Promise<void> }>]> = [
    [
      "express app.use(prefix)",
      async () => {
        const app = express();
        app.use("/host", mountkit(created()));
        return serve(createServer(app));
      },
    ],
    [
      "fastify register({ prefix })",
      async () => {
        const app = Fastify();
        await app.register(mountkitPlugin, { services: [created()], prefix: "/host" });
        await app.listen({ port: 0, host: "127.0.0.1" });
        const { port } = app.server.address() as AddressInfo;
        return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
      },
    ],
    ["fetch handler { mountPath }", async () => serve(createFetchServer([created()], { mountPath: "/host" }))],
  ];
  for (const [name, start] of hosts) {
    it(`${name}: Location carries the prefix`, async () => {
      const host = await start();
      try {
        const r = await fetch(`${host.url}/host/things`, { method: "POST" });
        expect(r.status).toBe(201);
        expect(r.headers.get("location")).toBe("/host/things/t1");
      } finally {
        await host.close();
      }
    });
  }
});

async function serve(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
