// `npm run bench -- memory-transfer [--edges N] [--per-episode N] [--store sqlite,postgres]`: moving a brain
// (docs/memory.md#export-and-import) and erasing a subject (docs/memory.md#erasure) at scale. For each engine it
// loads a brain of N edges (default 100k) by importing a generated JSON Lines export (no extraction), exports it
// to a file (export edges/s), imports that file into a second brain (import edges/s), imports the same brain with every
// episode stored in one millisecond into a third (a batch ingest's export: "one-instant import edges/s"), then erases
// one subject of the first brain with `forgetSubject` and prints the time and what went. SQLite is a file under a temp DATA_DIR;
// PostgreSQL comes from MOUNTKIT_BENCH_PG_URL or a throwaway local cluster (skipped, with the reason, without
// initdb/pg_ctl).

import { once } from "node:events";
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryService } from "@mountkit/memory";
import { arg, argList, table } from "./lib.js";
import { openStore, type StoreName } from "./memory-scale.js";

const FIRST = ["Ana", "Bruno", "Chen", "Dana", "Emil", "Fatima", "Goran", "Hana", "Ivan", "Jade", "Kofi", "Lena"];
const LAST = ["Moreau", "Diaz", "Wei", "Okafor", "Novak", "Zahra", "Ilic", "Sato", "Berg", "Costa", "Mensah", "Rossi"];
const CITIES = ["Paris", "Lisbon", "Osaka", "Nairobi", "Denver", "Krakow", "Quito", "Hanoi", "Oslo", "Lima"];
const ORGS = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark", "Wayne"];
const DAY = 86_400_000;

/** Deterministic pseudo-random numbers, so every run builds the same brain. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sorted = (o: Record<string, unknown>) =>
  Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]]),
  );
const line = (type: string, record: Record<string, unknown>) => `${JSON.stringify({ type, ...sorted(record) })}\n`;

/**
 * A brain of `edges` edges as an export file's lines, `perEpisode` edges per episode: 144 people, the cities and
 * organisations, one edge in ten invalidated (all four time fields set). Yields chunks of a few hundred lines.
 * `oneInstant`: every episode was stored (createdAt) in the same millisecond, as a batch ingest stores them.
 */
export function* generatedExport(edges: number, perEpisode: number, oneInstant = false): Generator<string> {
  const r = rng(26);
  const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)]!;
  const t0 = Date.UTC(2024, 0, 1);
  const entityIds = new Map<string, string>();
  const entityOf = (name: string) => {
    let id = entityIds.get(name);
    if (!id) entityIds.set(name, (id = `ent_b_${entityIds.size}`));
    return id;
  };
  const edgeLines: string[] = [];
  const episodeCount = Math.ceil(edges / perEpisode);
  yield line("header", { format: "mountkit-memory-export", version: 1, brain: { id: "bench" } });
  let chunk = "";
  for (let e = 0; e < episodeCount; e++) {
    const at = t0 + e * 60_000;
    const id = `ep_b_${e}`;
    const facts: string[] = [];
    const ids: string[] = [];
    const named = new Set<string>();
    for (let k = 0; k < perEpisode && e * perEpisode + k < edges; k++) {
      const n = e * perEpisode + k;
      const who = `${pick(FIRST)} ${pick(LAST)}`;
      const [relation, target] = r() < 0.5 ? ["lives_in", pick(CITIES)] : ["works_at", pick(ORGS)];
      const fact = `${who} ${relation === "lives_in" ? "lives in" : "works at"} ${target} (note ${n}).`;
      const [source, dest] = [entityOf(who), entityOf(target)];
      named.add(source).add(dest);
      facts.push(fact);
      ids.push(`edge_b_${n}`);
      const invalid = n % 10 === 9;
      edgeLines.push(
        line("edge", {
          id: `edge_b_${n}`,
          source,
          target: dest,
          relation,
          fact,
          tValid: at - DAY,
          tInvalid: invalid ? at + DAY : null,
          tIngested: at,
          tExpired: invalid ? at + DAY : null,
          episodeId: id,
          invalidationReason: invalid ? "superseded (bench)" : null,
          invalidatedBy: null,
        }),
      );
    }
    chunk += line("episode", {
      id,
      content: facts.join(" "),
      metadata: { source: "bench", n: e },
      occurredAt: at,
      createdAt: oneInstant ? t0 : at,
      status: "done",
      error: null,
      entityIds: [...named],
      edgeIds: ids,
      processedAt: at + 1000,
    });
    if (e % 200 === 199) {
      yield chunk;
      chunk = "";
    }
  }
  for (const [name, id] of entityIds) {
    const key = name.toLowerCase();
    const person = name.includes(" ");
    chunk += line("entity", {
      id,
      name,
      kind: person ? "person" : CITIES.includes(name) ? "place" : "organization",
      aliases: [],
      keys: [key, ...key.split(" ").map((t) => `t:${t}`)],
      createdAt: t0,
      updatedAt: t0,
    });
  }
  yield chunk;
  for (let i = 0; i < edgeLines.length; i += 500) yield edgeLines.slice(i, i + 500).join("");
  yield line("end", { counts: { episodes: episodeCount, entities: entityIds.size, edges, playbooks: 0 } });
}

