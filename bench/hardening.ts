// Hardening benchmark (issue #10): what one hostile client can do to the server. Each figure is its own function so
// further figures (stalled uploads, ...) are added beside them; every figure uses a fresh server process.
import { request } from "node:http";
import { aliasBomb, deepJsonSpec } from "../packages/entries/test/fixtures/hostile-specs.js";
import { generateSpec } from "../packages/entries/test/fixtures/spec-generator.js";
import { arg, type Child, now, percentile, pinning, spawnTarget, table } from "./lib.js";

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

/** The biggest spec the address takes in practice: about 16 MB of JSON. */
function maximumSpec(): Buffer {
  const g = generateSpec({ endpoints: 1200, version: "1", format: "3.0", propertiesPerSchema: 30, extraSchemas: 2600 });
  return Buffer.from(JSON.stringify(g.document));
}

async function withTarget<T>(fn: (t: Child) => Promise<T>): Promise<T> {
  const pins = pinning();
  const target = await spawnTarget("./servers/hardening-target.ts", ["fastify"], {}, pins?.target);
  try {
    return await fn(target);
  } finally {
    await target.stop();
  }
}

async function rss(t: Child): Promise<{ now: number; peak: number }> {
  t.send("rss");
  const [, n, p] = (await t.expect("rss ")).split(" ");
  return { now: Number(n), peak: Number(p) };
}

/** Figure 1: p99 of an unrelated GET while alias bombs, deep documents and maximum-size specs are validated. */
export async function unrelatedLatencyUnderHostileDocuments(seconds: number, big: Buffer) {
  return withTarget(async (t) => {
    const hostile: Array<[Buffer, string]> = [
      [Buffer.from(aliasBomb()), "application/yaml"],
      [Buffer.from(deepJsonSpec(5000)), "application/json"],
      [big, "application/json"],
    ];
    // warm the pool (worker start, schema compile) so the figure is about steady state, not the first call
    await post(t.url, hostile[2]![0], "application/json");
    const until = now() + seconds * 1000;
    const statuses: Record<number, number> = {};
    let stop = false;
    const attackers = [0, 1].map(async (k) => {
      for (let i = k; !stop; i++) {
        const [body, type] = hostile[i % hostile.length]!;
        const s = await post(t.url, body, type);
        statuses[s] = (statuses[s] ?? 0) + 1;
      }
    });
    const latencies: number[] = [];
    while (now() < until) latencies.push(await get(`${t.url}/api/v1/types/countries/openapi.json`));
    stop = true;
    await Promise.all(attackers);
    latencies.sort((a, b) => a - b);
    return {
      requests: latencies.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies[latencies.length - 1]!,
      hostile: Object.entries(statuses)
        .map(([s, n]) => `${n}x${s}`)
        .join(" "),
    };
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
  const seconds = arg(args, "seconds", 10);
  const big = maximumSpec();
  const mb = (big.length / 1e6).toFixed(1);
  const latency = await unrelatedLatencyUnderHostileDocuments(seconds, big);
  console.log(
    `\n(1) unrelated GET latency while 2 clients post alias bombs, 5,000-deep schemas and ${mb} MB specs (fastify, ${seconds} s)`,
  );
  console.log(
    table([
      {
        "unrelated requests": latency.requests,
        "p50 ms": latency.p50,
        "p99 ms": latency.p99,
        "max ms": latency.max,
        "hostile answers": latency.hostile,
        "target p99": "< 50 ms",
      },
    ]),
  );
  const memory = await memoryWithConcurrentMaximumSpecs(big);
  console.log(`\n(3) server RSS with 4 concurrent ${mb} MB specs (worker threads included)`);
  console.log(
    table([{ "RSS before MB": memory.before, "peak RSS MB": memory.peak, "+MB": memory.peak - memory.before, statuses: memory.statuses }]),
  );
}
