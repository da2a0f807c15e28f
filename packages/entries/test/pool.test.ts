// The spec worker pool: the caller's buffer (over 4 KB, so not in Node's shared slab) stays usable, since only a copy moves
// to the worker, unless the caller hands it over (`transfer`); destroy and restart work.

import { readdirSync, readFileSync } from "node:fs";
import { getPriority } from "node:os";
import { specPool } from "@mountkit/entries/node";
import { describe, expect, it } from "vitest";

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

  it("moves a handed-over buffer to the worker without a copy, and still copies a view of a larger one", async () => {
    const pool = specPool({ inlineBelowBytes: 0, maxThreads: 1 });
    try {
      const own = new Uint8Array(doc);
      expect((await pool.validate(own, { transfer: true })).answer).toMatchObject({ valid: true, endpoints: 1 });
      // moved: the caller's view is detached
      expect(own.byteLength).toBe(0);
      // a view over part of a buffer (a socket chunk, a slab) is never moved: it would detach bytes that are not the caller's
      const backing = new Uint8Array(doc.byteLength + 16);
      backing.set(doc, 8);
      const view = backing.subarray(8, 8 + doc.byteLength);
      expect((await pool.validate(view, { transfer: true })).answer).toMatchObject({ valid: true, endpoints: 1 });
      expect(view.byteLength).toBe(doc.byteLength);
      expect(backing.byteLength).toBe(doc.byteLength + 16);
    } finally {
      await pool.destroy();
    }
  }, 60_000);

  /** Nice values of this process's threads (Linux: field 19 of /proc/self/task/<tid>/stat, after the command name). */
  const threadNices = () =>
    readdirSync("/proc/self/task").map((tid) => {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
    });

  it.runIf(process.platform === "linux")(
    "runs its worker threads below the event loop's CPU priority, unless told not to",
    async () => {
      const base = getPriority();
      const lowered = Math.min(19, base + 7);
      const quiet = specPool({ inlineBelowBytes: 0, maxThreads: 1, lowerPriorityBy: 7 });
      try {
        expect(threadNices()).not.toContain(lowered);
        expect((await quiet.validate(doc)).answer).toMatchObject({ valid: true });
        // the worker stays alive (idle timeout): exactly one thread runs at the lowered priority, the rest as before
        expect(threadNices().filter((n) => n === lowered)).toHaveLength(1);
      } finally {
        await quiet.destroy();
      }
      const plain = specPool({ inlineBelowBytes: 0, maxThreads: 1, lowerPriorityBy: 0 });
      try {
        expect((await plain.validate(doc)).answer).toMatchObject({ valid: true });
        expect(threadNices()).not.toContain(lowered);
      } finally {
        await plain.destroy();
      }
    },
    60_000,
  );
});