interface Row extends Record<string, string | number> {
  engine: string;
  edges: number;
  "load edges/s": number;
  "export edges/s": number;
  "export MB": number;
  "import edges/s": number;
  "one-instant import edges/s": number;
  "erase subject ms": number;
  erased: string;
}

async function measure(name: StoreName, edges: number, perEpisode: number, dir: string): Promise<Row | string> {
  const opened = await openStore(name);
  if (!opened) return `${name}: skipped (no MOUNTKIT_BENCH_PG_URL and no initdb/pg_ctl on PATH)`;
  const service = createMemoryService({ store: opened.store, dailyQuota: 1e12, worker: { start: false } });
  const file = join(dir, `${name}.jsonl`);
  try {
    // 1. the brain: a generated export imported into it (what the store's batched writes cost from an ideal source)
    let t = performance.now();
    await opened.store.createBrain({ brain: { id: "bench", name: "bench", createdAt: Date.now() } });
    await service.api.importBrain("bench", generatedExport(edges, perEpisode));
    const load = edges / ((performance.now() - t) / 1000);
    // 2. export to a file, the CLI's path: paged reads, one JSON line per record
    t = performance.now();
    const out = createWriteStream(file);
    for await (const chunk of service.api.exportBrain("bench")) if (!out.write(chunk)) await once(out, "drain");
    await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
    const exportRate = edges / ((performance.now() - t) / 1000);
    // 3. that file into another brain of the same database
    t = performance.now();
    await opened.store.createBrain({ brain: { id: "copy", name: "copy", createdAt: Date.now() } });
    const imported = await service.api.importBrain("copy", createReadStream(file));
    const importRate = edges / ((performance.now() - t) / 1000);
    if (imported.counts.edges !== edges) throw new Error(`${name}: imported ${imported.counts.edges} edges of ${edges}`);
    // 4. the same brain, every episode stored in one millisecond: each new episode follows the newest one, which
    // an index must find without reading the others of that millisecond
    t = performance.now();
    await opened.store.createBrain({ brain: { id: "instant", name: "instant", createdAt: Date.now() } });
    await service.api.importBrain("instant", generatedExport(edges, perEpisode, true));
    const instantRate = edges / ((performance.now() - t) / 1000);
    // 5. one subject erased in the 100k-edge brain (the other two brains hold as many again in the same tables)
    // ent_b_0 is a person named in about 1 episode in 30: every such episode goes whole, with its edges
    const subject = "ent_b_0";
    t = performance.now();
    const r = await service.api.forgetSubject("bench", subject);
    const eraseMs = performance.now() - t;
    return {
      engine: name,
      edges,
      "load edges/s": load,
      "export edges/s": exportRate,
      "export MB": statSync(file).size / 1e6,
      "import edges/s": importRate,
      "one-instant import edges/s": instantRate,
      "erase subject ms": eraseMs,
      erased: `${r.removed.episodes.length} ep, ${r.removed.edges.length} edges, ${r.removed.entities.length} ent`,
    };
  } finally {
    await service.dispose();
    await opened.close();
  }
}

export async function run(args: string[]): Promise<void> {
  const edges = arg(args, "edges", 100_000);
  const perEpisode = arg(args, "per-episode", 5);
  const stores = argList(args, "store", ["sqlite", "postgres"]) as StoreName[];
  console.log(
    `brain of ${edges} edges (${perEpisode} per episode), exported to a file and imported into a second brain; then one subject erased`,
  );
  const dir = mkdtempSync(join(tmpdir(), "mountkit-bench-transfer-"));
  const rows: Row[] = [];
  try {
    for (const name of stores) {
      const row = await measure(name, edges, perEpisode, dir);
      if (typeof row === "string") console.log(`   ${row}`);
      else {
        rows.push(row);
        console.log(`   ${name} done`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(table(rows));
}
