import { describe, expect, it } from "vitest";
import { json, route } from "../src/index.js";
import { compileRoutes } from "../src/router.js";

const h = () => json(200, {});
const match = compileRoutes([
  route({ method: "GET", path: "/a/:id", handler: h }),
  route({ method: "GET", path: "/a/list", handler: h }),
  route({ method: "POST", path: "/a/:id/messages", handler: h }),
  route({ method: "DELETE", path: "/a/:id", handler: h }),
  route({ method: "POST", path: "/dev/validate/", handler: h }),
]);

describe("router", () => {
  it("prefers literal segments over params", () => {
    const m = match("GET", "/a/list");
    expect(m.kind === "match" && m.route.path).toBe("/a/list");
  });
  it("captures and decodes params", () => {
    const m = match("GET", "/a/x%20y");
    expect(m.kind === "match" && m.params).toEqual({ id: "x y" });
  });
  it("reports the allowed methods of a known path", () => {
    expect(match("PUT", "/a/1")).toEqual({ kind: "method_not_allowed", allow: ["GET", "DELETE"] });
  });
  it("rejects empty params, bad encodings and unknown paths", () => {
    expect(match("GET", "/a/").kind).toBe("none");
    expect(match("GET", "/a/%E0%A4%A").kind).toBe("bad_encoding");
    expect(match("GET", "/b").kind).toBe("none");
  });
  it("keeps trailing slashes significant", () => {
    expect(match("POST", "/dev/validate/").kind).toBe("match");
    expect(match("POST", "/dev/validate").kind).toBe("none");
  });
  it("answers HEAD with the GET route", () => {
    expect(match("HEAD", "/a/1").kind).toBe("match");
  });
  it("lets a parameterised route take a method the literal route of that path lacks", () => {
    const m2 = compileRoutes([route({ method: "GET", path: "/x/new", handler: h }), route({ method: "POST", path: "/x/:id", handler: h })]);
    const post = m2("POST", "/x/new");
    expect(post.kind === "match" && post.route.path).toBe("/x/:id");
    expect(post.kind === "match" && post.params).toEqual({ id: "new" });
    const get = m2("GET", "/x/new");
    expect(get.kind === "match" && get.route.path).toBe("/x/new");
    expect(m2("HEAD", "/x/new").kind).toBe("match");
    expect(m2("PUT", "/x/new")).toEqual({ kind: "method_not_allowed", allow: ["GET", "POST"] });
  });
  it("gives each match its own params object", () => {
    const a = match("GET", "/a/list");
    const b = match("GET", "/a/list");
    expect(a.kind === "match" && b.kind === "match" && a.params !== b.params).toBe(true);
  });
});
