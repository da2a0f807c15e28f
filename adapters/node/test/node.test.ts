// @mountkit/node on real sockets: the stream writer's backpressure (a client that stops reading is dropped, its
// source ended), a stop that ends a stream cleanly, the bridge's body limit, body deadline and 404, and the kit's
// answers to the requests Node refuses by itself.
import { createServer, type Server, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { answerNodeRefusals, applyServerLimits, pipeToResponse, toNodeListener } from "@mountkit/node";
import { afterEach, describe, expect, it } from "vitest";
import { echoService } from "../../../test/fixtures/echo-service.js";
import { eventually, rawExchange, rawRequest, stalledUpload } from "../../../test/support/raw-http.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((r) => s.close(() => r()).closeAllConnections());
});

async function start(listener: (req: import("node:http").IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return `http://127.0.0.1:${port}`;
}

/** An endless source of 16 KiB chunks that records whether it was ended. */
function firehose() {
  const state = { ended: false };
  const chunk = new Uint8Array(16 * 1024).fill(97);
  async function* gen() {
    try {
      for (;;) yield chunk;
    } finally {
      state.ended = true;
    }
  }
  return { source: gen(), state };
}

/** Sends a GET, reads a little of the answer, then stops reading; `closed()` tells whether the server dropped it. */
async function stopReading(base: string): Promise<{ socket: Socket; closed: () => boolean }> {
  const u = new URL(base);
  const socket = await new Promise<Socket>((resolve) => {
    const s = connect({ host: u.hostname, port: Number(u.port) }, () => resolve(s));
  });
  let closed = false;
  socket.once("close", () => (closed = true)).once("error", () => {});
  socket.once("data", () => socket.pause());
  socket.write(`GET / HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`);
  return { socket, closed: () => closed };
}

describe("pipeToResponse: the one streaming path", () => {
  it("drops a client that stops reading once the drain timeout passes, and ends the source", async () => {
    const { source, state } = firehose();
    let res: ServerResponse | undefined;
    const base = await start((_req, r) => {
      res = r;
      r.writeHead(200, { "content-type": "application/octet-stream" });
      void pipeToResponse(r, source, { drainTimeoutMs: 300, maxStreamBuffer: 1024 * 1024 * 1024 });
    });
    const client = await stopReading(base);
    expect(await eventually(() => state.ended, 5_000)).toBe(true);
    expect(res!.destroyed).toBe(true);
    client.socket.resume();
    expect(await eventually(client.closed, 3_000)).toBe(true);
  });

  it("drops at once a client whose queued bytes pass maxStreamBuffer, without waiting for the drain timeout", async () => {
    const { source, state } = firehose();
    const base = await start((_req, r) => {
      r.writeHead(200);
      // a chunk larger than the cap: the first write the socket cannot take leaves more than the cap queued
      void pipeToResponse(r, source, { drainTimeoutMs: 60_000, maxStreamBuffer: 8 * 1024 });
    });
    const client = await stopReading(base);
    expect(await eventually(() => state.ended, 5_000)).toBe(true);
    client.socket.destroy();
  });

  it("ends the response cleanly when the stop signal aborts (a terminated body, not a cut one)", async () => {
    const stop = new AbortController();
    async function* ticks() {
      for (let i = 0; ; i++) {
        yield `tick ${i}\n`;
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    const base = await start((_req, r) => {
      r.writeHead(200, { "content-type": "text/plain" });
      void pipeToResponse(r, ticks(), {}, stop);
    });
    const res = await fetch(base);
    const reader = res.body!.getReader();
    await reader.read();
    stop.abort();
    let r = await reader.read();
    while (!r.done) r = await reader.read();
    expect(r.done).toBe(true);
  });
});

describe("toNodeListener: the bridge's limits", () => {
  it("answers a body over the service's limit with its 413 body", async () => {
    const base = await start(toNodeListener([echoService()]));
    const r = await rawRequest(base, "/echo/raw", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "x".repeat(100 * 1024),
    });
    expect(r.status).toBe(413);
    expect(r.body.requestId).toBeTruthy();
  });

  it("answers a stalled upload with the service's 408 and closes the connection after the body deadline", async () => {
    const base = await start(toNodeListener([echoService()], { bodyTimeoutMs: 200 }));
    const s = await stalledUpload(base, "/echo/json");
    expect(await eventually(s.isClosed, 5_000)).toBe(true);
    expect(s.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(s.received().toLowerCase()).toContain("connection: close");
  });

  it("answers paths no service owns with the generic JSON 404", async () => {
    const base = await start(toNodeListener(echoService()));
    const r = await rawRequest(base, "/elsewhere?x=1");
    expect(r.status).toBe(404);
    expect(r.body.error).toMatch(/no route for GET \/elsewhere/);
  });
});

describe("answerNodeRefusals: what Node refuses by itself", () => {
  const serve = async (server: Server) => {
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  };

  it("keeps a request without Host from every request listener, even one added afterwards", async () => {
    const seen: string[] = [];
    const server = answerNodeRefusals(createServer());
    server.on("request", (req, res) => {
      seen.push(req.url ?? "");
      res.end("served");
    });
    const base = await serve(server);
    const r = await rawExchange(base, "GET /late HTTP/1.1\r\n\r\n");
    expect(r.status).toBe(400);
    expect(r.headers["x-request-id"]).toBe(r.body.requestId);
    expect(r.closed).toBe(true);
    expect(seen).toEqual([]);
  });

  it("leaves Expect to a host's own checkExpectation listener, and installs once however often it is applied", async () => {
    const server = applyServerLimits(applyServerLimits(createServer(toNodeListener(echoService()))));
    expect(server.listenerCount("checkExpectation")).toBe(1);
    const base = await serve(server);
    const host = new URL(base).host;
    const bogus = `GET /echo/items/a HTTP/1.1\r\nHost: ${host}\r\nExpect: 999-bogus\r\nConnection: close\r\n\r\n`;
    expect((await rawExchange(base, bogus)).status).toBe(417);
    server.on("checkExpectation", (_req, res) => res.writeHead(202).end());
    expect((await rawExchange(base, bogus)).status).toBe(202);
  });
});
