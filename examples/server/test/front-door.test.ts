// The example server as a process, as an operator starts it: production mode answers 404 at `/`, serves no metrics
// unless asked and prints no credential; development mode prints working credentials and its /metrics shows the
// kit's series after traffic; /readyz turns 503 when the PostgreSQL database under it is dropped.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, pgSkipReason } from "../../../test/sql-targets.js";
import { type ServerProcess, startServer } from "../../../test/storage/server-process.js";

const dirs: string[] = [];
const started: ServerProcess[] = [];
afterAll(async () => {
  for (const s of started) await s.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function server(env: Record<string, string>, nodeFlags: readonly string[] = []): Promise<ServerProcess> {
  const dir = mkdtempSync(join(tmpdir(), "mk-front-door-"));
  dirs.push(dir);
  const s = await startServer({ DATA_DIR: dir, LOG_LEVEL: "info", MOUNTKIT_ENV: "", NODE_ENV: "", ...env }, undefined, nodeFlags);
  started.push(s);
  return s;
}

/** What a credential printed by mistake would look like: a memory key, a JWT, a generated token, a label. */
const CREDENTIAL_SHAPES = [/\bmk_[A-Za-z0-9_-]{20,}/, /eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/, /dev_(agent|spi)_/, /devToken/i, /\btoken:/i, /\bkey\b.*:/i];

describe("production mode", () => {
  it("answers 404 with the kit's error body at /, serves no /metrics, and prints no credential", async () => {
    const s = await server({ MOUNTKIT_ENV: "production" });
    const root = await fetch(`${s.url}/`);
    expect(root.status).toBe(404);
    expect(root.headers.get("content-type")).toMatch(/application\/json/);
    const body = (await root.json()) as { error: string; requestId: string };
    expect(body.error).toBe("no route for GET /");
    expect(body.requestId).toBe(root.headers.get("x-request-id"));
    for (const path of ["/metrics", "/reference/", "/demo/widget/", "/front-door.js"]) expect((await fetch(`${s.url}${path}`)).status, path).toBe(404);
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${s.url}/readyz`)).json()).toEqual({ status: "ready", database: "sqlite" });
    // nothing configured, nothing generated: every credentialed interface refuses
    expect((await fetch(`${s.url}/agent/conversations?productSlug=demo`)).status).toBe(401);
    expect((await fetch(`${s.url}/care/conversations?customerId=c1`)).status).toBe(401);
    expect((await fetch(`${s.url}/v1/episodes`)).status).toBe(401);
    const entries = await fetch(`${s.url}/api/v1/types/countries/data`, {
      method: "POST",
      headers: { authorization: "Bearer anything", "content-type": "application/json" },
      body: "{}",
    });
    expect(entries.status).toBe(401);
    await s.stop();
    const out = s.output();
    expect(out).toContain("listening on");
    for (const shape of CREDENTIAL_SHAPES) expect(out, `printed ${shape}`).not.toMatch(shape);
  });

  it("serves /metrics when MOUNTKIT_METRICS=1 (NODE_ENV=production counts as production)", async () => {
    const s = await server({ NODE_ENV: "production", MOUNTKIT_METRICS: "1" });
    expect((await fetch(`${s.url}/`)).status).toBe(404);
    await fetch(`${s.url}/healthz`);
    const metrics = await fetch(`${s.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/mountkit_http_requests_total\{[^}]*http_route="\/healthz"/);
  });
});

describe("development mode", () => {
  let s: ServerProcess;
  const printed = (label: RegExp) => {
    const m = new RegExp(`${label.source}: (\\S+)`).exec(s.output());
    expect(m, `${label} printed`).not.toBeNull();
    return m![1]!;
  };

  it("prints credentials that work, and /metrics names the kit's series after traffic", async () => {
    s = await server({ MEMORY_DAILY_QUOTA: "3" });
    const root = await fetch(`${s.url}/`);
    expect(root.status).toBe(200);
    expect(root.headers.get("content-security-policy")).toContain("script-src 'self'");
    const page = await root.text();
    const memoryKey = printed(/memory key \(brain "dev"\)/);
    const agentToken = printed(/agent token \(inbox sign-in\)/);
    const spiToken = printed(/SPI token \(\/care\)/);
    const entriesToken = printed(/entries token/);
    for (const c of [memoryKey, agentToken, spiToken, entriesToken]) expect(page).toContain(c);

    const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
    expect((await fetch(`${s.url}/agent/conversations?productSlug=demo`, { headers: bearer(agentToken) })).status).toBe(200);
    expect((await fetch(`${s.url}/care/conversations?customerId=cust_00000000-0000-4000-8000-000000000000`, { headers: bearer(spiToken) })).status).toBe(200);
    expect((await fetch(`${s.url}/api/v1/types`, { headers: bearer(entriesToken) })).status).toBe(200);
    const episode = () =>
      fetch(`${s.url}/v1/episodes`, {
        method: "POST",
        headers: { ...bearer(memoryKey), "content-type": "application/json" },
        body: JSON.stringify({ content: "Ada joined Acme in 2021." }),
      });
    expect((await episode()).status).toBe(202);
    // past the daily quota of 3: refusals counted
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await episode()).status);
    expect(statuses).toContain(429);
    // an open SSE stream
    const stream = new AbortController();
    const sse = await fetch(`${s.url}/agent/conversations/stream?productSlug=demo`, { headers: bearer(agentToken), signal: stream.signal });
    expect(sse.headers.get("content-type")).toMatch(/text\/event-stream/);

    // extraction runs in the background: wait for its lag (recorded by the pipeline once the commit lands) and for
    // the job's duration (recorded by the queue after that, once the job is marked done)
    const seriesIn = (t: string, name: string, labels: Record<string, string> = {}) =>
      t.split("\n").some((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
    const recorded = (t: string) =>
      seriesIn(t, "mountkit_memory_extraction_lag_count", { mountkit_outcome: "done" }) &&
      seriesIn(t, "mountkit_queue_job_duration_count", { mountkit_queue: "memory.extract", mountkit_job_outcome: "done" });
    let text = "";
    for (let i = 0; i < 100 && !recorded(text); i++) {
      text = await (await fetch(`${s.url}/metrics`)).text();
      if (!recorded(text)) await new Promise((r) => setTimeout(r, 100));
    }
    stream.abort();
    const series = (name: string, labels: Record<string, string> = {}) => seriesIn(text, name, labels);
    expect(series("mountkit_http_requests_total", { mountkit_service: "memory", http_route: "/v1/episodes", http_request_method: "POST", http_response_status_class: "2xx" })).toBe(true);
    expect(series("mountkit_http_requests_total", { mountkit_service: "memory", http_route: "/v1/episodes", http_response_status_class: "4xx" })).toBe(true);
    expect(series("mountkit_http_request_duration_bucket", { mountkit_service: "support", http_route: "/agent/conversations" })).toBe(true);
    expect(series("mountkit_limiter_refusals_total", { mountkit_service: "memory", mountkit_error: "quota_exceeded" })).toBe(true);
    expect(series("mountkit_sse_streams_open", { mountkit_service: "support" })).toBe(true);
    expect(series("mountkit_queue_depth", { mountkit_queue: "memory.extract", mountkit_job_state: "queued" })).toBe(true);
    expect(series("mountkit_queue_job_age_count", { mountkit_queue: "memory.extract" })).toBe(true);
    expect(series("mountkit_queue_job_duration_count", { mountkit_queue: "memory.extract", mountkit_job_outcome: "done" })).toBe(true);
    expect(series("mountkit_memory_extraction_lag_count", { mountkit_outcome: "done" })).toBe(true);
  });
});

describe("a host started with Node's own flags", () => {
  // V8's and the process's options, which Node refuses in a worker thread's execArgv: the kit's SQLite and extraction
  // threads must start without them (they apply to every thread anyway), not take the host down
  const FLAGS = ["--max-old-space-size=768", "--max-semi-space-size=32", "--stack-trace-limit=50", "--expose-gc", "--title", "mountkit-host"];

  it("starts, stores an episode and extracts it on its threads, which never run the host's preloads", async () => {
    // a preload in NODE_OPTIONS, as a tracing SDK is started (`--require @opentelemetry/auto-instrumentations-node/register`):
    // it must run in the host's thread only, not again in each of the kit's
    const dir = mkdtempSync(join(tmpdir(), "mk-preload-"));
    dirs.push(dir);
    const preload = join(dir, "preload.cjs");
    const ran = join(dir, "ran.txt");
    // each thread it runs in writes its id, and whether it is Node's own module-hooks thread (`--import tsx` here):
    // `isInternalThread` from Node 22.14, and on Node 20 that thread is always the first started (id 1)
    writeFileSync(
      preload,
      `const w = require("node:worker_threads"); require("node:fs").appendFileSync(${JSON.stringify(ran)}, JSON.stringify([w.threadId, w.isInternalThread]) + "\\n");`,
    );
    const s = await server({ NODE_OPTIONS: `--require "${preload}" --stack-trace-limit=40` }, FLAGS);
    // the credentials are printed with the page's, after "listening on"
    expect((await fetch(`${s.url}/`)).status).toBe(200);
    const key = /memory key \(brain "dev"\): (\S+)/.exec(s.output())?.[1];
    expect(key, "memory key printed").toBeDefined();
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const posted = await fetch(`${s.url}/v1/episodes`, { method: "POST", headers, body: JSON.stringify({ content: "Ada joined Acme in 2021." }) });
    expect(posted.status).toBe(202);
    const { id } = (await posted.json()) as { id: string };
    let status = "";
    for (let i = 0; i < 200 && status !== "done" && status !== "failed"; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 50));
      status = ((await (await fetch(`${s.url}/v1/episodes/${id}`, { headers })).json()) as { status: string }).status;
    }
    expect(status).toBe("done");
    const recall = await fetch(`${s.url}/v1/recall`, { method: "POST", headers, body: JSON.stringify({ query: "Where does Ada work?" }) });
    expect(JSON.stringify(await recall.json())).toContain("Acme");
    await s.stop();
    expect(s.output()).not.toMatch(/ERR_WORKER_INVALID_EXEC_ARGV|invalid execArgv/);
    const threads = readFileSync(ran, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as [number, boolean | null]);
    expect(threads[0]![0]).toBe(0);
    const kits = threads.slice(1).filter(([id, internal]) => internal !== true && !(internal === null && id === 1));
    expect(kits, "threads other than the host's and Node's own ran the host's preload").toEqual([]);
  });
});

