import { describe, expect, it } from "vitest";
import * as z from "zod";
import { withMountPrefix } from "../src/adapter.js";
import { buildOpenApi, defineErrors, isKitError, json, KitError, route, toYaml } from "../src/index.js";

describe("KitError", () => {
  it("is recognised by its global brand, not by instanceof", () => {
    const foreign = { [Symbol.for("mountkit.KitError")]: true, status: 409, code: "x" };
    expect(isKitError(foreign)).toBe(true);
    expect(isKitError(new Error("x"))).toBe(false);
    const e = defineErrors({ conflict: { status: 409, message: "conflict" } })("conflict", { details: { a: 1 } });
    expect(e).toBeInstanceOf(KitError);
    expect([e.status, e.code, e.message, e.details]).toEqual([409, "conflict", "conflict", { a: 1 }]);
  });
});

describe("OpenAPI from the route table", () => {
  const doc = buildOpenApi({
    title: "t",
    version: "1",
    errorSchema: z.object({ error: z.string() }),
    securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    routes: [
      route({
        method: "POST",
        path: "/things/:id",
        params: z.object({ id: z.string() }),
        query: z.object({ dry: z.enum(["yes", "no"]).optional() }),
        body: z.object({ name: z.string() }),
        security: ["bearer"],
        responses: { 201: { description: "created", schema: z.object({ id: z.string() }) }, 404: { description: "missing" } },
        handler: () => json(201, {}),
      }),
      route({ method: "GET", path: "/hidden", internal: true, handler: () => json(200, {}) }),
    ],
  });
  it("derives paths, parameters, bodies, responses and security", () => {
    expect(doc.openapi).toBe("3.1.0");
    const op = doc.paths["/things/{id}"]!.post as Record<string, any>;
    expect(op.parameters).toEqual([
      { name: "id", in: "path", required: true, schema: { type: "string" } },
      { name: "dry", in: "query", required: false, schema: { type: "string", enum: ["yes", "no"] } },
    ]);
    expect(op.requestBody.content["application/json"].schema.required).toEqual(["name"]);
    expect(op.responses["201"].content["application/json"].schema.properties.id).toEqual({ type: "string" });
    expect(op.responses["404"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
    expect(op.security).toEqual([{ bearer: [] }]);
    expect(doc.paths["/hidden"]).toBeUndefined();
    expect(toYaml(doc)).toContain("openapi: 3.1.0");
  });

  it("marks a request body optional when its schema accepts no body, required otherwise", () => {
    const body = (schema: z.ZodType) =>
      (
        buildOpenApi({
          title: "t",
          version: "1",
          routes: [route({ method: "POST", path: "/x", body: schema, handler: () => json(200, {}) })],
        }).paths["/x"]!.post as Record<string, any>
      ).requestBody;
    expect(body(z.object({ reason: z.string() }).optional()).required).toBe(false);
    expect(body(z.object({ reason: z.string().optional() })).required).toBe(true);
    // safeParse throws on an async refinement; the document still builds
    expect(() =>
      z
        .unknown()
        .refine(async () => true)
        .safeParse(undefined),
    ).toThrow();
    expect(body(z.unknown().refine(async () => true)).required).toBe(true);
  });
});

describe("links under a host's mount prefix", () => {
  it("prefixes root-relative Location and every root-relative Link target, nothing else", () => {
    const r = withMountPrefix(
      {
        status: 200,
        headers: {
          location: "/api/x/1",
          link: '</api/conversations/list?cursor=abc>; rel="next", <https://other.example/p>; rel="help", <//cdn/x>; rel="x"',
        },
      },
      "/support/",
    );
    expect(r.headers.location).toBe("/support/api/x/1");
    expect(r.headers.link).toBe(
      '</support/api/conversations/list?cursor=abc>; rel="next", <https://other.example/p>; rel="help", <//cdn/x>; rel="x"',
    );
    const bare = { status: 200, headers: { link: '</a>; rel="next"' } };
    expect(withMountPrefix(bare, "")).toBe(bare);
  });
});
