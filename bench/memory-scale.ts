// Recall at scale on the stores hosts run: for each store (in-memory, SQLite, PostgreSQL) and size, edges
// bulk-loaded through the store API (ingest edges/s) then recall p95 in process through the service's
// typed API, without and (--vectors) with an embedder. Next to wall time it prints this process's CPU time
// (ingest edges per CPU-second, recall CPU p95): on a loaded machine that is the in-process stores' own cost. PostgreSQL comes from MOUNTKIT_BENCH_PG_URL or a
// throwaway local cluster, as in bench/storage.ts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryService, type Embedder, type MemoryStore, inMemoryMemoryStore, searchTerms } from "@mountkit/memory";
import { allMigrations, openDatabase, type SqlDatabase, sqlMemoryStore } from "@mountkit/sql";
import pg from "pg";
import { findPgBin, type PgCluster, startPgCluster } from "../test/pg-cluster.js";
import { percentile } from "./lib.js";

export type StoreName = "memory" | "sqlite" | "postgres";

interface OpenStore {
  store: MemoryStore;
  close(): Promise<void>;
}

/** Deterministic feature-hashing embedder: offline, so the vector path is measured without a model. */
export function hashingEmbedder(dims = 64): Embedder {
  const hash = (s: string) => {
    let h = 2166136261;
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
    return h >>> 0;
  };
  return {
    name: `hashing-${dims}`,
    async embed(texts) {
      return texts.map((t) => {
        const v = new Array<number>(dims).fill(0);
        for (const term of searchTerms(t)) {
          const h = hash(term);
          v[h % dims]! += h & 0x100 ? 1 : -1;
        }
        return v;
      });
    },
  };
}

export async function openStore(name: StoreName): Promise<OpenStore | null> {
  if (name === "memory") return { store: inMemoryMemoryStore(), close: async () => {} };
  if (name === "sqlite") {
    const dataDir = mkdtempSync(join(tmpdir(), "mountkit-bench-scale-"));
    const db = await openDatabase({ dataDir, migrations: [...allMigrations] });
    return {
      store: sqlMemoryStore(db),
      async close() {
        await db.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  let cluster: PgCluster | undefined;
  let url = process.env.MOUNTKIT_BENCH_PG_URL;
  if (!url) {
    if (!findPgBin()) return null;
    cluster = await startPgCluster({ durable: true });
    const c = new pg.Client({ connectionString: cluster.url });
    await c.connect();
    await c.query(`create database mk_bench_scale_${process.pid}`);
    await c.end();
    const u = new URL(cluster.url);
    u.pathname = `/mk_bench_scale_${process.pid}`;
    url = u.toString();
  }
  const db: SqlDatabase = await openDatabase({ url, migrations: [...allMigrations] });
  return {
    store: sqlMemoryStore(db),
    async close() {
      await db.close();
      await cluster?.stop();
    },
  };
}

export interface ScaleRow {
  store: StoreName;
  vectors: boolean;
  edges: number;
  ingestPerSec: number;
  /** Edges per CPU-second of this process (the whole store's work for in-process stores). */
  ingestPerCpuSec: number;
  p50: number;
  p95: number;
  /** p95 of this process's CPU time per recall: the in-process stores' cost net of other load. */
  cpuP95: number;
}

type Seed = (
  service: ReturnType<typeof createMemoryService>,
  brainId: string,
  from: number,
  to: number,
  options: { perEpisode: number; embedder?: Embedder },
) => Promise<void>;

export async function recallAtScale(options: {
  stores: StoreName[];
  sizes: number[];
  vectors: boolean[];
  queries: (n: number, seed: number) => string[];
  seed: Seed;
  print: (row: ScaleRow) => void;
}): Promise<void> {
  for (const name of options.stores) {
    for (const withVectors of options.vectors) {
      const opened = await openStore(name);
      if (!opened) {
        console.log(`   ${name}: skipped (no MOUNTKIT_BENCH_PG_URL and no initdb/pg_ctl)`);
        break;
      }
      const embedder = withVectors ? hashingEmbedder() : undefined;
      const service = createMemoryService({ store: opened.store, embedder, dailyQuota: 1e9, worker: { start: false } });
      try {
        let seeded = 0;
        for (const size of options.sizes) {
          const t0 = performance.now();
          const c0 = process.cpuUsage();
          await options.seed(service, "scale", seeded, size, { perEpisode: 50, embedder });
          const seconds = (performance.now() - t0) / 1000;
          const c1 = process.cpuUsage(c0);
          const cpuSeconds = (c1.user + c1.system) / 1e6;
          const added = size - seeded;
          seeded = size;
          const qs = options.queries(200, size);
          for (const q of qs.slice(0, 20)) await service.api.recall("scale", { query: q });
          const times: number[] = [];
          const cpu: number[] = [];
          for (const q of qs) {
            const t = performance.now();
            const c = process.cpuUsage();
            await service.api.recall("scale", { query: q, limit: 10 });
            times.push(performance.now() - t);
            const d = process.cpuUsage(c);
            cpu.push((d.user + d.system) / 1000);
          }
          times.sort((a, b) => a - b);
          cpu.sort((a, b) => a - b);
          options.print({
            store: name,
            vectors: withVectors,
            edges: size,
            ingestPerSec: added / seconds,
            ingestPerCpuSec: added / cpuSeconds,
            p50: percentile(times, 50),
            p95: percentile(times, 95),
            cpuP95: percentile(cpu, 95),
          });
        }
      } finally {
        await service.dispose();
        await opened.close();
      }
    }
  }
}
