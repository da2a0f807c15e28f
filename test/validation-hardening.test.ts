// The validation address under hostile documents (issue #10, break 1), under Express, Fastify and fetch on real
// sockets: alias bombs and deep documents answer 422 naming the limit, a slow document times out with 422, and the
// server keeps answering other requests while a large document is validated in the worker pool; past the pool's queue
// a document gets the service's 503, and one needing more than the worker heap cap gets 422 naming that limit.
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
    // one thread and one waiting place: a burst of large documents overflows the queue
    createEntriesService({ auth, basePath: "/busy", validation: { maxThreads: 1, maxQueue: 1, inlineBelowBytes: 0 } }),
    // a worker heap far below what a multi-MB document needs
    createEntriesService({ auth, basePath: "/small", validation: { maxMemoryMb: 8, inlineBelowBytes: 0 } }),
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

    // a small document with a YAML anchor always goes to a worker; a burst of them reaches the pool within a few ms,
    // while its one thread is still starting, so most must wait and the queue (1 place) overflows
    const anchored = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\nx-a: &a 1\nx-b: *a\n";

    it("a burst past the pool's queue gets the service's 503 for the overflow, and the rest are judged", async () => {
      const answers = await Promise.all(Array.from({ length: 12 }, () => validate(anchored, "/busy")));
      const statuses = answers.map((r) => r.status);
      expect(
        statuses.every((s) => s === 200 || s === 503),
        statuses.join(","),
      ).toBe(true);
      expect(statuses.filter((s) => s === 200).length, statuses.join(",")).toBeGreaterThan(0);
      expect(statuses.filter((s) => s === 503).length, statuses.join(",")).toBeGreaterThan(0);
      for (const r of answers.filter((x) => x.status === 503)) {
        expect(r.body).toEqual({ error: expect.stringMatching(/unavailable/), requestId: expect.any(String) });
        expect(r.headers.get("x-request-id")).toBe(r.body.requestId);
      }
      // the queue drains: the next document is judged again
      expect((await validate(anchored, "/busy")).status).toBe(200);
    }, 120_000);

    it("a heap cap too small for a document answers 422 naming the limit, never hangs or crashes, and other pools serve", async () => {
      const r = await validate(big, "/small", "application/json");
      expect(r.status, r.text).toBe(422);
      expect(r.body).toEqual({ valid: false, errors: [{ path: "", message: expect.stringMatching(/^too large: .*maxMemoryMb 8\)/) }] });
      // the next document gets a fresh pool and the same answer, not a request that waits forever
      const again = await validate(anchored, "/small");
      expect(again.status, again.text).toBe(422);
      expect(again.body.errors[0].message).toMatch(/maxMemoryMb 8\)/);
      expect((await validate(anchored)).status).toBe(200);
    }, 120_000);
  },
);
