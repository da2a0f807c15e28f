// The spec pool's child processes: the caller's buffer stays usable; destroy and restart work; a document past the heap
// cap, a process killed from outside and one past the time limit each end one process and never the host; the
// processes run below the host's CPU priority.

import { readdirSync, readFileSync } from "node:fs";
import { getEventListeners } from "node:events";
import { getPriority } from "node:os";
import { SpecPoolBusyError } from "@mountkit/entries";
import { specPool } from "@mountkit/entries/node";
import { describe, expect, it } from "vitest";
import { generateSpec } from "./fixtures/spec-generator.js";

const doc = Buffer.from(
  JSON.stringify({
    openapi: "3.1.0",
    info: { title: "T", version: "1" },
    paths: { "/a": { get: { responses: { "200": { description: "ok" } } } } },
  }),
);

const big = Buffer.from(JSON.stringify(generateSpec({ endpoints: 414, version: "1", format: "3.0", extraSchemas: 300 }).document));
/** 12 MB of text that parses into 1.5 million objects: far more heap than 32 MB, in any Node version. */
const heavy = Buffer.from(
  `{"openapi":"3.1.0","info":{"title":"T","version":"1"},"paths":{},"x-blob":[${Array.from({ length: 1_500_000 }, () => '{"a":1}').join(",")}]}`,
);

/** A document whose one schema lives in another document, `schemas.json` beside it. */
const withRef = Buffer.from(
  JSON.stringify({
    openapi: "3.1.0",
    info: { title: "T", version: "1" },
    paths: {
      "/a": {
        get: { responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "schemas.json#/Pet" } } } } } },
      },
    },
  }),
);

/** Field `i` (1-based, as in proc(5)) of a /proc stat line; fields after the command name split on spaces. */
const statField = (stat: string, i: number) => stat.slice(stat.lastIndexOf(")") + 2).split(" ")[i - 3];

/** Pids of this process's children running the spec worker (Linux /proc; elsewhere none are seen). */
function specChildren(): number[] {
  let pids: string[] = [];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  return pids.map(Number).filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return Number(statField(stat, 4)) === process.pid && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("spec-worker");
    } catch {
      return false;
    }
  });
}

