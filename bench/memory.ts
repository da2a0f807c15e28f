// Memory benchmark: extraction throughput, freshness (post -> recallable), recall p95 and ingest edges/s
// at 1k/10k/100k (--million: 1M) edges in one brain on each store (--store memory,sqlite,postgres;
// --vectors adds runs with an offline embedder), and with --dataset <locomo.json> evidence recall@10 per LoCoMo category next to a
// plain BM25 baseline over the raw turns, all in one run, recall measured through HTTP on loopback.
import { readFileSync } from "node:fs";
import {
  createMemoryService,
  type EdgeRecord,
  type EntityRecord,
  type Embedder,
  type EpisodeRecord,
  type MemoryService,
  bm25Index,
} from "@mountkit/memory";
import { listen } from "../examples/server/src/listen.js";
import { recallAtScale, type StoreName } from "./memory-scale.js";
import { percentile } from "./lib.js";

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
const pct = (n: number) => `${(100 * n).toFixed(1)}%`;

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
async function extractionThroughput(n: number) {
  const service = createMemoryService({ dailyQuota: 1e9, worker: { concurrency: 2 } });
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

function scaleQueries(queries: number, seed: number): string[] {
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

// --- 4. LoCoMo -------------------------------------------------------------------------------------
interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

interface Sample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: Array<{ question: string; evidence: string[]; category: number }>;
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/** "1:56 pm on 8 May, 2023" -> epoch ms (UTC). */
function sessionDate(s: string): number {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})/i.exec(s);
  if (!m) return Date.parse(s);
  let h = Number(m[1]) % 12;
  if (m[3]!.toLowerCase() === "pm") h += 12;
  return Date.UTC(Number(m[6]), MONTHS.indexOf(m[5]!.toLowerCase()), Number(m[4]), h, Number(m[2]));
}

/** Evidence ids are written irregularly ("D:11:26", "D8:6; D9:17"): normalise to "D<s>:<t>". */
function normaliseEvidence(list: string[]): string[] {
  const out = new Set<string>();
  for (const raw of list) {
    for (const part of raw.split(/[;,\s]+/)) {
      const m = /^D:?(\d+):(\d+)$/.exec(part.trim());
      if (m) out.add(`D${Number(m[1])}:${Number(m[2])}`);
    }
  }
  return [...out];
}

const turnText = (t: Turn) => `${t.speaker}: ${t.text}${t.blip_caption ? ` [shares a photo: ${t.blip_caption}]` : ""}`;
const plainAnalyzer = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

const CATEGORY = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop" } as Record<number, string>;

