// Memory quality benchmark: extraction coverage and precision on the labelled sentence set, the
// extractor's episodes/s on one core, and with --dataset LoCoMo evidence recall@k per category through
// POST /v1/recall next to the issue's exact baseline, with the turns' session ids (each store of
// --quality-stores, default memory) and without them (each store of --without-sessions, default the first), all in one run.
//
// Baseline (issue #11): Okapi BM25 (k1 1.2, b 0.75) over `Speaker: text` of each turn, English stop
// words removed, suffix stemming (-ing, -ed, -es, -s, stripped when the word is longer than the suffix
// plus 3), nothing else.
import { readFileSync } from "node:fs";
import { bm25Index, createMemoryService, type MemoryService, nlpExtractor } from "@mountkit/memory";
import { listen } from "../examples/server/src/listen.js";
import { loadLabelled, scoreExtractor } from "../packages/memory/test/labelled.js";
import { percentile } from "./lib.js";
import { runHistoriesBench } from "./memory-histories.js";
import { leaveOneOut } from "./memory-loo.js";
import { openStore, type StoreName } from "./memory-scale.js";

const pct = (n: number) => `${(100 * n).toFixed(1)}%`;
const ms = (n: number) => `${n.toFixed(1)} ms`;

// --- the baseline's analyzer ------------------------------------------------------------------------
const STOP_WORDS = new Set(
  (
    "a about above after again against all am an and any are aren't as at be because been before being below between both but by " +
    "can't cannot could couldn't did didn't do does doesn't doing don't down during each few for from further had hadn't has hasn't " +
    "have haven't having he he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if in into is " +
    "isn't it it's its itself let's me more most mustn't my myself no nor not of off on once only or other ought our ours ourselves " +
    "out over own same shan't she she'd she'll she's should shouldn't so some such than that that's the their theirs them themselves " +
    "then there there's these they they'd they'll they're they've this those through to too under until up very was wasn't we we'd " +
    "we'll we're we've were weren't what what's when when's where where's which while who who's whom why why's with won't would " +
    "wouldn't you you'd you'll you're you've your yours yourself yourselves"
  ).split(" "),
);
const SUFFIXES = ["ing", "ed", "es", "s"];

