// NUL (U+0000) in any text a request carries is a 400 from the core, before a handler or a store sees it.
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { decodeCursor, defineService, encodeCursor, isCursorId, isCursorInstant, isCursorInteger, json, route } from "../src/index.js";

const seen: unknown[] = [];
const service = defineService({
  name: "t",
  title: "t",
  version: "1",
  mounts: ["/t"],
  errorBody: (e, requestId) => ({ error: e.message, details: e.details, requestId }),
  routes: [
    route({
      method: "GET",
      path: "/t/items/:id",
      handler: ({ params }) => {
        seen.push(params);
        return json(200, params);
      },
    }),
    route({ method: "GET", path: "/t/search", query: z.object({ q: z.string().optional() }), handler: ({ query }) => json(200, query) }),
    route({ method: "GET", path: "/t/raw-query", handler: ({ query }) => json(200, query) }),
    route({ method: "POST", path: "/t/echo", body: z.record(z.string(), z.unknown()), handler: ({ body }) => json(200, body) }),
  ],
});

const send = async (path: string, init?: RequestInit) => {
  const res = await service.fetch(new Request(`http://x${path}`, init));
  return { status: res.status, body: (await res.json()) as any };
};
const post = (body: string) => send("/t/echo", { method: "POST", headers: { "content-type": "application/json" }, body });

describe("NUL in request text", () => {
  it("refuses a NUL in a path parameter before the handler runs", async () => {
    seen.length = 0;
    const r = await send("/t/items/a%00b");
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual([{ path: "path.id", message: expect.stringMatching(/NUL/) }]);
    expect(seen).toEqual([]);
    expect((await send("/t/items/a%01b")).status).toBe(200);
  });

  it("refuses a NUL in a query value or name, with or without a query schema", async () => {
    for (const path of ["/t/search?q=a%00", "/t/raw-query?x=%00", "/t/raw-query?a%00=1"]) {
      const r = await send(path);
      expect(r.status, path).toBe(400);
      expect(r.body.error, path).toMatch(/NUL/);
    }
    expect((await send("/t/search?q=fine")).body).toEqual({ q: "fine" });
  });

  it("refuses a NUL in any JSON string, keys and nested values included", async () => {
    const cases: Array<[string, string]> = [
      ['{"a":"x\\u0000y"}', "body.a"],
      ['{"a\\u0000":1}', "body.a\\u0000"],
      ['{"a":{"b":["ok","\\u0000"]}}', "body.a.b[1]"],
    ];
    for (const [text, path] of cases) {
      const r = await post(text);
      expect(r.status, text).toBe(400);
      expect(r.body.details, text).toEqual([{ path, message: expect.stringMatching(/NUL/) }]);
    }
  });

  it("keeps an escaped backslash followed by u0000 (the six characters, no NUL)", async () => {
    const r = await post('{"a":"\\\\u0000"}');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ a: "\\u0000" });
  });
});

describe("cursors", () => {
  it("round-trip a position and refuse anything that is not a base64url JSON array", () => {
    const c = encodeCursor(["e", 1_700_000_000_000, "ent_ü"]);
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(c)).toEqual(["e", 1_700_000_000_000, "ent_ü"]);
    for (const bad of ["", "!!!", "a", "x".repeat(1001), encodeCursor([]).replace(/.$/, "*")]) expect(decodeCursor(bad), bad).toBeNull();
    expect(decodeCursor(btoa('{"a":1}').replace(/=+$/, ""))).toBeNull();
  });

  it("accept only safe non-negative integers, NUL-free ids and ISO instants as position values", () => {
    expect([0, 1_700_000_000_000].every(isCursorInteger)).toBe(true);
    expect([1.5, 1e20, -1, Number.NaN, "1"].some(isCursorInteger)).toBe(false);
    expect(isCursorId("conv_1")).toBe(true);
    expect(["", "a\0b", "x".repeat(501), 7].some(isCursorId)).toBe(false);
    expect(isCursorInstant("2030-01-01T00:00:00.000Z")).toBe(true);
    expect(["2030-13-01T00:00:00Z", "2030-01-01", "now", "2030-01-01T00:00:00.000Z\0"].some(isCursorInstant)).toBe(false);
  });
});
