// @mountkit/fetch's node:http host on real sockets: the server limits it applies, a stalled upload's 408 sent in
// one piece, a client that stops reading a stream, and a close() that ends open streams first.
import type { Server } from "node:http";
import { connect, type Socket } from "node:net";
import { createFetchServer } from "@mountkit/fetch";
import { serverDefaults } from "@mountkit/node";
import { afterEach, describe, expect, it } from "vitest";
import { echoService } from "../../../test/fixtures/echo-service.js";
import { eventually, rawExchange, stalledUpload } from "../../../test/support/raw-http.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((r) => s.close(() => r()).closeAllConnections());
});

async function start(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return `http://127.0.0.1:${port}`;
}

describe("createFetchServer", () => {
  it("applies serverDefaults, or the limits it is given", () => {
    const plain = createFetchServer(echoService());
    expect(plain.headersTimeout).toBe(serverDefaults.headersTimeout);
    expect(plain.requestTimeout).toBe(serverDefaults.requestTimeout);
    expect(plain.keepAliveTimeout).toBe(serverDefaults.keepAliveTimeout);
    expect(plain.maxConnections).toBe(serverDefaults.maxConnections);
    expect(plain.timeout).toBe(serverDefaults.timeout);
    const tight = createFetchServer(echoService(), { limits: { headersTimeout: 1_000, requestTimeout: 2_000, maxConnections: 3 } });
    expect([tight.headersTimeout, tight.requestTimeout, tight.maxConnections]).toEqual([1_000, 2_000, 3]);
    expect(() => createFetchServer(echoService(), { limits: { headersTimeout: 5_000, requestTimeout: 1_000 } })).toThrow(RangeError);
  });

  it("answers a stalled upload with the service's 408 in one piece (Content-Length, Connection: close), then closes", async () => {
    const base = await start(createFetchServer(echoService(), { bodyTimeoutMs: 200 }));
    const s = await stalledUpload(base, "/echo/json");
    expect(await eventually(s.isClosed, 5_000)).toBe(true);
    const [head, body] = s.received().split("\r\n\r\n") as [string, string];
    expect(head).toMatch(/^HTTP\/1\.1 408 /);
    expect(head.toLowerCase()).toContain("connection: close");
    expect(head.toLowerCase()).not.toContain("transfer-encoding");
    expect(Number(/content-length: (\d+)/i.exec(head)?.[1])).toBe(Buffer.byteLength(body));
    expect(JSON.parse(body).requestId).toBeTruthy();
  });

  it("drops a client that stops reading a stream after the drain timeout, and cancels the body", async () => {
    let cancelled = false;
    const chunk = new Uint8Array(16 * 1024).fill(97);
    const handler = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull: (c) => c.enqueue(chunk),
          cancel: () => {
            cancelled = true;
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      );
    const base = await start(createFetchServer(handler, { drainTimeoutMs: 300, maxStreamBuffer: 1024 * 1024 * 1024 }));
    const u = new URL(base);
    const socket = await new Promise<Socket>((resolve) => {
      const s = connect({ host: u.hostname, port: Number(u.port) }, () => resolve(s));
    });
    let closed = false;
    socket.once("close", () => (closed = true)).once("error", () => {});
    socket.once("data", () => socket.pause());
    socket.write(`GET /stream HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`);
    expect(await eventually(() => cancelled, 5_000)).toBe(true);
    socket.resume();
    expect(await eventually(() => closed, 3_000)).toBe(true);
  });

  it("close() ends open SSE streams cleanly first, then its callback runs", async () => {
    const server = createFetchServer([echoService()], { mountPath: "/kit" });
    const base = await start(server);
    const res = await fetch(`${base}/kit/echo/stream?count=0&hold=1`);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read();
    const closed = new Promise<void>((r) => server.close(() => r()));
    let r = await reader.read();
    while (!r.done) r = await reader.read();
    expect(r.done).toBe(true);
    await closed;
  });
});

describe("createFetchServer: TRACE, which a WHATWG Request cannot carry", () => {
  const trace = async (server: Server, target: string) => {
    const base = await start(server);
    return rawExchange(base, `TRACE ${target} HTTP/1.1\r\nHost: ${new URL(base).host}\r\nConnection: close\r\n\r\n`);
  };

  it("is decided by the services through the Node bridge, under the handler's mountPath too", async () => {
    const root = await trace(createFetchServer(echoService()), "/echo/json");
    expect([root.status, root.headers.allow]).toEqual([405, "POST"]);
    expect(root.headers["x-request-id"]).toBe(root.body.requestId);
    const mounted = await trace(createFetchServer(echoService(), { mountPath: "/kit" }), "/kit/echo/items/a");
    expect([mounted.status, mounted.headers.allow]).toEqual([405, "GET, HEAD"]);
    expect((await trace(createFetchServer(echoService()), "/elsewhere")).status).toBe(404);
  });

  it("answers 501 in the kit's error body for a handler of the host's own, which it cannot ask", async () => {
    let called = false;
    const r = await trace(
      createFetchServer(async () => {
        called = true;
        return new Response("never");
      }),
      "/anything",
    );
    expect(r.status).toBe(501);
    expect(r.headers["x-request-id"]).toBe(r.body.requestId);
    expect(called).toBe(false);
  });
});
