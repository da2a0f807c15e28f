// Issue #10 breaks 2, 5, 6 and 7 under Express, Fastify and fetch on real sockets: stalled uploads, raw-path
// routing, clients that stop reading an SSE stream, malformed Content-Type, and the connection and stream caps.
import { connect, type Socket } from "node:net";
import { defineService, type Route, route, type SseEvent, sse } from "@mountkit/core";
import { StreamGate } from "@mountkit/core/adapter";
import { createEntriesService, jwtVerifier } from "@mountkit/entries";
import { createMemoryService } from "@mountkit/memory";
import { createSupportService } from "@mountkit/support";
import { describe, expect, it } from "vitest";
import { type AdapterTarget, call, forEachAdapter, unguarded } from "./harness.js";
import { eventually, type RawAnswer, rawRequest, sleep, stalledUpload } from "./support/raw-http.js";

const SECRET = "hardening-secret-0123456789abcdef-xyz";
const cust = () => `cust_${crypto.randomUUID()}`;

/** Every error: `{ error, requestId }`, the same id in `X-Request-Id`, no stack trace. */
function expectErrorBody(r: { status: number; body: any; text: string; headers: Headers | RawAnswer["headers"] }, status: number) {
  expect(r.status, r.text).toBe(status);
  expect(typeof r.body?.error, r.text).toBe("string");
  expect(typeof r.body?.requestId, r.text).toBe("string");
  const header = r.headers instanceof Headers ? r.headers.get("x-request-id") : r.headers["x-request-id"];
  expect(header).toBe(r.body.requestId);
  expect(r.text).not.toMatch(/at .*\.[jt]s:\d+|FST_ERR/);
}

/** A service whose stream sends 256 KiB events as fast as the client takes them: a client that stops reading stalls it at once. */
const BIG = "x".repeat(256 * 1024);
const firehose = () =>
  defineService({
    name: "firehose",
    title: "firehose",
    version: "1",
    mounts: ["/firehose"],
    errorBody: (e, requestId) => ({ error: e.message, details: e.details ?? null, requestId }),
    routes: [
      route({
        method: "GET",
        path: "/firehose/stream",
        handler: () =>
          sse(
            (async function* (): AsyncGenerator<SseEvent> {
              for (let i = 0; ; i++) yield { id: i, data: BIG };
            })(),
          ),
      }),
    ] as Route[],
  });

const services = () => [
  createEntriesService({ auth: jwtVerifier({ secret: SECRET }) }),
  createMemoryService(),
  createSupportService({ products: ["demo"], limits: { rateLimit: 100_000 } }),
  firehose(),
];

const BODY_TIMEOUT = 600;
const DRAIN_TIMEOUT = 400;
const MAX_CONNECTIONS = 300;
const gate = new StreamGate(3);