async function locomo(base: string, service: MemoryService, path: string, k: number) {
  const samples = JSON.parse(readFileSync(path, "utf8")) as Sample[];
  const stats = new Map<string, { n: number; ours: number; baseline: number; analyzed: number }>();
  const add = (cat: string, ours: number, baseline: number, analyzed: number) => {
    const s = stats.get(cat) ?? { n: 0, ours: 0, baseline: 0, analyzed: 0 };
    s.n++;
    s.ours += ours;
    s.baseline += baseline;
    s.analyzed += analyzed;
    stats.set(cat, s);
  };
  let turns = 0;
  let questions = 0;
  const ingestStart = performance.now();
  const recallTimes: number[] = [];
  for (const sample of samples) {
    const key = `mk_locomo_${sample.sample_id.replace(/[^A-Za-z0-9]/g, "")}_0123456789`;
    await service.keys.create({ brainId: `locomo-${sample.sample_id}`.replace(/[^A-Za-z0-9._-]/g, "-"), key });
    const api = http(base);
    const c = sample.conversation;
    const raw: Array<{ id: string; text: string }> = [];
    const sessions = Object.keys(c)
      .filter((x) => /^session_\d+$/.test(x))
      .sort((a, b) => Number(a.split("_")[1]) - Number(b.split("_")[1]));
    let lastId = "";
    for (const s of sessions) {
      const occurredAt = new Date(sessionDate(String(c[`${s}_date_time`]))).toISOString();
      for (const t of c[s] as Turn[]) {
        const content = turnText(t);
        raw.push({ id: t.dia_id, text: content });
        const ep = await api.post(
          "/v1/episodes",
          { content, occurredAt, metadata: { dia_id: t.dia_id, speaker: t.speaker, session: s } },
          key,
        );
        lastId = ep.id;
        turns++;
      }
    }
    for (;;) {
      const ep = await api.get(`/v1/episodes/${lastId}`, key);
      const page = await api.get("/v1/episodes?limit=100", key);
      if (
        ep.status !== "queued" &&
        ep.status !== "processing" &&
        page.items.every((e: any) => e.status === "done" || e.status === "failed")
      )
        break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await service.worker.idle();
    // baselines over the very same texts: plain BM25 (lower-case words), and BM25 with our analyzer
    const plain = bm25Index({ analyze: plainAnalyzer });
    const analyzed = bm25Index();
    for (const t of raw) {
      plain.add(t.id, t.text);
      analyzed.add(t.id, t.text);
    }
    for (const qa of sample.qa) {
      if (!CATEGORY[qa.category]) continue;
      const evidence = normaliseEvidence(qa.evidence);
      if (!evidence.length) continue;
      questions++;
      const t0 = performance.now();
      const r = await api.post("/v1/recall", { query: qa.question, limit: k }, key);
      recallTimes.push(performance.now() - t0);
      const ours = new Set(r.episodes.map((e: any) => e.metadata.dia_id));
      const bl = new Set(plain.search(qa.question, { limit: k }).map((h) => h.item));
      const an = new Set(analyzed.search(qa.question, { limit: k }).map((h) => h.item));
      const hit = (set: Set<unknown>) => evidence.filter((e) => set.has(e)).length / evidence.length;
      add(CATEGORY[qa.category]!, hit(ours), hit(bl), hit(an));
      add("all (1-4)", hit(ours), hit(bl), hit(an));
    }
  }
  recallTimes.sort((a, b) => a - b);
  return {
    stats,
    turns,
    questions,
    ingestSeconds: (performance.now() - ingestStart) / 1000,
    recallP50: percentile(recallTimes, 50),
    recallP95: percentile(recallTimes, 95),
  };
}

function arg(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

export async function run(args: string[]): Promise<void> {
  const dataset = arg(args, "--dataset");
  // 1M edges takes well over ten minutes to load on PostgreSQL: opt in with --million (or list it in --sizes)
  const sizes = (arg(args, "--sizes") ?? `1000,10000,100000${args.includes("--million") ? ",1000000" : ""}`).split(",").map(Number);
  const stores = (arg(args, "--store") ?? "memory,sqlite,postgres").split(",") as StoreName[];
  for (const s of stores)
    if (!["memory", "sqlite", "postgres"].includes(s)) throw new Error(`--store: unknown store "${s}" (memory, sqlite, postgres)`);
  const vectorModes = args.includes("--vectors") ? [false, true] : [false];
  const k = Number(arg(args, "--k") ?? 10);
  const framework = (arg(args, "--framework") ?? "fastify") as "fastify" | "express" | "fetch";

  console.log("1. extraction (rule-based extractor, in-process, 2 workers)");
  const tp = await extractionThroughput(Number(arg(args, "--episodes") ?? 2000));
  console.log(
    `   ${tp.n} episodes in ${tp.seconds.toFixed(2)} s: ${tp.perSecond.toFixed(0)} episodes/s (${tp.edges} edges, ${tp.entities} entities)`,
  );

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

  console.log(
    `3. recall at scale, one brain, per store: edges bulk-loaded through the store API (50 per commit), recall in process (p95 of 200 queries)`,
  );
  console.log(
    `   ${"store".padEnd(8)} ${"vectors".padEnd(7)} ${"edges".padStart(9)} ${"ingest".padStart(14)} ${"p50".padStart(9)} ${"p95".padStart(9)}`,
  );
  await recallAtScale({
    stores,
    sizes,
    vectors: vectorModes,
    queries: scaleQueries,
    seed: seedEdges,
    print: (row) =>
      console.log(
        `   ${row.store.padEnd(8)} ${(row.vectors ? "yes" : "no").padEnd(7)} ${String(row.edges).padStart(9)} ${`${row.ingestPerSec.toFixed(0)} edges/s`.padStart(14)} ${ms(row.p50).padStart(9)} ${ms(row.p95).padStart(9)}`,
      ),
  });

  if (!dataset) {
    console.log("4. LoCoMo: skipped (pass --dataset ../shared/bench/locomo-dev.json)");
    return;
  }
  const lservice = createMemoryService({ dailyQuota: 1e9, worker: { pollMs: 50 } });
  const lserver = await listen(framework, [lservice]);
  try {
    console.log(`4. LoCoMo evidence recall@${k} through POST /v1/recall vs BM25 over the raw turns (${dataset})`);
    const r = await locomo(lserver.url, lservice, dataset, k);
    console.log(
      `   ${r.turns} turns ingested over HTTP with extraction in ${r.ingestSeconds.toFixed(1)} s; ${r.questions} questions; recall p50 ${ms(r.recallP50)}, p95 ${ms(r.recallP95)}`,
    );
    console.log(
      `   ${"category".padEnd(12)} ${"n".padStart(4)}  ${"memory".padStart(7)}  ${"BM25".padStart(7)}  ${"ratio".padStart(6)}  ${"BM25+stem".padStart(9)}`,
    );
    for (const [cat, s] of [...r.stats].sort((a, b) =>
      a[0].startsWith("all") ? 1 : b[0].startsWith("all") ? -1 : a[0].localeCompare(b[0]),
    )) {
      const ours = s.ours / s.n;
      const bl = s.baseline / s.n;
      console.log(
        `   ${cat.padEnd(12)} ${String(s.n).padStart(4)}  ${pct(ours).padStart(7)}  ${pct(bl).padStart(7)}  ${(ours / bl).toFixed(2).padStart(6)}  ${pct(s.analyzed / s.n).padStart(9)}`,
      );
    }
    console.log("   BM25: Okapi (k1 1.2, b 0.75) over lower-cased words of each turn, no stemming or stop words;");
    console.log("   BM25+stem: the same with the memory index's analyzer (stop words, suffix stemmer), for attribution.");
  } finally {
    await lserver.close();
    await lservice.dispose();
  }
}
