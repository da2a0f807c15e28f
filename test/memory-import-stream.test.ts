// POST /v1/import reads its body as it arrives (core `bodyMode: "stream"`) under Express, Fastify and fetch: a JSON Lines
// body of ~40 MB imports while the process's memory grows by a fraction of it, a body past the route's limit answers
// 413 mid-stream, a bad line 400, each in the service's error body. On a SQLite file, so the imported records do not
// sit in the heap either. The client streams from a child process (fixtures/import-client.mjs): its buffers counted in this
// process's memory made the measure swing by megabytes from run to run.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createMemoryService, type MemoryService } from "@mountkit/memory";
import { allMigrations, type SqlDatabase, sqlMemoryStore } from "@mountkit/sql";
import { afterAll, expect, it } from "vitest";
import { call, forEachAdapter } from "./harness.js";
import { createTestDatabase, type TestDatabase } from "./sql-targets.js";

const MiB = 1024 * 1024;
const LIMIT = 48 * MiB;
/** The client (fixtures/import-client.mjs): lines of ~64 KiB, 640 of them make a ~40 MB body (few records: the store's write rate is not under test). */
const CLIENT = fileURLToPath(new URL("./fixtures/import-client.mjs", import.meta.url));
// a full collection before each sample: what is measured is what the process holds, not garbage not yet collected.
// Twice: V8 (Node 22 and 24 most) frees a collection's dead ArrayBuffers on a background sweeper after it returns, so
// right after one collection `arrayBuffers` still counts the socket chunks already read and dropped (spikes of 4 to 14
// MiB in one sample). The next collection, a young-generation one (a full one more held this process's server loop
// past the loop-delay guard on a loaded machine), waits for that sweep before it starts.
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as (options?: { type: "major" | "minor" }) => void;
const gc = () => {
  collect();
  collect({ type: "minor" });
};
const keyOf = (brain: string) => `mk_test_stream_${brain}_0123456789`;

const opened: { target: TestDatabase; db: SqlDatabase; s: MemoryService }[] = [];
afterAll(async () => {
  for (const o of opened) {
    await o.db.close();
    await o.target.drop();
  }
});

/**
 * POSTs an export of `n` copies of `episode` (new ids, ~64 KiB of padded metadata each) and `extra` lines, streamed
 * (chunked) from a child process: the body and the client's buffers are never in this process, whose memory is measured.
 */
async function postExport(
  url: string,
  key: string,
  input: { header: string; episode: Record<string, unknown>; n: number; extra?: string[] },
): Promise<{ status: number; body: any; sent: number }> {
  const child = spawn(process.execPath, [CLIENT], { stdio: ["pipe", "pipe", "inherit"] });
  child.stdin.end(JSON.stringify({ url, key, ...input }));
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => {
    out += c;
  });
  const code = await new Promise<number | null>((r) => child.once("close", r));
  if (code !== 0) throw new Error(`the import client exited with ${code}`);
  return JSON.parse(out);
}

forEachAdapter(
  "memory import streamed",
  async () => {
    const target = await createTestDatabase("sqlite");
    const db = await target.open({ migrations: [...allMigrations] });
    const s = createMemoryService({ store: sqlMemoryStore(db), dailyQuota: 100_000, worker: { pollMs: 20 }, importBodyLimit: LIMIT });
    opened.push({ target, db, s });
    for (const b of ["src", "big", "over", "bad"]) await s.keys.create({ brainId: b, key: keyOf(b) });
    return [s];
  },
  (t) => {
    /** An export of a one-episode brain: its header line and its episode, the template of the bodies below. */
    async function template() {
      const auth = { authorization: `Bearer ${keyOf("src")}` };
      let lines = (await call(`${t.url}/v1/export`, { headers: auth })).text.split("\n").filter(Boolean);
      if (!lines.some((l) => l.startsWith('{"type":"episode"'))) {
        const r = await call(`${t.url}/v1/episodes`, { method: "POST", headers: auth, body: { content: "Marta met Omar at Acme." } });
        expect(r.status, JSON.stringify(r.body)).toBe(202);
        lines = (await call(`${t.url}/v1/export`, { headers: auth })).text.split("\n").filter(Boolean);
      }
      const episode = JSON.parse(lines.find((l) => l.startsWith('{"type":"episode"'))!);
      return { header: lines[0]!, episode: { ...episode, status: "done" } };
    }

    it("a ~40 MB import succeeds while the process's memory grows by a fraction of the body", async () => {
      const { header, episode } = await template();
      const n = 640;
      const mem = () => {
        gc();
        const m = process.memoryUsage();
        return m.heapUsed + m.arrayBuffers;
      };
      const before = mem();
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, mem());
      }, 250);
      let r: Awaited<ReturnType<typeof postExport>>;
      try {
        r = await postExport(`${t.url}/v1/import`, keyOf("big"), { header, episode, n });
      } finally {
        clearInterval(sampler);
      }
      peak = Math.max(peak, mem());
      const growth = peak - before;
      console.log(
        `[${t.framework}] import of ${(r.sent / MiB).toFixed(1)} MiB: peak live heapUsed+arrayBuffers growth ${(growth / MiB).toFixed(1)} MiB`,
      );
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.counts.episodes).toBe(n);
      expect(r.sent).toBeGreaterThan(40 * 1000 * 1000);
      // a body read whole would hold all of it (and its text) at once: the bound is well below the body's size
      expect(growth).toBeLessThan(r.sent / 4);
      const listed = await call(`${t.url}/v1/episodes?limit=1`, { headers: { authorization: `Bearer ${keyOf("big")}` } });
      expect(listed.body.items).toHaveLength(1);
    }, 120_000);

    it("a streamed body past the route's limit answers 413 in the error body", async () => {
      const { header, episode } = await template();
      const r = await postExport(`${t.url}/v1/import`, keyOf("over"), { header, episode, n: 1_000 });
      expect(r.status, JSON.stringify(r.body)).toBe(413);
      expect(r.body).toMatchObject({ details: { limit: LIMIT } });
    }, 120_000);

    it("a bad line answers 400 naming the line, in the error body", async () => {
      const { header, episode } = await template();
      const r = await postExport(`${t.url}/v1/import`, keyOf("bad"), { header, episode, n: 3, extra: ["{not json"] });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error).toBe("line 5: not JSON");
      expect(r.body.details).toEqual([{ path: "line 5", message: "not JSON" }]);
    });
  },
);
