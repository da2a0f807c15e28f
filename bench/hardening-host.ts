// Hardening benchmark, issue 24's figures: per adapter, the unrelated request's p50/p99/max under each scenario of the
// issue's table next to an idle baseline on the same server, then throughput in the same run (episodes/s through HTTP on
// SQLite; the adapters' requests per CPU-second from bench/adapters.ts). The scenarios are the acceptance suite's own
// (test/host-safety/scenarios.ts); here the example server runs on dist/, not pinned: the host under test is a 2-core
// machine with its worker threads, as deployed.
import { execFileSync } from "node:child_process";
import { availableParallelism, loadavg } from "node:os";
import {
  answerSummary,
  episodesSummary,
  firstValidation,
  idle,
  LIMITS,
  lockSummary,
  type Measured,
  measured,
  measuredStaged,
  pointerChainByUrl,
  pointerChainPosted,
  pointerChainSpecUrl,
  postEpisodes,
  prepareKit,
  rotatingSummary,
  stageRotatingCustomers,
  stageWriteLock,
  type Kit,
} from "../test/host-safety/scenarios.js";
import { episodeBodies } from "../test/host-safety/hostile.js";
import { type Framework, type Host, responsive, startHost } from "../test/host-safety/server.js";
import { arg, argList, nodeFlags, table } from "./lib.js";

interface Scenario {
  name: string;
  run(host: Host, kit: Kit): Promise<Measured<unknown> & { summary: string }>;
}

const withSummary = async <R>(m: Promise<Measured<R>>, summary: (r: R) => string) => {
  const done = await m;
  return { ...done, summary: summary(done.result) };
};

function scenarios(extractMs: number): Scenario[] {
  const chain = (name: string, run: typeof pointerChainPosted): Scenario => ({
    name,
    run: (h, kit) =>
      withSummary(
        measured(h, name, () => run(h, kit)),
        answerSummary,
      ),
  });
  const lock = (holdMs: number, name = `SQLite write lock held ${holdMs / 1000} s by another process`): Scenario => ({
    name,
    run: async (h) => withSummary(measuredStaged(h, name, await stageWriteLock(h, holdMs)), lockSummary),
  });
  const episodes = (name: string, pick: (kit: Kit) => string[]): Scenario => ({
    name,
    run: (h, kit) =>
      withSummary(
        measured(h, name, () => postEpisodes(h, pick(kit), extractMs)),
        episodesSummary,
      ),
  });
  return [
    chain("first OpenAPI validation after start (small document)", (h) => firstValidation(h)),
    chain("pointer-chain document posted, no auth", pointerChainPosted),
    chain("the same through { url }", pointerChainByUrl),
    chain("the same as an apis entry's specUrl", pointerChainSpecUrl),
    lock(5_000),
    lock(LIMITS.sqliteLockTimeoutMs + 2_000),
    {
      name: "16 loops rotating customer ids",
      run: async (h) => withSummary(measuredStaged(h, "16 loops rotating customer ids", await stageRotatingCustomers(h)), rotatingSummary),
    },
    episodes("one 97 KB episode", (kit) => [kit.largeEpisode]),
    episodes("50 concurrent 50 KB episodes", (kit) => kit.manyEpisodes),
  ];
}

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "-");
const triple = (m: Measured<unknown>) => `${fmt(m.unrelated.p50)} / ${fmt(m.unrelated.p99)} / ${fmt(m.unrelated.max)}`;

/** Every scenario against one server of `framework`, each after a fresh idle baseline; a wedged server is replaced. */
async function adapterFigures(framework: Framework, kit: Kit, o: { idleMs: number; extractMs: number }) {
  let host = await startHost({ framework, nodeFlags: nodeFlags() });
  const rows: Array<Record<string, string | number>> = [];
  try {
    for (const s of scenarios(o.extractMs)) {
      if (!(await responsive(host))) {
        await host.stop(1_000);
        host = await startHost({ framework, nodeFlags: nodeFlags() });
      }
      const base = await idle(host, o.idleMs);
      const m = await s.run(host, kit);
      rows.push({
        scenario: s.name,
        "idle p50/p99/max ms": triple(base),
        "under load p50/p99/max ms": triple(m),
        "unrelated failed": m.unrelated.failures.length,
        "hostile requests": m.summary,
        "load avg": loadavg()[0]!.toFixed(1),
      });
    }
  } finally {
    await host.stop(3_000);
  }
  return rows;
}

/** Episodes per second through HTTP on SQLite: `count` bodies of `bytes` posted at once, until every one is extracted. */
async function episodeThroughput(count: number, bytes: number, extractMs: number) {
  const bodies = episodeBodies(count, bytes, 7);
  const host = await startHost({ framework: "fastify", nodeFlags: nodeFlags() });
  try {
    const r = await postEpisodes(host, bodies, extractMs);
    return {
      episodes: `${count} × ${bytes / 1000} KB`,
      extracted: `${r.done}/${count}`,
      seconds: r.extractMs / 1000,
      "episodes/s": r.done / (r.extractMs / 1000),
      "KB/s": (r.done * bytes) / 1000 / (r.extractMs / 1000),
    };
  } finally {
    await host.stop(3_000);
  }
}

/**
 * Undoes `pinning()` of the figures before these (lib.ts pins this process, and children inherit it): the example
 * server and its worker threads get the whole machine, as a host does.
 */
function unpin(): void {
  if (process.platform !== "linux") return;
  try {
    execFileSync("taskset", ["-a", "-p", "-c", `0-${availableParallelism() - 1}`, String(process.pid)], { stdio: "ignore" });
  } catch {}
}

export async function runHostSafety(args: string[]): Promise<void> {
  unpin();
  const frameworks = argList(args, "framework", ["fastify", "express", "fetch"]) as Framework[];
  const idleMs = arg(args, "idle-seconds", 5) * 1000;
  const extractMs = arg(args, "extract-seconds", 300) * 1000;
  const kit = await prepareKit();
  try {
    for (const fw of frameworks) {
      console.log(
        `\n(4) issue 24: unrelated GET /openapi.yaml every 25 ms, idle then under each scenario (${fw}, SQLite, example server on dist/)`,
      );
      console.log(
        `    targets: p99 < ${LIMITS.unrelatedP99Ms} ms, worst < ${LIMITS.unrelatedMaxMs} ms; hostile answered < ${LIMITS.hostileAnswerMs / 1000} s`,
      );
      console.log(table(await adapterFigures(fw, kit, { idleMs, extractMs })));
    }
  } finally {
    await kit.close();
  }
  if (args.includes("--no-throughput")) return;
  console.log("\n(5) throughput in the same run: episodes through HTTP (fastify, SQLite), posted at once, until all extracted");
  const small = await episodeThroughput(arg(args, "episodes", 100), 5_000, extractMs);
  const large = await episodeThroughput(20, 50_000, extractMs);
  console.log(table([small, large]));
  console.log(
    "\n(6) throughput in the same run: the adapters' requests per CPU-second (bench/adapters.ts; req/CPU-s = 1e6 / kit CPU µs/req)",
  );
  const adapters = (await import("./adapters.js")) as { run(args: string[]): Promise<void> };
  await adapters.run(["--rounds", "3", "--procs", "1", "--streams", "50", "--events", "20", "--framework", frameworks.join(",")]);
}
