// The spec worker pool: the caller's buffer (over 4 KB, so not in Node's shared slab) stays usable, since only a copy moves
// to the worker; destroy and restart work.
import { describe, expect, it } from "vitest";
import { specPool } from "@mountkit/entries";

const doc = Buffer.from(
  JSON.stringify({
    openapi: "3.1.0",
    info: { title: "T", version: "1" },
    paths: { "/a": { get: { responses: { "200": { description: "ok" } } } } },
  }),
);

describe("spec pool", () => {
  it("validates a Buffer in a worker without detaching it, twice, and again after destroy", async () => {
    const pool = specPool({ inlineBelowBytes: 0, maxThreads: 1 });
    try {
      const first = await pool.validate(doc);
      expect(first.answer).toMatchObject({ valid: true, endpoints: 1 });
      expect(doc.byteLength).toBeGreaterThan(0);
      expect(JSON.parse(doc.toString("utf8")).info.title).toBe("T");
      expect((await pool.validate(doc)).answer).toMatchObject({ valid: true, endpoints: 1 });
      await pool.destroy();
      expect((await pool.validate(doc)).inventory?.operations).toEqual([{ method: "GET", path: "/a" }]);
    } finally {
      await pool.destroy();
    }
  }, 60_000);
});
