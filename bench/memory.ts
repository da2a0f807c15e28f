// Memory benchmark: extraction throughput, freshness (post -> recallable), recall p95 and ingest edges/s
// at 1k/10k/100k (--million: 1M) edges in one brain on each store (--store memory,sqlite,postgres;
// --vectors adds runs with an offline embedder), then the quality part (bench/memory-quality.ts: extraction
// coverage/precision and, with --dataset <locomo.json>, evidence recall@10 per LoCoMo category next to the
// BM25 baseline), all in one run. --scale-only runs part 3 alone (prints ingest and recall per store, size and
// vectors, with CPU time next to wall time and the load average). With --dataset, part T (bench/memory-throughput.ts)
// measures episodes/s on the dataset's turns in process and over HTTP with the queue and store on SQLite, and the run
// keeps to about ten minutes (smaller parts 1 and 3, see run()); --skip extraction,freshness,throughput,scale,
// histories,quality,locomo leaves parts out.

import { availableParallelism, loadavg } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import {
  createMemoryService,
  type EdgeRecord,
  type Embedder,
  type EntityRecord,
  type EpisodeRecord,
  type MemoryService,
  nlpExtractor,
} from "@mountkit/memory";
import { listen } from "../examples/server/src/listen.js";
import { largeEpisode } from "../packages/memory/test/large-episodes.js";
import { percentile } from "./lib.js";
import { runQuality } from "./memory-quality.js";
import { recallAtScale, type StoreName } from "./memory-scale.js";
import { runThroughput } from "./memory-throughput.js";

const KEY = "mk_bench_key_0123456789abcdef";

interface Http {
  post(path: string, body: unknown, key?: string): Promise<any>;
  get(path: string, key?: string): Promise<any>;
}