/** Nice values of a process's threads (field 19 of /proc/<pid>/task/<tid>/stat). */
const threadNices = (pid: number | "self") =>
  readdirSync(`/proc/${pid}/task`).map((tid) => Number(statField(readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8"), 19)));

describe("spec pool", () => {
  it("validates a Buffer in a process without detaching it, twice, and again after destroy", async () => {
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

  it("external documents are fetched by the parent under the caller's fetcher, and a failed fetch is a warning", async () => {
    const pool = specPool({ inlineBelowBytes: 0, maxThreads: 1 });
    const baseUrl = "https://example.test/api/openapi.json";
    try {
      const asked: string[] = [];
      const fetched = await pool.validate(withRef, {
        baseUrl,
        fetchDocument: async (url) => {
          asked.push(url.href);
          return Buffer.from(JSON.stringify({ Pet: { type: "object" } }));
        },
      });
      expect(asked).toEqual(["https://example.test/api/schemas.json"]);
      expect(fetched.answer).toMatchObject({ valid: true, endpoints: 1, warnings: [] });
      const refused = await pool.validate(withRef, {
        baseUrl,
        fetchDocument: async () => {
          throw new Error("answered 404");
        },
      });
      expect(refused.answer).toMatchObject({
        valid: true,
        warningCount: 1,
        warnings: [{ message: "could not load https://example.test/api/schemas.json: answered 404" }],
      });
    } finally {
      await pool.destroy();
    }
  }, 60_000);

  it("a fetcher that throws at once or rejects with a non-error is a warning; a queued document's abort listener goes", async () => {
    const pool = specPool({ inlineBelowBytes: 0, maxThreads: 1 });
    try {
      const thrown = await pool.validate(withRef, {
        baseUrl: "https://example.test/api/openapi.json",
        fetchDocument: () => {
          throw new Error("thrown at once");
        },
      });
      expect(thrown.answer).toMatchObject({ valid: true, warnings: [{ message: expect.stringMatching(/thrown at once$/) }] });
      const odd = await pool.validate(withRef, {
        baseUrl: "https://example.test/api.json",
        fetchDocument: () => Promise.reject(undefined),
      });
      expect(odd.answer).toMatchObject({ valid: true, warningCount: 1 });
      // one process: the second document waits in the queue with the caller's long-lived signal, then runs
      const signal = new AbortController().signal;
      const answers = await Promise.all([pool.validate(doc, { signal }), pool.validate(doc, { signal })]);
      expect(answers.map((a) => a.answer.valid)).toEqual([true, true]);
      expect(getEventListeners(signal, "abort")).toHaveLength(0);
    } finally {
      await pool.destroy();
    }
  }, 60_000);

  it("a document past the heap cap ends its own process, never the host: 422 naming the cap, then a fresh process judges", async () => {
    const pool = specPool({ inlineBelowBytes: 0, maxThreads: 1, maxMemoryMb: 32 });
    try {
      expect((await pool.validate(doc)).answer).toMatchObject({ valid: true, endpoints: 1 });
      const before = specChildren();
      expect(before).toHaveLength(1);
      const r = await pool.validate(heavy);
      expect(r.answer).toEqual({ valid: false, errors: [{ path: "", message: expect.stringMatching(/^too large: .*maxMemoryMb 32\)/) }] });
      // the small document is judged, by a process that did not exist before
      expect((await pool.validate(doc)).answer).toMatchObject({ valid: true, endpoints: 1 });
      const now = specChildren();
      expect(now).toHaveLength(1);
      expect(before).not.toContain(now[0]);
    } finally {
      await pool.destroy();
    }
    expect(specChildren()).toEqual([]);
  }, 60_000);

  it("a process killed from outside mid-document answers not judged (busy), and the pool carries on", async () => {
    const pool = specPool({ inlineBelowBytes: 0, maxThreads: 1 });
    try {
      expect((await pool.validate(doc)).answer).toMatchObject({ valid: true });
      const [pid] = specChildren();
      const pending = pool.validate(big);
      await new Promise((r) => setTimeout(r, 50));
      process.kill(pid!, "SIGKILL");
      await expect(pending).rejects.toBeInstanceOf(SpecPoolBusyError);
      expect((await pool.validate(doc)).answer).toMatchObject({ valid: true });
    } finally {
      await pool.destroy();
    }
  }, 60_000);

  it("past the time limit the process is killed and the document answers 422; destroy answers waiting documents busy", async () => {
    const pool = specPool({ inlineBelowBytes: 0, maxThreads: 1, timeoutMs: 1 });
    try {
      const r = await pool.validate(big);
      expect(r.answer).toEqual({ valid: false, errors: [{ path: "", message: expect.stringMatching(/^too slow: .*timeoutMs 1\)/) }] });
    } finally {
      await pool.destroy();
    }
    const slow = specPool({ inlineBelowBytes: 0, maxThreads: 1 });
    const answers = Promise.allSettled([slow.validate(big), slow.validate(doc)]);
    await slow.destroy();
    const [running, waiting] = await answers;
    expect(running).toMatchObject({ status: "rejected", reason: expect.any(SpecPoolBusyError) });
    expect(waiting).toMatchObject({ status: "rejected", reason: expect.any(SpecPoolBusyError) });
    expect(specChildren()).toEqual([]);
  }, 60_000);

  it.runIf(process.platform === "linux")(
    "runs its processes, every thread of them, below the event loop's CPU priority, unless told not to",
    async () => {
      const base = getPriority();
      const lowered = Math.min(19, base + 7);
      const quiet = specPool({ inlineBelowBytes: 0, maxThreads: 1, lowerPriorityBy: 7 });
      try {
        expect((await quiet.validate(doc)).answer).toMatchObject({ valid: true });
        // the process stays alive (idle timeout); its threads all run at the lowered priority, the host's as before
        const [pid] = specChildren();
        expect(threadNices(pid!).length).toBeGreaterThan(1);
        expect(new Set(threadNices(pid!))).toEqual(new Set([lowered]));
        expect(threadNices("self")).not.toContain(lowered);
      } finally {
        await quiet.destroy();
      }
      const plain = specPool({ inlineBelowBytes: 0, maxThreads: 1, lowerPriorityBy: 0 });
      try {
        expect((await plain.validate(doc)).answer).toMatchObject({ valid: true });
        const [pid] = specChildren();
        expect(new Set(threadNices(pid!))).toEqual(new Set([base]));
      } finally {
        await plain.destroy();
      }
    },
    60_000,
  );
});
