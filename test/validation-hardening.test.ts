// The validation address under hostile documents (issue #10, break 1), under Express, Fastify and fetch on real
// sockets: alias bombs and deep documents answer 422 naming the limit, a slow document times out with 422, and the
// server keeps answering other requests while a large document is validated in the worker pool.
import { createEntriesService, jwtVerifier } from "@mountkit/entries";
import { expect, it } from "vitest";
import { aliasBomb, deepJsonSpec } from "../packages/entries/test/fixtures/hostile-specs.js";
import { generateSpec } from "../packages/entries/test/fixtures/spec-generator.js";
import { call, forEachAdapter } from "./harness.js";

const auth = jwtVerifier({ secret: "entries-hardening-secret-0123456789abcdef" });
const big = JSON.stringify(generateSpec({ endpoints: 414, version: "1", format: "3.0", extraSchemas: 300 }).document);

forEachAdapter(
  "validation address hardening",
  () => [
    createEntriesService({ auth }),
    // a time limit no multi-MB document can meet, and no inline shortcut: every document goes to a worker
    createEntriesService({ auth, basePath: "/slow", validation: { timeoutMs: 1, inlineBelowBytes: 0 } }),
  ],
  (t) => {
    const validate = (body: string, prefix = "", contentType = "application/yaml") =>
      call(`${t.url}${prefix}/api/dev/validate-openapi/`, { method: "POST", rawBody: body, headers: { "content-type": contentType } });

    it("a 1.2 KB YAML alias bomb answers 422 naming the alias limit", async () => {
      const bomb = aliasBomb();
      expect(bomb.length).toBeLessThan(1600);
      const r = await validate(bomb);
      expect(r.status).toBe(422);
      expect(r.body.valid).toBe(false);
      expect(r.body.errors[0].message).toMatch(/^too aliased: .*maxAliasedNodes/);
      // the same bomb as a worker task (no inline shortcut) is refused the same way
      const w = await validate(bomb, "/slow");
      expect(w.status).toBe(422);
      expect(w.body.errors[0].message).toMatch(/too aliased|too slow/);
    }, 60_000);

    it("a 5,000-deep schema answers 422 naming the depth limit, not 500", async () => {
      const r = await validate(deepJsonSpec(5000), "", "application/json");
      expect(r.status).toBe(422);
      expect(r.body.errors[0].message).toMatch(/^too deep: .*maxDepth/);
      expect(r.text).not.toMatch(/RangeError|stack/i);
    }, 60_000);

    it("a document over the time limit answers 422 naming it", async () => {
      const r = await validate(big, "/slow", "application/json");
      expect(r.status).toBe(422);
      expect(r.body).toEqual({ valid: false, errors: [{ path: "", message: expect.stringMatching(/^too slow: .*timeoutMs 1\)/) }] });
    }, 60_000);

    it("other requests are answered while a large document is validated", async () => {
      let validatedAt = 0;
      const pending = validate(big, "", "application/json").then((r) => {
        validatedAt = performance.now();
        return r;
      });
      const answeredAt: number[] = [];
      while (!validatedAt && answeredAt.length < 200) {
        const r = await call(`${t.url}/api/v1/types/countries/openapi.json`);
        expect(r.status).toBe(200);
        answeredAt.push(performance.now());
      }
      const r = await pending;
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ valid: true, endpoints: 414 });
      expect(answeredAt.filter((at) => at < validatedAt).length).toBeGreaterThan(0);
    }, 60_000);
  },
);
