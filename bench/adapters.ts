// Adapter overhead: the kit's JSON route and SSE delivery vs a hand-written native route of each framework.
// Servers run in child processes; kit and native alternate per framework so drift hits both alike.
import autocannon from "autocannon";
import { arg, argList, type Child, median, now, openSse, percentile, pinning, spawnTarget, table } from "./lib.js";

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
  // many short rounds, kit and native alternating: noise on a shared machine comes in bursts of seconds
  const seconds = arg(args, "seconds", 1);
  const rounds = arg(args, "rounds", 5);
  const procs = arg(args, "procs", 3);
  const connections = arg(args, "connections", 50);
  const streams = arg(args, "streams", 200);
  const events = arg(args, "events", 100);
  const frameworks = argList(args, "framework", ["express", "fastify", "fetch"]);
  const pin = args.includes("--no-pin") ? undefined : pinning();
  console.log(
    `JSON: ${procs} process pairs x ${rounds} rounds x ${seconds}s x ${connections} connections (autocannon), native and kit alternating;` +
      ` SSE: ${streams} streams x ${events} events`,
  );
  console.log(pin ? `targets pinned to CPU ${pin.target}, load generator to CPU ${pin.generator}` : "no CPU pinning");
  const rows: Array<Record<string, string | number>> = [];
  for (const fw of frameworks) {
    const modes = ["native", "kit"] as const;
    type Sample = Awaited<ReturnType<typeof jsonLoad>> & { cpu: number };
    const json: Record<(typeof modes)[number], Sample[]> = { native: [], kit: [] };
    const sse = {} as Record<(typeof modes)[number], Awaited<ReturnType<typeof sseLatency>>>;
    // Several process pairs: one Node process can run ~10% faster or slower than an identical one for
    // its whole life (JIT and heap layout), so a single pair can show a gap that is not the kit's.
    for (let p = 0; p < procs; p++) {
      const children = {} as Record<(typeof modes)[number], Child>;
      try {
        for (const m of modes) children[m] = await spawnTarget("./servers/adapter-target.ts", [fw, m], {}, pin?.target);
        for (const m of modes) await jsonLoad(children[m].url, 2, connections); // warm-up
        for (let r = 0; r < rounds; r++) {
          // alternate which goes first, so drift over the run hits both alike
          for (const m of (r + p) % 2 ? [...modes].reverse() : modes) {
            const cpu0 = await cpuMicros(children[m]);
            const j = await jsonLoad(children[m].url, seconds, connections);
            json[m].push({ ...j, cpu: ((await cpuMicros(children[m])) - cpu0) / j.total });
          }
        }
        if (p === procs - 1) for (const m of modes) sse[m] = await sseLatency(children[m], streams, events);
      } finally {
        for (const m of modes) await children[m]?.stop();
      }
    }
    const ratios = json.kit.map((k, i) => k.rps / json.native[i]!.rps);
    const med = (m: (typeof modes)[number], f: (x: Sample) => number) => median(json[m].map(f));
    rows.push({
      framework: fw,
      "native req/s": Math.round(med("native", (x) => x.rps)),
      "kit req/s": Math.round(med("kit", (x) => x.rps)),
      "kit/native req/s": median(ratios),
      "per round": ratios.map((x) => x.toFixed(2)).join(" "),
      "native CPU µs/req": med("native", (x) => x.cpu),
      "kit CPU µs/req": med("kit", (x) => x.cpu),
      // requests per CPU-second: the throughput a saturated core sustains, which CPU steal does not skew;
      // the median of each round's ratio to the native round next to it
      "kit/native req per CPU-s": median(json.kit.map((k, i) => json.native[i]!.cpu / k.cpu)),
      "native p99 ms": med("native", (x) => x.p99),
      "kit p99 ms": med("kit", (x) => x.p99),
      "sse native p50/p99 ms": `${sse.native.p50.toFixed(2)}/${sse.native.p99.toFixed(2)}`,
      "sse kit p50/p99 ms": `${sse.kit.p50.toFixed(2)}/${sse.kit.p99.toFixed(2)}`,
      "sse delivered kit": `${sse.kit.delivered}/${sse.kit.expected}`,
    });
  }
  console.log(table(rows));
  const worst = (col: string) => {
    const r = rows.reduce((a, b) => ((b[col] as number) < (a[col] as number) ? b : a));
    return `${((1 - (r[col] as number)) * 100).toFixed(1)}% (${r.framework})`;
  };
  console.log(`\nkit cost vs native JSON throughput (target < 10%):`);
  console.log(`  per CPU-second (server CPU per request):   worst ${worst("kit/native req per CPU-s")}`);
  console.log(`  wall-clock req/s, median of paired rounds: worst ${worst("kit/native req/s")}`);
  console.log("On a shared machine wall-clock req/s swings with CPU steal from round to round (see per round);");
  console.log("CPU time per request does not, so the per-CPU-second ratio is the one to compare across runs.");
}
