// Routing on the raw request target: `..`, `%2e%2e`, `\` and `//` are never resolved (issue #10, break 5).
import { describe, expect, it } from "vitest";
import { targetPath, targetQuery, withRawTarget } from "../src/adapter.js";
import { defineService, json, route, toFetchHandler } from "../src/index.js";

const make = (name: string, mount: string) =>
  defineService({
    name,
    title: name,
    version: "1",
    mounts: [mount],
    errorBody: (e, requestId) => ({ error: e.message, requestId }),
    routes: [route({ method: "GET", path: `${mount}/ping`, handler: (ctx) => json(200, { from: name, q: ctx.query }) })],
  });

describe("raw request targets", () => {
  it("keep dot segments, backslashes and doubled slashes; absolute-form routes on its unresolved path", () => {
    expect(targetPath("/a/%2e%2e/b?x=1")).toBe("/a/%2e%2e/b");
    expect(targetPath("/a/../b")).toBe("/a/../b");
    expect(targetPath("/a\\..\\b")).toBe("/a\\..\\b");
    expect(targetPath("//evil.example/x")).toBe("//evil.example/x");
    expect(targetPath("http://host/a/../b?q")).toBe("/a/../b");
    expect(targetPath("http://host")).toBe("/");
    expect(targetQuery("/a?x=1&y=2")).toBe("x=1&y=2");
    expect(targetQuery("/a")).toBe("");
  });

  it("a Request carrying its raw target is routed on it, not on the URL the parser resolved", async () => {
    const handler = toFetchHandler([make("a", "/a"), make("b", "/b")]);
    const target = "/a/%2e%2e/b/ping?x=1";
    const req = new Request(`http://host${target}`);
    // the WHATWG parser already resolved it into b's route
    expect(new URL(req.url).pathname).toBe("/b/ping");
    const resolved = await handler(new Request(`http://host${target}`));
    expect(await resolved.json()).toMatchObject({ from: "b" });
    const raw = await handler(withRawTarget(req, target));
    expect(raw.status).toBe(404);
    expect(await raw.json()).toMatchObject({ error: "no route for GET /a/%2e%2e/b/ping" });
    const ok = await handler(withRawTarget(new Request("http://host/a/ping?x=1"), "/a/ping?x=1"));
    expect(await ok.json()).toEqual({ from: "a", q: { x: "1" } });
  });
});