// Skipped only where no PostgreSQL cluster could be started (no initdb/pg_ctl): the reason is printed and in the title;
// under CI=true pgSkipReason() throws instead, so CI always runs it.
const pgSkip = pgSkipReason();
if (pgSkip) console.log(`[mountkit] skipping /readyz on PostgreSQL: ${pgSkip}`);
describe.skipIf(pgSkip !== null)(`/readyz on PostgreSQL${pgSkip ? ` (skipped: ${pgSkip})` : ""}`, () => {
  it("answers 200 while the database is there and 503 with the kit's error body once it is dropped", async () => {
    const db = await createTestDatabase("postgres");
    const s = await server({ ...db.env, MOUNTKIT_ENV: "production" });
    try {
      const ready = await fetch(`${s.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: "ready", database: "postgres" });
      await db.drop();
      const gone = await fetch(`${s.url}/readyz`).catch((e) => {
        throw new Error(`the server is gone after the drop: ${s.output().slice(-3000)}`, { cause: e });
      });
      expect(gone.status).toBe(503);
      const body = (await gone.json()) as { error: string; details: { reason: string }; requestId: string };
      expect(body.error).toBe("database not reachable");
      expect(body.details.reason).not.toBe("");
      expect(body.requestId).toBe(gone.headers.get("x-request-id"));
      // the process itself is alive
      expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    } finally {
      await s.stop();
      await db.drop();
    }
  });
});