forEachAdapter(
  "hardening",
  services,
  (t: AdapterTarget) => {
    describe("break 2: stalled uploads", () => {
      it("closes 200 stalled uploads with the service's 408 after the body deadline, and keeps serving", async () => {
        // the test's own burst of 200 sockets stays outside the loop-delay guard; the 408s it then gets stay inside
        const stalled = await unguarded(() => Promise.all(Array.from({ length: 200 }, () => stalledUpload(t.url, "/api/conversations"))));
        const allClosed = await eventually(() => stalled.every((s) => s.isClosed()), BODY_TIMEOUT + 15_000);
        expect(allClosed, `${stalled.filter((s) => !s.isClosed()).length} still open`).toBe(true);
        // none closed before its deadline: the deadline, not something else, closed them
        const early = stalled.filter((s) => s.closedAt()! - s.sentAt < BODY_TIMEOUT - 50);
        expect(early.length).toBe(0);
        expect(await eventually(async () => (await connections(t)) === 0, 2_000)).toBe(true);
        // every one got its answer before the close (under fetch some used to be closed without one), in one piece:
        // a declared length, not chunked framing the server has to finish in a second write
        const unanswered = stalled.filter((s) => !/^HTTP\/1\.1 408 /.test(s.received()));
        expect(unanswered.length, `${unanswered.length} of 200 closed without a 408`).toBe(0);
        for (const s of stalled) {
          const text = s.received();
          const head = text.slice(0, text.indexOf("\r\n\r\n")).toLowerCase();
          expect(head).toContain("connection: close");
          expect(head).toMatch(/\r\ncontent-length: \d+/);
          expect(head).not.toContain("transfer-encoding");
          const body = JSON.parse(httpBody(text));
          expect(body.error).toMatch(/not received within 600 ms/);
          expect(typeof body.requestId).toBe("string");
        }
        const ok = await call(`${t.url}/api/conversations`, { body: { productSlug: "demo", customerId: cust(), message: "hi" } });
        expect(ok.status).toBe(200);
        expect(typeof ok.body.conversationId).toBe("string");
      });

      it("a slow body that completes in time is read, not cut", async () => {
        const s = await stalledUpload(t.url, "/api/conversations", { declared: 3, sent: "{" });
        await sleep(BODY_TIMEOUT / 3);
        s.socket.write("}x");
        await eventually(() => s.received().includes("\r\n\r\n"), 3_000);
        expect(s.received()).toMatch(/^HTTP\/1\.1 400 /);
        s.socket.destroy();
      });

      it("caps open connections: past maxConnections new sockets are closed at once", async () => {
        // a flood of 340 sockets opened, accepted and closed at once in this one process is the test's scenario, not a
        // stall of the kit's: outside the loop-delay guard; the request after it is inside
        await unguarded(async () => {
          const sockets = await Promise.all(Array.from({ length: MAX_CONNECTIONS + 40 }, () => openSocket(t.url)));
          try {
            expect(await eventually(() => sockets.filter((s) => s.destroyed).length >= 40, 3_000)).toBe(true);
            expect(await connections(t)).toBeLessThanOrEqual(MAX_CONNECTIONS);
          } finally {
            for (const s of sockets) s.destroy();
          }
          expect(await eventually(async () => (await connections(t)) === 0, 3_000)).toBe(true);
        });
        expect((await call(`${t.url}/openapi.yaml`)).status).toBe(200);
      });
    });

    describe("break 5: every adapter routes the raw path", () => {
      // a client library would resolve these before sending; a hostile client sends them as they are
      const tricks: Array<[string, string, number, RegExp]> = [
        [
          "POST",
          "/api/conversations/%2e%2e/%2e%2e/api/dev/validate-openapi/",
          404,
          /no route for POST \/api\/conversations\/%2e%2e\/%2e%2e\//,
        ],
        ["POST", "/api/conversations/%2E%2E/%2E%2E/api/dev/validate-openapi/", 404, /no route for POST \/api\/conversations\/%2E%2E/],
        ["POST", "/api/conversations/../../api/dev/validate-openapi/", 404, /no route for POST \/api\/conversations\/\.\.\/\.\.\//],
        ["POST", "/api/conversations/..%2f..%2fapi/dev/validate-openapi/", 404, /no route for POST \/api\/conversations\/\.\.%2f/],
        ["GET", "/v1/%2e%2e/api/conversations/list?productSlug=demo", 404, /no route for GET \/v1\/%2e%2e\/api/],
        ["GET", "/api/conversations\\..\\..\\v1/brains", 404, /no route for GET \/api\/conversations\\\.\.\\/],
      ];
      for (const [method, target, status, message] of tricks) {
        it(`${method} ${target} -> ${status} from the service owning the raw prefix`, async () => {
          const r = await rawRequest(t.url, target, {
            method,
            headers: method === "POST" ? { "content-type": "application/json" } : {},
            body: method === "POST" ? JSON.stringify({ url: "http://127.0.0.1/" }) : undefined,
          });
          expectErrorBody(r, status);
          expect(r.body.error).toMatch(message);
          expect(r.body.valid).toBeUndefined();
        });
      }

      it("a leading // is not read as a host: no service owns it", async () => {
        const r = await rawRequest(t.url, "//api/conversations/list?productSlug=demo&customerId=x");
        expect(r.status).toBe(404);
        expect(r.body?.error).toMatch(/no route for GET \/\/api\/conversations\/list/);
      });
    });

    describe("break 6: a client that stops reading a stream is dropped", () => {
      it("after the drain timeout, and the stream's slot is freed", async () => {
        const u = new URL(t.url);
        const socket = await new Promise<Socket>((resolve) => {
          const s = connect({ host: u.hostname, port: Number(u.port) }, () => resolve(s));
        });
        let got = 0;
        let paused = false;
        let closed = false;
        socket.once("close", () => {
          closed = true;
        });
        socket.once("error", () => {});
        socket.on("data", (c: Buffer) => {
          got += c.length;
          // read the headers and a little, then stop reading altogether
          if (got > 64 * 1024 && !paused) {
            paused = true;
            socket.pause();
          }
        });
        socket.write(`GET /firehose/stream HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`);
        expect(await eventually(() => gate.open === 1, 3_000)).toBe(true);
        // the server sees the stream stall and drops it: its slot and its connection go
        expect(await eventually(() => gate.open === 0, DRAIN_TIMEOUT + 8_000)).toBe(true);
        expect(await eventually(async () => (await connections(t)) === 0, 3_000)).toBe(true);
        socket.resume();
        expect(await eventually(() => closed, 5_000)).toBe(true);
      });
    });

    describe("break 7: a malformed Content-Type gets the service's own answer", () => {
      for (const contentType of ["application/json, text/plain", "application/json;;", "/", "application/json; charset"]) {
        it(`${JSON.stringify(contentType)}`, async () => {
          const r = await call(`${t.url}/api/conversations`, {
            method: "POST",
            headers: { "content-type": contentType },
            rawBody: JSON.stringify({ productSlug: "demo", customerId: cust(), message: "hi" }),
          });
          expect(r.status).toBeLessThan(500);
          if (r.status >= 400) expectErrorBody(r, r.status);
          expect(r.text).not.toMatch(/FST_ERR/);
        });
      }

      it("application/json, text/plain is refused with 415 on every adapter", async () => {
        const r = await call(`${t.url}/api/conversations`, {
          method: "POST",
          headers: { "content-type": "application/json, text/plain" },
          rawBody: JSON.stringify({ productSlug: "demo", customerId: cust(), message: "hi" }),
        });
        expectErrorBody(r, 415);
      });
    });

    describe("the SSE stream cap", () => {
      it("answers 503 with the service's body when full, and admits again once a stream ends", async () => {
        const customerId = cust();
        const created = await call(`${t.url}/api/conversations`, { body: { productSlug: "demo", customerId, message: "hi" } });
        const streamUrl = `${t.url}/api/conversations/${created.body.conversationId}/stream?productSlug=demo&customerId=${customerId}`;
        const open = await Promise.all([0, 1, 2].map(() => openStream(streamUrl)));
        expect(gate.open).toBe(3);
        const refused = await call(streamUrl);
        expectErrorBody(refused, 503);
        expect(refused.headers.get("retry-after")).toBe("5");
        expect(gate.open).toBe(3);
        open[0]!.abort();
        expect(await eventually(() => gate.open === 2, 3_000)).toBe(true);
        const again = await openStream(streamUrl);
        expect(gate.open).toBe(3);
        again.abort();
        for (const c of open) c.abort();
        expect(await eventually(() => gate.open === 0, 3_000)).toBe(true);
      });
    });
  },
  {
    limits: {
      limits: { maxConnections: MAX_CONNECTIONS, headersTimeout: 5_000, requestTimeout: 20_000 },
      bridge: { bodyTimeoutMs: BODY_TIMEOUT, drainTimeoutMs: DRAIN_TIMEOUT, maxStreamBuffer: 64 * 1024 * 1024, maxStreams: gate },
    },
  },
);

/** The body of a raw HTTP/1.1 answer, chunked transfer coding undone. */
function httpBody(answer: string): string {
  const split = answer.indexOf("\r\n\r\n");
  const head = answer.slice(0, split).toLowerCase();
  let rest = answer.slice(split + 4);
  if (!head.includes("transfer-encoding: chunked")) return rest;
  let out = "";
  for (;;) {
    const eol = rest.indexOf("\r\n");
    const size = Number.parseInt(rest.slice(0, eol), 16);
    if (!size) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

function connections(t: AdapterTarget): Promise<number> {
  return new Promise((resolve, reject) => t.server!.getConnections((err, n) => (err ? reject(err) : resolve(n))));
}

function openSocket(base: string): Promise<Socket> {
  const u = new URL(base);
  return new Promise((resolve) => {
    const s = connect({ host: u.hostname, port: Number(u.port) }, () => resolve(s));
    s.once("error", () => resolve(s));
  });
}

/** Opens an SSE stream and waits for its headers; abort() ends it from the client side. */
async function openStream(url: string): Promise<AbortController> {
  const abort = new AbortController();
  const res = await fetch(url, { signal: abort.signal });
  expect(res.status).toBe(200);
  // keep reading in the background so the stream stays healthy
  void res.body?.pipeTo(new WritableStream()).catch(() => {});
  return abort;
}
