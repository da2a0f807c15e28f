// Ingestion throughput on LoCoMo turns (issue #25's target: >= 300 episodes/s through HTTP with the queue on SQLite
// and extraction on worker threads): every turn of the dataset stored with its time and speaker, one brain per
// conversation, then waited for until every episode is extracted. In process (`api.createEpisode`) and over HTTP
// (`inFlight` POSTs at a time, from this process to the service in a process of its own), each on a fresh SQLite file,
// in one run so the two share the machine's load; the load average and the service's process's CPU time (all its
// threads: HTTP, pipeline, SQLite, extraction; and its main thread alone, the host's event loop) are printed beside.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createMemoryService, type MemoryService } from "@mountkit/memory";
import { allMigrations, openDatabase, sqlMemoryStore } from "@mountkit/sql";
import { mainThreadCpuMs, spawnTarget } from "./lib.js";

const KEY = "mk_bench_throughput_0123456789";

/** One LoCoMo turn as an agent stores it: `Speaker: text`, the session's time, the speaker and the turn id. */
export interface TurnEpisode {
  brainId: string;
  content: string;
  occurredAt: string;
  metadata: Record<string, unknown>;
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/** "1:56 pm on 8 May, 2023" -> ISO-8601 (UTC). */
function sessionTime(s: string): string {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})/i.exec(s);
  if (!m) return new Date(Date.parse(s)).toISOString();
  let h = Number(m[1]) % 12;
  if (m[3]!.toLowerCase() === "pm") h += 12;
  return new Date(Date.UTC(Number(m[6]), MONTHS.indexOf(m[5]!.toLowerCase()), Number(m[4]), h, Number(m[2]))).toISOString();
}

/** Every turn of a LoCoMo-format file, conversation by conversation, session by session. */
export function loadTurnEpisodes(path: string): TurnEpisode[] {
  const samples = JSON.parse(readFileSync(path, "utf8")) as Array<{ sample_id: string; conversation: Record<string, unknown> }>;
  const out: TurnEpisode[] = [];
  for (const s of samples) {
    const c = s.conversation;
    const brainId = `tp-${s.sample_id}`.replace(/[^A-Za-z0-9._-]/g, "-");
    const sessions = Object.keys(c)
      .filter((k) => /^session_\d+$/.test(k))
      .sort((a, b) => Number(a.split("_")[1]) - Number(b.split("_")[1]));
    for (const k of sessions)
      for (const t of c[k] as Array<{ speaker: string; dia_id: string; text: string; blip_caption?: string }>)
        out.push({
          brainId,
          content: `${t.speaker}: ${t.text}${t.blip_caption ? ` [shares a photo: ${t.blip_caption}]` : ""}`,
          occurredAt: sessionTime(String(c[`${k}_date_time`])),
          metadata: { dia_id: t.dia_id, speaker: t.speaker, session: k },
        });
  }
  return out;
}

export interface ThroughputRow {
  via: "in-process" | "HTTP";
  n: number;
  seconds: number;
  perSecond: number;
  /** Episodes per CPU-second of this process (every thread). */
  perCpuSecond: number;
  /** CPU ms per episode of the main thread alone (the host's event loop); NaN where it cannot be read (not Linux). */
  mainMsPerEpisode: number;
  /** Worst event-loop delay while it ran, ms. */
  worstLoop: number;
  /** 1-minute load average at the start and the end. */
  load: [number, number];
  edges: number;
}

/** The memory service on a fresh SQLite file (queue and store), as the throughput runs use it; `close` removes the file. */
export async function benchMemory(concurrency: number | undefined): Promise<{ service: MemoryService; close(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), "mountkit-bench-throughput-"));
  const db = await openDatabase({ dataDir, migrations: [...allMigrations] });
  const service = createMemoryService({
    store: sqlMemoryStore(db),
    dailyQuota: 1e9,
    extraction: { timeoutMs: 600_000 },
    ...(concurrency ? { worker: { concurrency } } : {}),
  });
  return {
    service,
    async close() {
      await service.dispose();
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The edges the brains hold once extraction is done (the runs print them beside the speed). */
export async function countEdges(service: MemoryService, brains: readonly string[]): Promise<number> {
  let edges = 0;
  for (const b of brains) edges += (await service.store.listEdges({ brainId: b, limit: 1_000_000 })).items.length;
  return edges;
}

async function onSqlite<T>(concurrency: number | undefined, fn: (service: MemoryService) => Promise<T>): Promise<T> {
  const { service, close } = await benchMemory(concurrency);
  try {
    return await fn(service);
  } finally {
    await close();
  }
}

/** The posting loops: `inFlight` at a time, in the dataset's order. */
async function postAll(turns: readonly TurnEpisode[], inFlight: number, post: (t: TurnEpisode) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let i = next++; i < turns.length; i = next++) await post(turns[i]!);
    }),
  );
}

/**
 * Stores `turns` through `via` and waits until every one is extracted. In process, the service runs in this process;
 * over HTTP, in a process of its own behind Fastify (bench/servers/memory-target.ts) and this process is its client,
 * as a host's clients are other processes: the CPU and loop delay are the service's process's. The service's threads
 * are warmed first on another brain (model load), outside the timing.
 */
