// A real pino logger passed as it is keeps every field the kit logs: the request id (through a child
// logger), the error serialised with its stack under `err`, and the debug line's fields.
import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { defineService, json, type KitRequest, kitLogger, type Logger, route } from "../src/index.js";

function capture(level = "debug") {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n")) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level }, sink), lines };
}

function request(path: string, headers: Record<string, string> = {}): KitRequest {
  return { method: "GET", path, headers, query: new URLSearchParams(), body: { kind: "none" }, signal: new AbortController().signal };
}

const service = (logger: Logger) =>
  defineService({
    name: "p",
    title: "p",
    version: "1",
    mounts: ["/p"],
    logger,
    errorBody: (e, requestId) => ({ error: e.message, requestId }),
    routes: [
      route({ method: "GET", path: "/p/ok", handler: () => json(200, { ok: true }) }),
      route({
        method: "GET",
        path: "/p/boom",
        handler: () => {
          throw new TypeError("exploded in a handler");
        },
      }),
    ],
  });

describe("pino as the kit's logger", () => {
  it("logs an unhandled error with its request id, the error serialised under err (type, message, stack)", async () => {
    const { logger, lines } = capture("info");
    const r = await service(logger).handle(request("/p/boom", { "x-request-id": "req-pino-1" }));
    expect(r?.status).toBe(500);
    await new Promise((resolve) => setImmediate(resolve));
    const line = lines.find((l) => l.msg === "unhandled error");
    expect(line).toBeDefined();
    expect(line!.requestId).toBe("req-pino-1");
    expect(line!.level).toBe(50);
    const err = line!.err as { type: string; message: string; stack: string };
    expect(err.type).toBe("TypeError");
    expect(err.message).toBe("exploded in a handler");
    expect(err.stack).toContain("exploded in a handler");
    expect(line!.path).toBe("/p/boom");
  });

  it("honours pino's level: no debug line at info, one with its fields at debug", async () => {
    const quiet = capture("info");
    await service(quiet.logger).handle(request("/p/ok"));
    await new Promise((resolve) => setImmediate(resolve));
    expect(quiet.lines).toEqual([]);

    const loud = capture("debug");
    await service(loud.logger).handle(request("/p/ok", { "x-request-id": "req-pino-2" }));
    await new Promise((resolve) => setImmediate(resolve));
    const line = loud.lines.find((l) => l.level === 20);
    expect(line).toBeDefined();
    expect(String(line!.msg)).toContain("GET /p/ok 200");
    expect(line!.requestId).toBe("req-pino-2");
  });

  it("accepts a child logger as Fastify's request.log is, keeping its bindings", () => {
    const { logger, lines } = capture("info");
    const child = logger.child({ reqId: "fastify-7" });
    kitLogger(child).warn("job failed", { queue: "q", error: new Error("nope") });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ reqId: "fastify-7", queue: "q", msg: "job failed", err: { message: "nope" } });
  });

  it("leaves a (msg, fields) logger as it is", () => {
    const calls: unknown[][] = [];
    const plain = { debug() {}, info: (...a: unknown[]) => calls.push(a), warn() {}, error() {} };
    kitLogger(plain).info("hello", { a: 1 });
    expect(calls).toEqual([["hello", { a: 1 }]]);
  });
});
