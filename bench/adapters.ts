// Adapter overhead: the kit's JSON route and SSE delivery vs a hand-written native route of each framework.
// Servers run in child processes; kit and native alternate per framework so drift hits both alike.
import autocannon from "autocannon";
import { arg, type Child, now, openSse, percentile, spawnTarget, table } from "./lib.js";

async function cpuMicros(child: Child): Promise<number> {
  child.send("cpu");
  return Number((await child.expect("cpu ")).slice(4));
}

async function jsonLoad(url: string, seconds: number, connections: number) {
  const r = await autocannon({
    url: `${url}/bench/json`,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "bench", count: 41 }),
    connections,
    duration: seconds,
  });
  if (r.non2xx) throw new Error(`${r.non2xx} non-2xx responses`);
  return { rps: r.requests.average, p99: r.latency.p99, total: r.requests.total };
}

async function sseLatency(child: Awaited<ReturnType<typeof spawnTarget>>, streams: number, events: number) {
  const lat: number[] = [];
  const conns = [];
  for (let i = 0; i < streams; i++) {
    conns.push(
      await openSse(`${child.url}/bench/stream`, (data, at) => {
        const d = JSON.parse(data) as { type: string; sentAt?: number };
        if (d.type === "tick" && d.sentAt) lat.push(at - d.sentAt);
      }),
    );
  }
  for (;;) {
    child.send("count");
    if (Number((await child.expect("count ")).slice(6)) >= streams) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  for (let i = 0; i < events; i++) {
    child.send(`publish ${now()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  const deadline = Date.now() + 10_000;
  while (lat.length < streams * events && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  for (const c of conns) c.close();
  const sorted = lat.sort((a, b) => a - b);
  return { delivered: lat.length, expected: streams * events, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

export async function run(args: string[]) {
  const seconds = arg(args, "seconds", 5);
  const connections = arg(args, "connections", 50);
  const streams = arg(args, "streams", 200);
  const events = arg(args, "events", 100);
  console.log(`JSON: ${seconds}s x ${connections} connections per target (autocannon); SSE: ${streams} streams x ${events} events`);
  const rows: Array<Record<string, string | number>> = [];
  for (const fw of ["express", "fastify", "fetch"] as const) {
    const res: Record<string, { rps: number; p99: number; cpuPerReq: number; sse: Awaited<ReturnType<typeof sseLatency>> }> = {};
    for (const mode of ["native", "kit"] as const) {
      const child = await spawnTarget("./servers/adapter-target.ts", [fw, mode]);
      try {
        await jsonLoad(child.url, 1, connections); // warm-up
        const cpu0 = await cpuMicros(child);
        const j = await jsonLoad(child.url, seconds, connections);
        const cpuPerReq = ((await cpuMicros(child)) - cpu0) / j.total;
        const s = await sseLatency(child, streams, events);
        res[mode] = { ...j, cpuPerReq, sse: s };
      } finally {
        await child.stop();
      }
    }
    const n = res.native!;
    const k = res.kit!;
    rows.push({
      framework: fw,
      "native req/s": Math.round(n.rps),
      "kit req/s": Math.round(k.rps),
      "kit/native": k.rps / n.rps,
      "native CPU µs/req": n.cpuPerReq,
      "kit CPU µs/req": k.cpuPerReq,
      "native p99 ms": n.p99,
      "kit p99 ms": k.p99,
      "sse native p50/p99 ms": `${n.sse.p50.toFixed(2)}/${n.sse.p99.toFixed(2)}`,
      "sse kit p50/p99 ms": `${k.sse.p50.toFixed(2)}/${k.sse.p99.toFixed(2)}`,
      "sse delivered kit": `${k.sse.delivered}/${k.sse.expected}`,
    });
  }
  console.log(table(rows));
  const worst = Math.min(...rows.map((r) => r["kit/native"] as number));
  console.log(`\nkit cost vs native JSON throughput: worst ${((1 - worst) * 100).toFixed(1)}% (target < 10%)`);
  console.log("server CPU µs/req is the steadier measure on a shared machine: the load generator runs on the same cores");
}