export async function measureThroughput(
  turns: readonly TurnEpisode[],
  via: "in-process" | "HTTP",
  options: { inFlight?: number; concurrency?: number } = {},
): Promise<ThroughputRow> {
  const inFlight = options.inFlight ?? 8;
  const brains = [...new Set(turns.map((t) => t.brainId))];
  if (via === "HTTP") return overHttp(turns, brains, inFlight, options.concurrency);
  return onSqlite(options.concurrency, async (service) => {
    await service.api.createEpisode("tp-warm-up", { content: "Warm-up: Ana moved to Lisbon in 2019." });
    await service.worker.idle();
    const loop = monitorEventLoopDelay({ resolution: 10 });
    const load0 = loadavg()[0]!;
    loop.enable();
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const main0 = mainThreadCpuMs();
    await postAll(turns, inFlight, async (t) => {
      await service.api.createEpisode(t.brainId, { content: t.content, occurredAt: Date.parse(t.occurredAt), metadata: t.metadata });
    });
    await service.worker.idle();
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(c0);
    const main1 = mainThreadCpuMs();
    loop.disable();
    const edges = await countEdges(service, brains);
    return {
      via,
      n: turns.length,
      seconds,
      perSecond: turns.length / seconds,
      perCpuSecond: turns.length / ((cpu.user + cpu.system) / 1e6),
      mainMsPerEpisode: (main1 - main0) / turns.length,
      worstLoop: loop.max / 1e6,
      load: [load0, loadavg()[0]!],
      edges,
    };
  });
}

async function overHttp(
  turns: readonly TurnEpisode[],
  brains: string[],
  inFlight: number,
  concurrency: number | undefined,
): Promise<ThroughputRow> {
  const target = await spawnTarget("./servers/memory-target.ts", ["fastify", String(concurrency ?? "default")], {
    BENCH_BRAINS: brains.join(","),
    BENCH_KEY: KEY,
  });
  try {
    const keys = new Map(brains.map((b, i) => [b, `${KEY}_${i}`]));
    const load0 = loadavg()[0]!;
    const started = target.expect("started");
    target.send("start");
    await started;
    const t0 = performance.now();
    await postAll(turns, inFlight, async (t) => {
      const res = await fetch(`${target.url}/v1/episodes`, {
        method: "POST",
        headers: { authorization: `Bearer ${keys.get(t.brainId)}`, "content-type": "application/json" },
        body: JSON.stringify({ content: t.content, occurredAt: t.occurredAt, metadata: t.metadata }),
      });
      if (res.status !== 202) throw new Error(`POST /v1/episodes -> ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    });
    const idle = target.expect("idle ");
    target.send("idle");
    const [, cpuMs, worstLoop, edges, mainMs] = (await idle).split(" ").map(Number) as [number, number, number, number, number];
    const seconds = (performance.now() - t0) / 1000;
    return {
      via: "HTTP",
      n: turns.length,
      seconds,
      perSecond: turns.length / seconds,
      perCpuSecond: turns.length / (cpuMs / 1000),
      mainMsPerEpisode: mainMs / turns.length,
      worstLoop,
      load: [load0, loadavg()[0]!],
      edges,
    };
  } finally {
    await target.stop();
  }
}

/** Prints section T: in-process then HTTP, on the dataset's turns. */
export async function runThroughput(dataset: string, options: { turns?: number; concurrency?: number } = {}): Promise<ThroughputRow[]> {
  const all = loadTurnEpisodes(dataset);
  // --turns N: the first N / conversations turns of each conversation
  const brains = [...new Set(all.map((t) => t.brainId))];
  const per = options.turns ? Math.ceil(options.turns / brains.length) : Number.POSITIVE_INFINITY;
  const turns = brains.flatMap((b) => all.filter((t) => t.brainId === b).slice(0, per));
  console.log(
    `T. ingestion throughput on LoCoMo turns (${turns.length} turns, ${new Set(turns.map((t) => t.brainId)).size} brains, one per conversation): queue and store on SQLite, extraction on worker threads; stored then extracted (target 300 episodes/s over HTTP); over HTTP the service runs in a process of its own and this process is its client (CPU and loop delay: the service's process)`,
  );
  console.log(
    `   ${"via".padEnd(10)} ${"episodes/s".padStart(11)} ${"per CPU-s".padStart(10)} ${"main ms/ep".padStart(11)} ${"seconds".padStart(8)} ${"worst loop".padStart(11)} ${"edges".padStart(6)}   load (1 min) start -> end`,
  );
  const rows: ThroughputRow[] = [];
  for (const via of ["in-process", "HTTP"] as const) {
    const r = await measureThroughput(turns, via, options);
    rows.push(r);
    console.log(
      `   ${via.padEnd(10)} ${r.perSecond.toFixed(0).padStart(11)} ${r.perCpuSecond.toFixed(0).padStart(10)} ${(Number.isNaN(r.mainMsPerEpisode) ? "n/a" : r.mainMsPerEpisode.toFixed(2)).padStart(11)} ${r.seconds.toFixed(1).padStart(8)} ${`${r.worstLoop.toFixed(1)} ms`.padStart(11)} ${String(r.edges).padStart(6)}   ${r.load[0].toFixed(1)} -> ${r.load[1].toFixed(1)} (${availableParallelism()} cores)`,
    );
  }
  const [inProcess, viaHttp] = rows;
  if (inProcess && viaHttp) console.log(`   HTTP / in-process: ${(viaHttp.perSecond / inProcess.perSecond).toFixed(2)}`);
  return rows;
}

/** `npm run bench -- memory-throughput --dataset <file> [--turns N] [--concurrency N]`: section T alone (--concurrency: the worker's). */
export async function run(args: string[]): Promise<void> {
  const i = args.indexOf("--dataset");
  const dataset = i >= 0 ? args[i + 1] : undefined;
  if (!dataset) throw new Error("memory-throughput needs --dataset <LoCoMo-format JSON file>");
  const t = args.indexOf("--turns");
  const c = args.indexOf("--concurrency");
  await runThroughput(dataset, {
    ...(t >= 0 ? { turns: Number(args[t + 1]) } : {}),
    ...(c >= 0 ? { concurrency: Number(args[c + 1]) } : {}),
  });
}
