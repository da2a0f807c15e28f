// The OpenAPI YAML made in slices is the same text as the one made in one go, and gives the event loop turns.
import { toYaml, toYamlSliced } from "@mountkit/core";
import { load } from "js-yaml";
import { describe, expect, it } from "vitest";

const tricky = {
  openapi: "3.1.0",
  info: { title: "t: with colon", version: "1.0", description: "line one\nline two\n\nafter a blank line\n" },
  servers: [{ url: "/base" }],
  paths: {
    "/v1/{id}": {
      get: { summary: "yes", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }] },
    },
    "/empty": {},
    "/odd key: #1": { post: { description: "- a list-like string", responses: { "200": { description: "" } } } },
  },
  components: { schemas: { A: { type: ["integer", "null"], enum: [1, 2, null] }, "B-b": { type: "object", properties: {} } } },
  "x-null": null,
  "x-num": 12.5,
};

function large(paths: number) {
  const doc: Record<string, unknown> = { openapi: "3.1.0", info: { title: "big", version: "1" }, paths: {}, components: { schemas: {} } };
  for (let i = 0; i < paths; i++) {
    (doc.paths as Record<string, unknown>)[`/r${i}/{id}`] = {
      get: { operationId: `get${i}`, description: `route ${i}\nsecond line`, responses: { 200: { $ref: `#/components/schemas/S${i}` } } },
    };
    (doc.components as { schemas: Record<string, unknown> }).schemas[`S${i}`] = {
      type: "object",
      required: ["a"],
      properties: { a: { type: "string", maxLength: i }, b: { type: "array", items: { type: "number" } } },
    };
  }
  return doc;
}

describe("toYamlSliced", () => {
  it("writes the same text as toYaml, which reads back as the document", async () => {
    for (const doc of [tricky, large(50)]) {
      const sliced = await toYamlSliced(doc);
      expect(sliced).toBe(toYaml(doc));
      expect(load(sliced)).toEqual(JSON.parse(JSON.stringify(doc)));
    }
  });

  it("lets timers run while it writes a large document", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    try {
      await toYamlSliced(large(3000), 1);
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(2);
  });
});
