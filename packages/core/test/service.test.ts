import { describe, expect, it } from "vitest";
import { consoleLogger, defineService, dispatch, json, type KitRequest, type Logger, route } from "../src/index.js";

function request(path: string, method = "GET"): KitRequest {
  return {
    method,
    path,
    headers: {},
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
    const s1 = make("a", ["/a"], consoleLogger("info", (l) => lines.push(l)));
    await s1.handle(request("/a/ping"));
    expect(lines).toEqual([]);
    const s2 = make("a", ["/a"], consoleLogger("debug", (l) => lines.push(l)));
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
