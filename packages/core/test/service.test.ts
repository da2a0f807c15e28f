import { describe, expect, it } from "vitest";
import { dispatch } from "../src/adapter.js";
import { coreError, consoleLogger, defineService, json, type KitRequest, type Logger, route } from "../src/index.js";

function request(path: string, method = "GET", headers: Record<string, string> = {}): KitRequest {
  return {
    method,
    path,
    headers,
    query: new URLSearchParams(),
    body: { kind: "none" },
    get signal(): AbortSignal {
      throw new Error("not read on these routes");
    },
  };
}

const make = (name: string, mounts: string[], logger?: Logger) =>
  defineService({
    name,
    title: name,
    version: "1",
    mounts,
    logger,
    errorBody: (e) => ({ error: e.message }),
    routes: [route({ method: "GET", path: `${mounts[0]}/ping`, handler: () => json(200, { from: name }) })],
  });

describe("service dispatch", () => {
  it("owns its mounts and nothing else", () => {
    const s = make("a", ["/a"]);
    expect(s.owns("/a")).toBe(true);
    expect(s.owns("/a/ping")).toBe(true);
    expect(s.owns("/ab")).toBe(false);
    expect(s.owns("/b/ping")).toBe(false);
  });

  it("hands a request to the service that owns its path, or answers null", async () => {
    const list = [make("a", ["/a"]), make("b", ["/b"])];
    const r = await dispatch(list, request("/b/ping"));
    expect(r && JSON.parse(r.body as string)).toEqual({ from: "b" });
    expect(await dispatch(list, request("/c/ping"))).toBeNull();
  });

  it("formats the per-request debug line only when debug is enabled", async () => {
    const lines: string[] = [];
    const s1 = make(
      "a",
      ["/a"],
      consoleLogger("info", (l) => lines.push(l)),
    );
    await s1.handle(request("/a/ping"));
    expect(lines).toEqual([]);
    const s2 = make(
      "a",
      ["/a"],
      consoleLogger("debug", (l) => lines.push(l)),
    );
    await s2.handle(request("/a/ping"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/DEBUG GET \/a\/ping 200 [\d.]+ms requestId=req_/);
    // a host logger without isLevelEnabled still gets every line
    const seen: string[] = [];
    const host: Logger = { debug: (m) => seen.push(m), info() {}, warn() {}, error() {} };
    await make("a", ["/a"], host).handle(request("/a/ping"));
    expect(seen).toHaveLength(1);
    // one that says debug is off is not even called
    const quiet: Logger = { ...host, isLevelEnabled: (level) => level !== "debug" };
    await make("a", ["/a"], quiet).handle(request("/a/ping"));
    expect(seen).toHaveLength(1);
  });
});

describe("request ids", () => {
  const s = defineService({
    name: "ids",
    title: "ids",
    version: "1",
    mounts: ["/i"],
    errorBody: (e, requestId) => ({ error: e.message, requestId }),
    routes: [
      route({ method: "GET", path: "/i/quiet", handler: () => json(200, { ok: true }) }),
      route({ method: "GET", path: "/i/reads", handler: (ctx) => json(200, { id: ctx.requestId }) }),
      route({
        method: "GET",
        path: "/i/fails",
        handler: () => {
          throw coreError("invalid_request");
        },
      }),
    ],
  });
  const body = (r: { body?: unknown } | null) => JSON.parse(r!.body as string);

  it("makes and sends one only when something uses it", async () => {
    const quiet = await s.handle(request("/i/quiet"));
    expect(quiet!.headers["x-request-id"]).toBeUndefined();
    const reads = await s.handle(request("/i/reads"));
    expect(reads!.headers["x-request-id"]).toMatch(/^req_/);
    expect(body(reads).id).toBe(reads!.headers["x-request-id"]);
  });
  it("always sends one with an error, the same as in the body", async () => {
    for (const path of ["/i/fails", "/i/missing"]) {
      const r = await s.handle(request(path));
      expect(r!.status).toBeGreaterThanOrEqual(400);
      expect(body(r).requestId).toMatch(/^req_/);
      expect(r!.headers["x-request-id"]).toBe(body(r).requestId);
    }
  });
  it("echoes a sane incoming id and replaces an unsafe one", async () => {
    const ok = await s.handle(request("/i/quiet", "GET", { "x-request-id": "abc-123" }));
    expect(ok!.headers["x-request-id"]).toBe("abc-123");
    const bad = await s.handle(request("/i/quiet", "GET", { "x-request-id": "x y<script>" }));
    expect(bad!.headers["x-request-id"]).toMatch(/^req_/);
  });
  it("gives ids unique within the process", async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 500; i++) ids.add(body(await s.handle(request("/i/reads"))).id);
    expect(ids.size).toBe(500);
  });
});
