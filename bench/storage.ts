// `npm run bench -- storage [--messages N] [--episodes N] [--recalls N] [--concurrency N]`: the services on
// embedded SQLite vs PostgreSQL, in one run: support message posts per second, memory episode ingestion
// (accepted per second, then extracted per second), recall latency. In process, through the services'
// typed APIs, so the numbers are storage plus domain logic without HTTP. PostgreSQL comes from
// MOUNTKIT_BENCH_PG_URL or a throwaway local cluster (fsync on, synchronous_commit off, like SQLite NORMAL).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryService } from "@mountkit/memory";
import { openStorage, preferredSqliteDriver, type Storage } from "@mountkit/sql";
import { createSupportService } from "@mountkit/support";
import pg from "pg";
import { findPgBin, type PgCluster, startPgCluster } from "../test/pg-cluster.js";
import { now, percentile } from "./lib.js";

interface Options {
  messages: number;
  episodes: number;
  recalls: number;
  concurrency: number;
}

interface Result {
  engine: string;
  messagesPerSec: number;
  messageP50: number;
  messageP95: number;
  acceptedPerSec: number;
  extractedPerSec: number;
  recallP50: number;
  recallP95: number;
  recallP99: number;
}

function parse(args: string[]): Options {
  const o: Options = { messages: 2000, episodes: 400, recalls: 200, concurrency: 16 };
  for (let i = 0; i < args.length; i++) {
    const k = args[i]?.replace(/^--/, "") as keyof Options;
    if (k in o) o[k] = Number(args[++i]);
  }
  return o;
}

/** Runs `total` tasks `concurrency` at a time; answers wall time and sorted per-task latencies (ms). */
async function pool(total: number, concurrency: number, task: (i: number) => Promise<void>): Promise<{ ms: number; latencies: number[] }> {
  const latencies: number[] = [];
  let next = 0;
  const start = now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const t = now();
        await task(i);
        latencies.push(now() - t);
      }
    }),
  );
  return { ms: now() - start, latencies: latencies.sort((a, b) => a - b) };
}

const PEOPLE = ["Alice Moreau", "Bruno Diaz", "Chen Wei", "Dana Okafor", "Emil Novak", "Fatima Zahra", "Goran Ilic", "Hana Sato"];
const CITIES = ["Paris", "Lisbon", "Osaka", "Nairobi", "Denver", "Krakow", "Quito", "Hanoi"];
const COMPANIES = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark", "Wayne"];
const pick = <T>(list: T[], i: number) => list[i % list.length]!;

function episodeText(i: number): string {
  const who = `${pick(PEOPLE, i)}`;
  return `${who} moved to ${pick(CITIES, i * 3 + 1)} in ${2000 + (i % 25)}. ${who} works at ${pick(COMPANIES, i * 5 + 2)} as engineer number ${i}. ${who} likes painting and hiking.`;
}