function http(base: string): Http {
  const send = (method: string, path: string, body: unknown, key: string) =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const req = async (method: string, path: string, body: unknown, key: string) => {
    // a pooled socket the server closed while idle (long seeding pause) resets once: send again
    const res = await send(method, path, body, key).catch((err: { cause?: { code?: string } }) => {
      if (err.cause?.code !== "ECONNRESET") throw err;
      return send(method, path, body, key);
    });
    const json = await res.json();
    if (res.status >= 400) throw new Error(`${method} ${path} -> ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  return { post: (p, b, k = KEY) => req("POST", p, b, k), get: (p, k = KEY) => req("GET", p, undefined, k) };
}

const ms = (n: number) => `${n.toFixed(1)} ms`;

// --- synthetic world -----------------------------------------------------------------------------
const FIRST =
  "Alice Bruno Chloe Dora Eli Farah Gina Hana Ivan Jonas Kara Liam Maya Nico Olga Pavel Quinn Rosa Sami Tara Umar Vera Wade Xena Yuri Zoe".split(
    " ",
  );
const LAST =
  "Moreau Silva Martin Kim Cohen Haddad Rossi Sato Petrov Berg Novak Diaz Okafor Lindqvist Ferreira Nakamura Kowalski Dubois Larsen Meyer".split(
    " ",
  );
const CITIES =
  "Paris Berlin Lisbon Madrid Rome Vienna Prague Oslo Dublin Athens Zurich Geneva Munich Milan Lyon Seattle Boston Chicago Denver Austin Toronto Sydney Tokyo Seoul".split(
    " ",
  );
const ORGS = "Acme Globex Initech Umbrella Hooli Vandelay Stark Wayne Wonka Cyberdyne Soylent Tyrell Massive Aperture Oscorp Gringotts"
  .split(" ")
  .map((o) => `${o} Corp`);
const THINGS =
  "jazz records|hiking boots|sourdough bread|chess openings|oil painting|trail running|vintage cameras|board games|marathon training|pottery classes|salsa dancing|bird watching|rock climbing|film photography|tea ceremonies|urban gardening".split(
    "|",
  );

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function syntheticEpisode(r: () => number, i: number): string {
  const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)]!;
  const who = `${pick(FIRST)} ${pick(LAST)}`;
  const templates = [
    () => `${who} moved to ${pick(CITIES)} in ${2015 + (i % 10)}.`,
    () => `${who} works at ${pick(ORGS)}. She loves ${pick(THINGS)}.`,
    () => `${who} met ${pick(FIRST)} ${pick(LAST)} in ${pick(CITIES)} last year.`,
    () => `${who} visited ${pick(CITIES)} and enjoyed ${pick(THINGS)}.`,
    () => `${who} joined ${pick(ORGS)} two weeks ago and lives in ${pick(CITIES)}.`,
  ];
  return pick(templates)();
}

// --- 1. extraction throughput ---------------------------------------------------------------------
/** Where the offline extractor runs: on the event loop (`nlpExtractor()` given, as before issue #24) or on threads (the default). */
type Placement = "event loop" | "threads";
const serviceFor = (placement: Placement, extra: Parameters<typeof createMemoryService>[0] = {}) =>
  createMemoryService({ dailyQuota: 1e9, ...(placement === "event loop" ? { extractor: nlpExtractor() } : {}), ...extra });

async function extractionThroughput(n: number, placement: Placement) {
  const service = serviceFor(placement, { worker: { concurrency: 2 } });
  await service.keys.create({ brainId: "throughput", key: KEY });
  const r = rng(7);
  const texts = Array.from({ length: n }, (_, i) => syntheticEpisode(r, i));
  const t0 = performance.now();
  for (const content of texts) await service.api.createEpisode("throughput", { content });
  await service.worker.idle();
  const seconds = (performance.now() - t0) / 1000;
  const edges = (await service.store.listEdges({ brainId: "throughput", limit: 1_000_000 })).items.length;
  const entities = (await service.store.listEntities({ brainId: "throughput", limit: 1_000_000 })).items.length;
  await service.dispose();
  return { n, seconds, perSecond: n / seconds, edges, entities };
}

/**
 * Episodes posted over HTTP (`inFlight` requests at a time, spread over five brains) until all are extracted:
 * episodes/s, the slowest POST answer and the worst event-loop delay of the process that hosts the service.
 */
async function httpThroughput(framework: "fastify" | "express" | "fetch", placement: Placement, contents: string[], inFlight: number) {
  const service = serviceFor(placement, { worker: { concurrency: 4, pollMs: 50 }, extraction: { timeoutMs: 600_000 } });
  const keys = await Promise.all([0, 1, 2, 3, 4].map((i) => service.keys.create({ brainId: `http-${i}`, key: `${KEY}_${i}` })));
  const server = await listen(framework, [service]);
  const api = http(server.url);
  const loop = monitorEventLoopDelay({ resolution: 10 });
  try {
    loop.enable();
    const t0 = performance.now();
    let next = 0;
    let slowestPost = 0;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        for (let i = next++; i < contents.length; i = next++) {
          const t = performance.now();
          await api.post("/v1/episodes", { content: contents[i] }, keys[i % keys.length]!.key);
          slowestPost = Math.max(slowestPost, performance.now() - t);
        }
      }),
    );
    await service.worker.idle();
    const seconds = (performance.now() - t0) / 1000;
    loop.disable();
    return { n: contents.length, perSecond: contents.length / seconds, slowestPost, worstLoop: loop.max / 1e6 };
  } finally {
    await server.close();
    await service.dispose();
  }
}

// --- 2./3. freshness and recall latency over HTTP ---------------------------------------------------
/** Bulk-loads edges `from`..`to` through the store API: `perEpisode` edges per episode and commit. */
export async function seedEdges(
  service: MemoryService,
  brainId: string,
  from: number,
  to: number,
  options: { perEpisode?: number; embedder?: Embedder } = {},
) {
  const r = rng(from + 1);
  const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)]!;
  const now = Date.now();
  const entityIds = new Map<string, string>();
  const existing = await service.store.listEntities({ brainId, limit: 1_000_000 });
  for (const e of existing.items) entityIds.set(e.name, e.id);
  const PER_EPISODE = options.perEpisode ?? 5;
  for (let base = from; base < to; base += PER_EPISODE) {
    // a host receives episodes through I/O, so the event loop turns between them; SQLite answers in
    // microtasks, and without this turn the store's background work (vector cells) would wait for the load
    await new Promise((resolve) => setImmediate(resolve));
    const id = `ep_seed_${base}`;
    const facts: Array<{ s: string; rel: string; t: string; fact: string }> = [];
    for (let k = 0; k < PER_EPISODE && base + k < to; k++) {
      const s = `${pick(FIRST)} ${pick(LAST)}`;
      const choice = r();
      if (choice < 0.3) facts.push({ s, rel: "likes", t: pick(THINGS), fact: `${s} likes ${pick(THINGS)} and talks about it often.` });
      else if (choice < 0.6)
        facts.push({ s, rel: "visited", t: pick(CITIES), fact: `${s} visited ${pick(CITIES)} for a conference on ${pick(THINGS)}.` });
      else if (choice < 0.8)
        facts.push({
          s,
          rel: "met",
          t: `${pick(FIRST)} ${pick(LAST)}`,
          fact: `${s} met a colleague from ${pick(ORGS)} in ${pick(CITIES)}.`,
        });
      else facts.push({ s, rel: "related_to", t: pick(ORGS), fact: `${s} gave a talk at ${pick(ORGS)} about ${pick(THINGS)}.` });
    }
    const episode: EpisodeRecord = {
      id,
      brainId,
      content: facts.map((f) => f.fact).join(" "),
      metadata: { seed: true },
      occurredAt: now - 86_400_000,
      createdAt: now - 86_400_000,
      status: "queued",
      error: null,
      entityIds: [],
      edgeIds: [],
      processedAt: null,
    };
    await service.store.createEpisode({
      episode,
      job: { id: `job_seed_${base}`, queue: "bench.seed", payload: { brainId, episodeId: id }, maxAttempts: 1 },
    });
    const createEntities: EntityRecord[] = [];
    const entity = (name: string) => {
      let eid = entityIds.get(name);
      if (!eid) {
        eid = `ent_seed_${entityIds.size}`;
        entityIds.set(name, eid);
        const key = name.toLowerCase();
        createEntities.push({
          id: eid,
          brainId,
          name,
          kind: "other",
          aliases: [],
          keys: [key, ...key.split(" ").map((t) => `t:${t}`)],
          createdAt: now,
          updatedAt: now,
        });
      }
      return eid;
    };
    const createEdges: EdgeRecord[] = facts.map((f, k) => ({
      id: `edge_seed_${base + k}`,
      brainId,
      source: entity(f.s),
      target: entity(f.t),
      relation: f.rel,
      fact: f.fact,
      tValid: now - 86_400_000,
      tInvalid: null,
      tIngested: now - 86_400_000,
      tExpired: null,
      episodeId: id,
      invalidationReason: null,
      invalidatedBy: null,
    }));
    await service.store.commitExtraction({
      brainId,
      episodeId: id,
      now,
      createEntities,
      updateEntities: [],
      createEdges,
      invalidate: [],
      entityIds: [...new Set(createEdges.flatMap((e) => [e.source, e.target]))],
      edgeIds: createEdges.map((e) => e.id),
      playbook: null,
    });
    if (options.embedder && service.store.putEmbeddings) {
      const vectors = await options.embedder.embed([episode.content, ...createEdges.map((e) => e.fact)]);
      await service.store.putEmbeddings({
        brainId,
        items: [
          { kind: "episode" as const, id, vector: vectors[0]! },
          ...createEdges.map((e, i) => ({ kind: "edge" as const, id: e.id, vector: vectors[i + 1]! })),
        ],
      });
    }
  }
}

export function scaleQueries(queries: number, seed: number): string[] {
  const r = rng(seed);
  const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)]!;
  return Array.from({ length: queries }, (_, i) =>
    [
      () => `Where did ${pick(FIRST)} ${pick(LAST)} travel?`,
      () => `Who likes ${pick(THINGS)}?`,
      () => `Who gave a talk at ${pick(ORGS)}?`,
      () => `What does ${pick(FIRST)} enjoy?`,
    ][i % 4]!(),
  );
}

async function freshness(api: Http, trials: number) {
  const times: number[] = [];
  for (let i = 0; i < trials; i++) {
    const name = `Probe${String.fromCharCode(65 + (i % 26))}${i} Quillfeather`;
    const city = CITIES[i % CITIES.length]!;
    const t0 = performance.now();
    await api.post("/v1/episodes", { content: `${name} moved to ${city}.` });
    for (;;) {
      const r = await api.post("/v1/recall", { query: `Where does ${name} live?`, limit: 5 });
      if (r.edges.some((e: any) => e.fact.includes(name))) break;
      if (performance.now() - t0 > 10_000) throw new Error("fact not recallable after 10 s");
      await new Promise((res) => setTimeout(res, 5));
    }
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), max: times[times.length - 1]! };
}

function arg(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

export async function run(args: string[]): Promise<void> {
  const dataset = arg(args, "--dataset");
  // with --dataset the run is issue #25's acceptance (histories, extraction quality, LoCoMo, throughput) and keeps to
  // about ten minutes on two shared cores: the scale table then stops at 10k edges on the in-process stores unless
  // --sizes / --store say otherwise (--full-scale: the whole table). 1M edges takes well over ten minutes to load on
  // PostgreSQL: opt in with --million (or list it in --sizes)
  const short = dataset !== undefined && !args.includes("--full-scale");
  const sizes = (arg(args, "--sizes") ?? (short ? "1000,10000" : `1000,10000,100000${args.includes("--million") ? ",1000000" : ""}`))
    .split(",")
    .map(Number);
  const stores = (arg(args, "--store") ?? (short ? "memory,sqlite" : "memory,sqlite,postgres")).split(",") as StoreName[];
  for (const s of stores)
    if (!["memory", "sqlite", "postgres"].includes(s)) throw new Error(`--store: unknown store "${s}" (memory, sqlite, postgres)`);
  const vectorModes = args.includes("--vectors") ? [false, true] : [false];
  const framework = (arg(args, "--framework") ?? "fastify") as "fastify" | "express" | "fetch";

  // --scale-only: just part 3 (recall at scale per store), the long one; --skip <parts> leaves parts out
  // (extraction, freshness, throughput, scale, histories, quality, locomo)
  const scaleOnly = args.includes("--scale-only");
  const skip = new Set((arg(args, "--skip") ?? "").split(",").filter(Boolean));
  const started = performance.now();
  console.log(
    `memory bench on ${availableParallelism()} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" / ")} (1 / 5 / 15 min)${skip.size ? `; skipped: ${[...skip].join(", ")}` : ""}`,
  );
  if (!scaleOnly) await extractionAndFreshness(args, framework, skip);
  // issue #25's throughput on LoCoMo turns, queue and store on SQLite (bench/memory-throughput.ts)
  if (!scaleOnly && dataset && !skip.has("throughput"))
    await runThroughput(dataset, { turns: Number(arg(args, "--throughput-turns") ?? 1000) });
  if (!skip.has("scale")) await scaleTable(stores, sizes, vectorModes);
  // histories, extraction quality and LoCoMo recall quality: bench/memory-quality.ts
  if (!scaleOnly) await runQuality(args, skip);
  console.log(`\nmemory bench done in ${((performance.now() - started) / 1000).toFixed(0)} s (load average now ${loadavg()[0]!.toFixed(1)})`);
}

async function extractionAndFreshness(args: string[], framework: "fastify" | "express" | "fetch", skip: ReadonlySet<string>) {
  if (!skip.has("extraction")) await placements(args, framework);
  if (skip.has("freshness")) return;
  const service = createMemoryService({ dailyQuota: 1e9, worker: { pollMs: 50 } });
  await service.keys.create({ brainId: "bench", key: KEY });
  const server = await listen(framework, [service]);
  const api = http(server.url);
  try {
    console.log(`2. freshness over HTTP (${framework}): POST /v1/episodes until the fact is in POST /v1/recall`);
    const f = await freshness(api, 40);
    console.log(`   p50 ${ms(f.p50)}, p95 ${ms(f.p95)}, max ${ms(f.max)} (target: under 2000 ms)`);
  } finally {
    await server.close();
    await service.dispose();
  }
}

/** Part 1: synthetic episodes with the extractor on the event loop and on threads (issue #24), in-memory store. */
async function placements(args: string[], framework: "fastify" | "express" | "fetch") {
  // with --dataset, fewer by default: part T measures throughput on LoCoMo turns with SQLite
  const n = Number(arg(args, "--episodes") ?? (arg(args, "--dataset") ? 500 : 2000));
  const large = Number(arg(args, "--large") ?? (arg(args, "--dataset") ? 20 : 50));
  console.log(`1. extraction of ${n} synthetic episodes, offline NLP extractor on the event loop (before issue #24) and on worker threads (the default), in-memory store`);
  console.log(
    `   ${"where".padEnd(11)} ${"in-process".padStart(16)} ${`HTTP (${framework})`.padStart(16)} ${`${large} x 50 KB over HTTP`.padStart(22)} ${"slowest POST".padStart(13)} ${"worst loop".padStart(11)}`,
  );
  const r = rng(11);
  const small = Array.from({ length: n }, (_, i) => syntheticEpisode(r, i));
  const big = Array.from({ length: large }, (_, i) => largeEpisode(100 + i));
  for (const placement of ["event loop", "threads"] as const) {
    const tp = await extractionThroughput(n, placement);
    const viaHttp = await httpThroughput(framework, placement, small, 8);
    const heavy = await httpThroughput(framework, placement, big, large);
    console.log(
      `   ${placement.padEnd(11)} ${`${tp.perSecond.toFixed(0)} episodes/s`.padStart(16)} ${`${viaHttp.perSecond.toFixed(0)} episodes/s`.padStart(16)} ${`${heavy.perSecond.toFixed(2)} episodes/s`.padStart(22)} ${ms(heavy.slowestPost).padStart(13)} ${ms(Math.max(viaHttp.worstLoop, heavy.worstLoop)).padStart(11)}   (${tp.edges} edges, ${tp.entities} entities; load ${loadavg()[0]!.toFixed(1)})`,
    );
  }
}

async function scaleTable(stores: StoreName[], sizes: number[], vectorModes: boolean[]) {
  console.log(
    `3. recall at scale, one brain, per store: edges bulk-loaded through the store API (50 per commit), recall in process (p95 of 200 queries)`,
  );
  console.log(
    `   ${"store".padEnd(8)} ${"vectors".padEnd(7)} ${"edges".padStart(9)} ${"ingest".padStart(14)} ${"ingest/cpu-s".padStart(14)} ${"p50".padStart(9)} ${"p95".padStart(9)} ${"cpu p95".padStart(9)}   (load ${loadavg()[0]!.toFixed(1)})`,
  );
  await recallAtScale({
    stores,
    sizes,
    vectors: vectorModes,
    queries: scaleQueries,
    seed: seedEdges,
    print: (row) =>
      console.log(
        `   ${row.store.padEnd(8)} ${(row.vectors ? "yes" : "no").padEnd(7)} ${String(row.edges).padStart(9)} ${`${row.ingestPerSec.toFixed(0)} edges/s`.padStart(14)} ${`${row.ingestPerCpuSec.toFixed(0)} edges`.padStart(14)} ${ms(row.p50).padStart(9)} ${ms(row.p95).padStart(9)} ${ms(row.cpuP95).padStart(9)}   (load ${loadavg()[0]!.toFixed(1)})`,
      ),
  });
}
