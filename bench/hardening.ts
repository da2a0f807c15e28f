// Hardening benchmark (issue #10): what one hostile client can do to the server. Each figure is its own function so
// further figures (stalled uploads, ...) are added beside them; every figure uses a fresh server process. Issue 24's
// figures (the host's unrelated latency per scenario, throughput) are in hardening-host.ts, run after these.
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { aliasBomb } from "../packages/entries/test/fixtures/hostile-specs.js";
import { runHostSafety } from "./hardening-host.js";
import { arg, type Child, now, percentile, pinning, spawnTarget, table } from "./lib.js";
import { maximumSpec } from "./servers/maximum-spec.js";

/** POST a document to the validation address; resolves with the status once the answer is read. */
function post(url: string, body: Buffer, contentType: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/api/dev/validate-openapi/`,
      { method: "POST", headers: { "content-type": contentType }, agent: false },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = now();
    request(url, (res) => {
      res.resume();
      res.on("end", () => resolve(now() - t0));
    })
      .on("error", reject)
      .end();
  });
}

async function withTarget<T>(fn: (t: Child, generatorCpu: string | undefined) => Promise<T>): Promise<T> {
  const pins = pinning();
  const target = await spawnTarget("./servers/hardening-target.ts", ["fastify"], {}, pins?.target);
  try {
    return await fn(target, pins?.generator);
  } finally {
    await target.stop();
  }
}

async function rss(t: Child): Promise<{ now: number; peak: number }> {
  t.send("rss");
  const [, n, p] = (await t.expect("rss ")).split(" ");
  return { now: Number(n), peak: Number(p) };
}

/** The target's own event-loop delay since the last call: what the latency target is about, without network or client noise. */
async function eventLoopDelay(t: Child): Promise<{ p50: number; p99: number; max: number }> {
  t.send("eld");
  const [, p50, p99, max] = (await t.expect("eld ")).split(" ").map(Number);
  return { p50: p50!, p99: p99!, max: max! };
}

interface Phase {
  phase: string;
  requests: number;
  p50: number;
  p99: number;
  max: number;
  loopP99: number;
  loopMax: number;
  load: string;
}

/** Back-to-back unrelated GETs for `seconds`, with the target's event-loop delay over the same window. */
async function measure(t: Child, phase: string, seconds: number): Promise<Phase> {
  const path = `${t.url}/api/v1/types/countries/openapi.json`;
  await eventLoopDelay(t);
  const latencies: number[] = [];
  const until = now() + seconds * 1000;
  while (now() < until) latencies.push(await get(path));
  const loop = await eventLoopDelay(t);
  latencies.sort((a, b) => a - b);
  return {
    phase,
    requests: latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1]!,
    loopP99: loop.p99,
    loopMax: loop.max,
    load: readFileSync("/proc/loadavg", "utf8").split(" ")[0]!,
  };
}

/**
 * Figure 1: p50/p99 of an unrelated GET, first with no other load, then while 2 clients post alias bombs, 5,000-deep
 * schemas and maximum-size specs, against the same target in one run. The hostile clients are another process (on the
 * load generator's CPUs), so building and sending 16 MB bodies never delays the latency client.
 */
export async function unrelatedLatencyUnderHostileDocuments(seconds: number) {
  return withTarget(async (t, generatorCpu) => {
    // warm the entries type's document and the pool (worker start, schema compile): steady state, not the first call
    await measure(t, "warm-up", 1);
    const idle = await measure(t, "no hostile load", seconds);
    const hostile = await spawnTarget("./servers/hostile-client.ts", [t.url, "2"], {}, generatorCpu);
    let statuses = "";
    try {
      // the clients build their documents first; the figure starts once the first bodies are on the wire
      await new Promise((r) => setTimeout(r, 2000));
      const attacked = await measure(t, "2 hostile clients", seconds);
      const done = hostile.expect("statuses ");
      hostile.proc.stdin!.end();
      statuses = (await done).slice("statuses ".length);
      return { idle, attacked, statuses };
    } finally {
      await hostile.stop();
    }
  });
}

/** Figure 3: server RSS before and at peak while 4 maximum-size specs are validated at once. */
export async function memoryWithConcurrentMaximumSpecs(big: Buffer) {
  return withTarget(async (t) => {
    await post(t.url, Buffer.from(aliasBomb(2, 2)), "application/yaml");
    const before = await rss(t);
    const statuses = await Promise.all([0, 1, 2, 3].map(() => post(t.url, big, "application/json")));
    const during = await rss(t);
    return { before: before.now, peak: during.peak, statuses: statuses.join(",") };
  });
}

export async function run(args: string[]): Promise<void> {
  // issue 24's figures (4)-(6) alone: `npm run bench -- hardening --host-only`
  if (!args.includes("--host-only")) await documentFigures(args);
  await runHostSafety(args);
}

/** Issue #10's figures (1) and (3): hostile documents against the validation address. */
async function documentFigures(args: string[]): Promise<void> {
  const seconds = arg(args, "seconds", 10);
  const big = maximumSpec();
  const mb = (big.length / 1e6).toFixed(1);
  const latency = await unrelatedLatencyUnderHostileDocuments(seconds);
  console.log(
    `\n(1) unrelated GET latency, no load then 2 clients posting alias bombs, 5,000-deep schemas and ${mb} MB specs` +
      ` (fastify, ${seconds} s each, one run; target p99 < 50 ms)`,
  );
  console.log(
    table(
      [latency.idle, latency.attacked].map((p) => ({
        phase: p.phase,
        requests: p.requests,
        "p50 ms": p.p50,
        "p99 ms": p.p99,
        "max ms": p.max,
        "server event-loop delay p99 ms": p.loopP99,
        "loop max ms": p.loopMax,
        "load avg": p.load,
      })),
    ),
  );
  console.log(`hostile answers: ${latency.statuses}`);
  const memory = await memoryWithConcurrentMaximumSpecs(big);
  console.log(
    `\n(3) server RSS with 4 concurrent ${mb} MB specs (the server process alone: each validation process has its own heap, capped by maxMemoryMb)`,
  );
  console.log(
    table([{ "RSS before MB": memory.before, "peak RSS MB": memory.peak, "+MB": memory.peak - memory.before, statuses: memory.statuses }]),
  );
}