async function measure(engine: string, storage: Storage, o: Options): Promise<Result> {
  // support: message posts into a spread of conversations, each with a clientMessageId (the dedup path)
  const support = createSupportService({
    products: ["bench"],
    store: storage.support,
    bus: storage.bus,
    limiter: storage.limiter,
    limits: { rateLimit: 1_000_000 },
  });
  const conversations: Array<{ id: string; customerId: string }> = [];
  for (let i = 0; i < 32; i++) {
    const customerId = `cust_${crypto.randomUUID()}`;
    const c = await support.api.createConversation({ productSlug: "bench", customerId, message: `Conversation ${i}` });
    conversations.push({ id: c.conversationId, customerId });
  }
  const posts = await pool(o.messages, o.concurrency, async (i) => {
    const c = conversations[i % conversations.length]!;
    await support.api.postMessage({
      productSlug: "bench",
      customerId: c.customerId,
      conversationId: c.id,
      message: `message ${i}`,
      clientMessageId: `m${i}`,
    });
  });
  await support.dispose();

  // memory: accept episodes (episode + job in one transaction), then let the worker extract them all
  const memory = createMemoryService({
    store: storage.memory,
    dailyQuota: 10_000_000,
    worker: { start: false, concurrency: 4, pollMs: 20 },
  });
  const brain = `bench_${engine}`;
  const accepted = await pool(o.episodes, o.concurrency, async (i) => {
    await memory.api.createEpisode(brain, { content: episodeText(i), occurredAt: Date.UTC(2024, 0, 1) + i * 3_600_000 });
  });
  const extractStart = now();
  memory.worker.start();
  for (;;) {
    const c = await storage.memory.jobs.counts("memory.extract");
    if (c.queued === 0 && c.running === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const extractMs = now() - extractStart;

  const queries = [
    "Where does Alice live?",
    "Who works at Globex?",
    "painting",
    "engineer hiking Osaka",
    "Chen Wei employer",
    "Who moved to Lisbon in 2010?",
  ];
  const recalls = await pool(o.recalls, 4, async (i) => {
    await memory.api.recall(brain, { query: pick(queries, i), limit: 10 });
  });
  await memory.dispose();

  const r = (n: number) => Math.round(n * 10) / 10;
  return {
    engine,
    messagesPerSec: Math.round((o.messages / posts.ms) * 1000),
    messageP50: r(percentile(posts.latencies, 50)),
    messageP95: r(percentile(posts.latencies, 95)),
    acceptedPerSec: Math.round((o.episodes / accepted.ms) * 1000),
    extractedPerSec: Math.round((o.episodes / extractMs) * 1000),
    recallP50: r(percentile(recalls.latencies, 50)),
    recallP95: r(percentile(recalls.latencies, 95)),
    recallP99: r(percentile(recalls.latencies, 99)),
  };
}

async function postgresUrl(): Promise<{ url: string; cluster?: PgCluster } | null> {
  if (process.env.MOUNTKIT_BENCH_PG_URL) return { url: process.env.MOUNTKIT_BENCH_PG_URL };
  if (!findPgBin()) return null;
  const cluster = await startPgCluster({ durable: true });
  const name = `mk_bench_${process.pid}`;
  const c = new pg.Client({ connectionString: cluster.url });
  await c.connect();
  await c.query(`create database ${name}`);
  await c.end();
  const u = new URL(cluster.url);
  u.pathname = `/${name}`;
  return { url: u.toString(), cluster };
}

export async function run(args: string[]): Promise<void> {
  const o = parse(args);
  console.log(
    `storage: ${o.messages} message posts and ${o.episodes} episodes at concurrency ${o.concurrency}, ${o.recalls} recalls (4 at a time), per engine`,
  );
  const results: Result[] = [];

  // every SQLite driver that runs on this Node: better-sqlite3 (when installed and safe here), node:sqlite (22.16+)
  const drivers = (["better-sqlite3", "node:sqlite"] as const).filter((d) => d !== "better-sqlite3" || preferredSqliteDriver() === d);
  for (const driver of drivers) {
    const dataDir = mkdtempSync(join(tmpdir(), "mountkit-bench-"));
    try {
      const sqlite = await openStorage({ dataDir, sqliteDriver: driver }).catch((e: Error) => {
        console.log(`sqlite (${driver}): skipped (${e.message})`);
        return null;
      });
      if (!sqlite) continue;
      try {
        results.push(await measure(`sqlite (${driver})`, sqlite, o));
      } finally {
        await sqlite.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }

  const target = await postgresUrl();
  if (!target) console.log("postgres: skipped (no PostgreSQL binaries; set MOUNTKIT_BENCH_PG_URL)");
  else {
    try {
      const storage = await openStorage({ url: target.url, maxConnections: 20 });
      try {
        results.push(await measure("postgres", storage, o));
      } finally {
        await storage.close();
      }
    } finally {
      await target.cluster?.stop();
    }
  }

  console.table(
    results.map((r) => ({
      engine: r.engine,
      "msg posts/s": r.messagesPerSec,
      "post p50 ms": r.messageP50,
      "post p95 ms": r.messageP95,
      "episodes accepted/s": r.acceptedPerSec,
      "episodes extracted/s": r.extractedPerSec,
      "recall p50 ms": r.recallP50,
      "recall p95 ms": r.recallP95,
      "recall p99 ms": r.recallP99,
    })),
  );
  const ratio = (x: number, y: number) => (y ? (x / y).toFixed(2) : "n/a");
  const compare = (a: Result | undefined, b: Result | undefined) => {
    if (!a || !b) return;
    console.log(
      `${a.engine} / ${b.engine}: message posts ${ratio(a.messagesPerSec, b.messagesPerSec)}x, episodes accepted ${ratio(a.acceptedPerSec, b.acceptedPerSec)}x, ` +
        `extracted ${ratio(a.extractedPerSec, b.extractedPerSec)}x, recall p50 latency ${ratio(a.recallP50, b.recallP50)}x`,
    );
  };
  const sqliteRuns = results.filter((r) => r.engine.startsWith("sqlite"));
  compare(sqliteRuns[0], sqliteRuns[1]);
  compare(
    sqliteRuns[0],
    results.find((r) => r.engine === "postgres"),
  );
}