export function baselineAnalyzer(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.toLowerCase().match(/[a-z0-9]+(?:'[a-z]+)?/g) ?? []) {
    if (STOP_WORDS.has(raw)) continue;
    let w = raw.replace(/'s$/, "");
    for (const s of SUFFIXES)
      if (w.endsWith(s) && w.length > s.length + 3) {
        w = w.slice(0, -s.length);
        break;
      }
    if (w) out.push(w);
  }
  return out;
}

// --- 1. extraction quality ---------------------------------------------------------------------------
async function extraction(turns: string[]) {
  const score = await scoreExtractor(nlpExtractor());
  // throughput of the extractor alone, one core, sequential: labelled sentences then LoCoMo turns
  const x = nlpExtractor();
  const texts = [...loadLabelled().map((s) => s.text), ...turns];
  const run = async (list: string[]) => {
    for (const content of list) {
      const input = { content, metadata: {}, occurredAt: Date.UTC(2023, 4, 8) };
      const entities = await x.extractEntities(input);
      await x.extractFacts({ ...input, entities });
    }
  };
  await run(texts.slice(0, 200)); // model load and JIT warm-up
  // CPU time as well as wall time: on a shared machine the wall clock also counts other processes' turns
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await run(texts);
  const cpu = process.cpuUsage(c0);
  const perSecond = texts.length / ((performance.now() - t0) / 1000);
  const perCpuSecond = texts.length / ((cpu.user + cpu.system) / 1e6);
  return { score, perSecond, perCpuSecond, n: texts.length };
}

// --- 2. LoCoMo ---------------------------------------------------------------------------------------
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
  for (const raw of list)
    for (const part of raw.split(/[;,\s]+/)) {
      const m = /^D:?(\d+):(\d+)$/.exec(part.trim());
      if (m) out.add(`D${Number(m[1])}:${Number(m[2])}`);
    }
  return [...out];
}

const turnText = (t: Turn) => `${t.speaker}: ${t.text}${t.blip_caption ? ` [shares a photo: ${t.blip_caption}]` : ""}`;
const CATEGORY: Record<number, string> = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop" };

export function loadTurns(path: string): string[] {
  const samples = JSON.parse(readFileSync(path, "utf8")) as Sample[];
  const out: string[] = [];
  for (const s of samples)
    for (const [k, v] of Object.entries(s.conversation)) if (/^session_\d+$/.test(k)) for (const t of v as Turn[]) out.push(turnText(t));
  return out;
}

async function json(res: Response) {
  const body = await res.json();
  if (res.status >= 400) throw new Error(`${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** One question's outcome: its conversation, category and the share of its evidence found. */
export interface QuestionResult {
  conversation: string;
  brainId: string;
  question: string;
  evidence: string[];
  category: string;
  ours: number;
  baseline: number;
}

/**
 * Ingests every conversation over HTTP (one brain each) and asks every question through POST /v1/recall.
 * `sessionIds` false: the turns carry no session in their metadata (only `dia_id` and `speaker`, with the
 * session's date as `occurredAt`), as agents that store turns with only a time do; the service infers the
 * conversations (domain/conversation.ts in @mountkit/memory).
 */
async function locomo(base: string, service: MemoryService, samples: Sample[], k: number, sessionIds = true) {
  const results: QuestionResult[] = [];
  let turns = 0;
  const recallTimes: number[] = [];
  const t0 = performance.now();
  for (const sample of samples) {
    const key = `mk_quality_${sample.sample_id.replace(/[^A-Za-z0-9]/g, "")}_0123456789`;
    const brainId = `quality-${sample.sample_id}`.replace(/[^A-Za-z0-9._-]/g, "-");
    await service.keys.create({ brainId, key });
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const post = (p: string, body: unknown) => fetch(`${base}${p}`, { method: "POST", headers, body: JSON.stringify(body) }).then(json);
    const c = sample.conversation;
    const raw: Array<{ id: string; text: string }> = [];
    const sessions = Object.keys(c)
      .filter((x) => /^session_\d+$/.test(x))
      .sort((a, b) => Number(a.split("_")[1]) - Number(b.split("_")[1]));
    for (const s of sessions) {
      const occurredAt = new Date(sessionDate(String(c[`${s}_date_time`]))).toISOString();
      for (const t of c[s] as Turn[]) {
        const content = turnText(t);
        raw.push({ id: t.dia_id, text: content });
        const metadata = sessionIds ? { dia_id: t.dia_id, speaker: t.speaker, session: s } : { dia_id: t.dia_id, speaker: t.speaker };
        await post("/v1/episodes", { content, occurredAt, metadata });
        turns++;
      }
    }
    await service.worker.idle();
    const baseline = bm25Index({ k1: 1.2, b: 0.75, analyze: baselineAnalyzer });
    for (const t of raw) baseline.add(t.id, t.text);
    for (const qa of sample.qa) {
      const cat = CATEGORY[qa.category];
      const evidence = normaliseEvidence(qa.evidence);
      if (!cat || !evidence.length) continue;
      const q0 = performance.now();
      const r = await post("/v1/recall", { query: qa.question, limit: k });
      recallTimes.push(performance.now() - q0);
      // the first k: recall may list more (the episodes its edges cite after the ranked ones)
      const ours = new Set(r.episodes.slice(0, k).map((e: { metadata: { dia_id: string } }) => e.metadata.dia_id));
      const bl = new Set(baseline.search(qa.question, { limit: k }).map((h) => h.item));
      const hit = (set: Set<unknown>) => evidence.filter((e) => set.has(e)).length / evidence.length;
      results.push({
        conversation: sample.sample_id,
        brainId,
        question: qa.question,
        evidence,
        category: cat,
        ours: hit(ours),
        baseline: hit(bl),
      });
    }
  }
  recallTimes.sort((a, b) => a - b);
  return {
    results,
    turns,
    seconds: (performance.now() - t0) / 1000,
    p50: percentile(recallTimes, 50),
    p95: percentile(recallTimes, 95),
  };
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);

function arg(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

export async function runQuality(args: string[], skip: ReadonlySet<string> = new Set()): Promise<void> {
  const dataset = arg(args, "--dataset");
  const k = Number(arg(args, "--k") ?? 10);
  const framework = (arg(args, "--framework") ?? "fastify") as "fastify" | "express" | "fetch";

  if (!skip.has("histories")) await runHistoriesBench(args);
  if (!skip.has("quality")) await extractionQuality(dataset);
  if (skip.has("locomo")) return;
  if (!dataset) {
    console.log("Q2. LoCoMo: skipped (pass --dataset <LoCoMo-format JSON file>)");
    return;
  }
  await locomoQuality(args, dataset, k, framework);
}

/** Q1: coverage and precision on the labelled sentences, and the extractor's own speed on them and the dataset's turns. */
async function extractionQuality(dataset: string | undefined): Promise<void> {
  const turns = dataset ? loadTurns(dataset) : [];
  const x = await extraction(turns);
  const s = x.score;
  console.log(`Q1. extraction quality on the labelled set (${s.sentences} sentences, packages/memory/test/fixtures)`);
  console.log(
    `   coverage ${s.covered}/${s.withFacts} = ${s.coverage.toFixed(3)}   precision ${s.correct}/${s.extracted} = ${s.precision.toFixed(3)}   fact recall ${s.foundFacts}/${s.expectedFacts} = ${s.factRecall.toFixed(3)}   (targets 0.90 / 0.90)`,
  );
  console.log(
    "   matching rule: packages/memory/test/labelled.ts (normalised subject/object, exact relation or a listed alternative, dates to the day)",
  );
  console.log(
    `   nlp extractor alone, one core: ${x.perSecond.toFixed(0)} episodes/s wall, ${x.perCpuSecond.toFixed(0)} episodes per CPU-second, over ${x.n} texts (target 300)`,
  );
}

/** One LoCoMo run: a store, with or without session ids in the turns' metadata. */
interface LocomoRun {
  store: StoreName;
  sessionIds: boolean;
  label: string;
  results: QuestionResult[];
}

/**
 * Q2: LoCoMo through POST /v1/recall on each store of --quality-stores with session ids, then on each
 * store of --without-sessions (default: the first) with the session stripped from every turn's metadata.
 */
async function locomoQuality(args: string[], dataset: string, k: number, framework: "fastify" | "express" | "fetch") {
  const samples = JSON.parse(readFileSync(dataset, "utf8")) as Sample[];
  // the in-memory store by default (the ratio is the extractor's and the ranking's, alike on every store; each store
  // ingests the dataset again, over a minute apiece on two shared cores): --quality-stores memory,sqlite,postgres compares them
  const stores = (arg(args, "--quality-stores") ?? "memory").split(",") as StoreName[];
  const bare = (arg(args, "--without-sessions") ?? stores[0]!).split(",").filter(Boolean) as StoreName[];
  console.log(
    `Q2. LoCoMo evidence recall@${k} through POST /v1/recall (${framework}) vs the issue's BM25 baseline (${dataset}), per store, with the turns' session ids and without them (${bare.join(", ")})`,
  );
  const plan = [...stores.map((store) => ({ store, sessionIds: true })), ...bare.map((store) => ({ store, sessionIds: false }))];
  const runs: LocomoRun[] = [];
  let forLoo: { service: MemoryService; results: QuestionResult[] } | null = null;
  const closers: Array<() => Promise<void>> = [];
  try {
    for (const { store: name, sessionIds } of plan) {
      const opened = await openStore(name);
      if (!opened) {
        console.log(`   ${name}: skipped (no MOUNTKIT_BENCH_PG_URL and no initdb/pg_ctl)`);
        continue;
      }
      const label = sessionIds ? name : `${name} no ids`;
      const service = createMemoryService({ store: opened.store, dailyQuota: 1e9, worker: { pollMs: 20 } });
      const server = await listen(framework, [service]);
      const r = await locomo(server.url, service, samples, k, sessionIds).finally(() => server.close());
      console.log(
        `   ${label.padEnd(15)} ${r.turns} turns ingested over HTTP with extraction, ${r.results.length} questions, in ${r.seconds.toFixed(1)} s; recall p50 ${ms(r.p50)}, p95 ${ms(r.p95)}`,
      );
      runs.push({ store: name, sessionIds, label, results: r.results });
      if (name === "memory" && sessionIds && args.includes("--loo")) {
        // the leave-one-out check re-ranks the same ingested brains in process: keep them until then
        forLoo = { service, results: r.results };
        closers.push(async () => {
          await service.dispose();
          await opened.close();
        });
      } else {
        await service.dispose();
        await opened.close();
      }
    }
    if (runs.length) printLocomo(runs, samples);
    if (forLoo) await leaveOneOut(forLoo.service.store, forLoo.results, k);
    else if (args.includes("--loo")) console.log("Q3. leave-one-out: needs the memory store in --quality-stores");
  } finally {
    for (const close of closers) await close();
  }
}

/** The LoCoMo table: recall per category for the baseline and each run, the ratios with and without session ids. */
function printLocomo(runs: LocomoRun[], samples: Sample[]): void {
  const first = runs[0]!.results;
  const withIds = runs.find((r) => r.sessionIds);
  const withoutIds = runs.find((r) => !r.sessionIds);
  const w = Math.max(8, ...runs.map((r) => r.label.length));
  console.log(
    `   ${"category".padEnd(12)} ${"n".padStart(4)}  ${"baseline".padStart(8)}  ${runs.map((p) => p.label.padStart(w)).join("  ")}  ${"ratio".padStart(6)}  ${"no ids".padStart(6)}`,
  );
  const ratio = (run: LocomoRun | undefined, pick: (rs: QuestionResult[]) => QuestionResult[], bl: number) =>
    run ? (mean(pick(run.results).map((q) => q.ours)) / bl).toFixed(2) : "-";
  for (const cat of ["multi-hop", "temporal", "open-domain", "single-hop", "all (1-4)"]) {
    const pick = (rs: QuestionResult[]) => rs.filter((q) => cat === "all (1-4)" || q.category === cat);
    const bl = mean(pick(first).map((q) => q.baseline));
    const cols = runs.map((p) => mean(pick(p.results).map((q) => q.ours)));
    console.log(
      `   ${cat.padEnd(12)} ${String(pick(first).length).padStart(4)}  ${pct(bl).padStart(8)}  ${cols.map((c) => pct(c).padStart(w)).join("  ")}  ${ratio(withIds, pick, bl).padStart(6)}  ${ratio(withoutIds, pick, bl).padStart(6)}`,
    );
  }
  console.log(
    "   baseline: BM25 (k1 1.2, b 0.75) over `Speaker: text`, English stop words, -ing/-ed/-es/-s stemming (word longer than suffix + 3)",
  );
  console.log(
    `   ratio: ${withIds?.label ?? "-"} / baseline; no ids: ${withoutIds?.label ?? "-"} / baseline (turns without session metadata, conversations inferred). Per conversation (${runs.map((p) => p.label).join(", ")}, baseline):`,
  );
  for (const s of samples) {
    const rows = (rs: QuestionResult[]) => rs.filter((q) => q.conversation === s.sample_id);
    console.log(
      `     ${s.sample_id.padEnd(10)} ${String(rows(first).length).padStart(4)}  ${runs.map((p) => pct(mean(rows(p.results).map((q) => q.ours))).padStart(7)).join("  ")}  ${pct(mean(rows(first).map((q) => q.baseline))).padStart(7)}`,
    );
  }
}
