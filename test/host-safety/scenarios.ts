// Issue 24's table as code: each scenario is what one hostile or busy client sends to the example server, run while
// a probe times an unrelated route (`GET /openapi.yaml`, no database) every 25 ms. The acceptance suite
// (test/host-safety.test.ts) asserts on the results; `npm run bench -- hardening` prints them beside an idle baseline.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { Agent } from "node:http";
import { fileURLToPath } from "node:url";
import { france } from "../../packages/entries/test/fixtures/countries.js";
import { episodeBodies, pointerChainSpec, type SpecHost, serveSpecs } from "./hostile.js";
import { type Answer, jsonOf, type ProbeStats, send, sleep, startProbe } from "./http.js";
import { type Host, SOURCE_FLAGS } from "./server.js";

/** The acceptance figures of issue 24. */
export const LIMITS = {
  /** The unrelated request, over a scenario. */
  unrelatedP99Ms: 100,
  unrelatedMaxMs: 500,
  /** Every hostile request is answered within this (a refusal counts). */
  hostileAnswerMs: 15_000,
  /** A database read while another process holds the SQLite write lock. */
  readUnderLockMs: 1_000,
  /** The server's SQLite busy timeout (`busyTimeoutMs` in packages/sql): a write waiting longer answers 503. */
  sqliteLockTimeoutMs: 10_000,
  /** "Accepted promptly": every `POST /v1/episodes` of the 50 answers 202 within this. */
  episodeAcceptMs: 5_000,
  /** Share of existing customers' requests admitted while another client rotates customer ids. */
  existingCustomersAdmitted: 0.5,
} as const;

/** Built once, before any probe runs: the test process must not stall its own loop (and so the probe) while measuring. */
export interface Kit {
  /** The pointer-chain document, and a host that publishes it as `specs.url("chain.json")`. */
  chain: string;
  specs: SpecHost;
  /** 50 bodies of about 50 KB each. */
  manyEpisodes: string[];
  /** One body of about 97 KB (the content cap is 100,000 characters). */
  largeEpisode: string;
  close(): Promise<void>;
}

export async function prepareKit(o: { episodes?: number } = {}): Promise<Kit> {
  const chain = pointerChainSpec();
  const specs = await serveSpecs({ "chain.json": chain });
  return {
    chain,
    specs,
    manyEpisodes: episodeBodies(o.episodes ?? 50, 50_000),
    largeEpisode: episodeBodies(1, 97_000, 97)[0]!,
    close: () => specs.close(),
  };
}

export interface Measured<R> {
  scenario: string;
  /** The unrelated request over the scenario's whole run. */
  unrelated: ProbeStats;
  result: R;
  /** Wall time of the scenario. */
  ms: number;
}

/** Runs `work` with the probe on; the probe's figures cover exactly the scenario's run. */
export async function measured<R>(host: Host, scenario: string, work: () => Promise<R>): Promise<Measured<R>> {
  const probe = startProbe(`${host.url}/openapi.yaml`);
  const t0 = performance.now();
  const outcome = await work().then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );
  const unrelated = await probe.stop();
  if ("error" in outcome) throw outcome.error;
  return { scenario, unrelated, result: outcome.result, ms: performance.now() - t0 };
}

/** The baseline: the probe alone on the same server for `ms`. */
export function idle(host: Host, ms: number): Promise<Measured<null>> {
  return measured(host, "idle (no hostile load)", () => sleep(ms).then(() => null));
}

/** Unrelated figures past the limits, as readable lines (empty when within them). */
export function unrelatedViolations(s: ProbeStats): string[] {
  const out: string[] = [];
  if (!(s.p99 < LIMITS.unrelatedP99Ms)) out.push(`p99 ${s.p99.toFixed(1)} ms (limit ${LIMITS.unrelatedP99Ms})`);
  if (!(s.max < LIMITS.unrelatedMaxMs)) out.push(`worst ${s.max.toFixed(1)} ms (limit ${LIMITS.unrelatedMaxMs})`);
  if (s.failures.length) out.push(`${s.failures.length} failed: ${[...new Set(s.failures)].join(", ")}`);
  return out;
}

const short = (a: Answer) => `${a.status || "no answer"} in ${(a.ms / 1000).toFixed(2)} s`;

// ---- the pointer-chain document --------------------------------------------------------------------------------

export interface OneAnswer {
  answer: Answer;
}

const SMALL_SPEC = JSON.stringify({
  openapi: "3.0.3",
  info: { title: "small", version: "1" },
  paths: { "/a": { get: { responses: { 200: { description: "ok" } } } } },
});

/**
 * A small valid document, the first validation the server does: whatever the validator builds on first use is built
 * here, so the pointer-chain scenarios after it measure the chain alone.
 */
export function firstValidation(host: Host): Promise<OneAnswer> {
  return measuredAnswer(`${host.url}/api/dev/validate-openapi/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: SMALL_SPEC,
  });
}

/** The document posted as is to the validation address, no credentials. */
export function pointerChainPosted(host: Host, kit: Kit): Promise<OneAnswer> {
  const body = kit.chain;
  return measuredAnswer(`${host.url}/api/dev/validate-openapi/`, { method: "POST", headers: { "content-type": "application/json" }, body });
}

/** The validation address told to fetch the document (`{ "url": ... }`). */
export function pointerChainByUrl(host: Host, kit: Kit): Promise<OneAnswer> {
  const body = JSON.stringify({ url: kit.specs.url("chain.json") });
  return measuredAnswer(`${host.url}/api/dev/validate-openapi/`, { method: "POST", headers: { "content-type": "application/json" }, body });
}

/** An `apis` entry whose `specUrl` is the document (authenticated: the kit fetches, validates and catalogues it). */
export function pointerChainSpecUrl(host: Host, kit: Kit): Promise<OneAnswer> {
  const body = JSON.stringify({ name: "chain", description: "pointer chain", customData: { specUrl: kit.specs.url("chain.json") } });
  return measuredAnswer(`${host.url}/api/v1/types/apis/data`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: host.entriesAuth },
    body,
  });
}

async function measuredAnswer(url: string, o: Parameters<typeof send>[1]): Promise<OneAnswer> {
  // waits past the limit so a failure shows how late the answer came, bounded so a wedged server cannot hang the run
  return { answer: await send(url, { ...o, timeoutMs: LIMITS.hostileAnswerMs * 2 }) };
}

export const answerSummary = (r: OneAnswer) => short(r.answer);

// ---- episodes --------------------------------------------------------------------------------------------------

export interface EpisodesResult {
  accepts: Answer[];
  /** Episodes whose status reached `done` / `failed`, and those still pending at the deadline. */
  done: number;
  failed: number;
  pending: number;
  /** From the first POST to the last episode done (or the deadline). */
  extractMs: number;
}

/**
 * Posts every body at once, then polls each accepted episode (`GET /v1/episodes/:id`) until it is `done` or `failed`,
 * for at most `deadlineMs`. A round a second goes through the pending episodes in order and stops at the first still
 * at work (one brain's episodes are extracted in order, so the polling stays a request or two a second, not one per
 * episode: its own load would slow the extraction it waits for); a last round checks every one still pending.
 */
export async function postEpisodes(host: Host, bodies: readonly string[], deadlineMs: number): Promise<EpisodesResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: bodies.length });
  const headers = { "content-type": "application/json", authorization: host.memoryAuth };
  const t0 = performance.now();
  try {
    const accepts = await Promise.all(
      bodies.map((body) =>
        send(`${host.url}/v1/episodes`, { method: "POST", headers, body, agent, timeoutMs: LIMITS.hostileAnswerMs * 2 }),
      ),
    );
    const pending = new Set(accepts.filter((a) => a.status === 202).map((a) => jsonOf(a)?.id as string));
    let done = 0;
    let failed = 0;
    const poll = new Agent({ keepAlive: true, maxSockets: 1 });
    /** False while the episode is still queued or at work. */
    const settled = async (id: string) => {
      const a = await send(`${host.url}/v1/episodes/${encodeURIComponent(id)}`, { headers, agent: poll, timeoutMs: 10_000 });
      const status = jsonOf(a)?.status;
      if (status !== "done" && status !== "failed") return false;
      pending.delete(id);
      status === "done" ? done++ : failed++;
      return true;
    };
    try {
      while (pending.size && performance.now() - t0 < deadlineMs) {
        await sleep(1000);
        for (const id of [...pending]) if (!(await settled(id))) break;
      }
      for (const id of [...pending]) await settled(id);
    } finally {
      poll.destroy();
    }
    return { accepts, done, failed, pending: pending.size, extractMs: performance.now() - t0 };
  } finally {
    agent.destroy();
  }
}

export function episodesSummary(r: EpisodesResult): string {
  const statuses = countBy(r.accepts.map((a) => String(a.status || "none")));
  const slowest = Math.max(...r.accepts.map((a) => a.ms));
  const extracted = `${r.done} done${r.failed ? `, ${r.failed} failed` : ""}${r.pending ? `, ${r.pending} pending` : ""}`;
  return `${statuses} (slowest ${(slowest / 1000).toFixed(2)} s); ${extracted} in ${(r.extractMs / 1000).toFixed(1)} s`;
}

// ---- another process holds the SQLite write lock ----------------------------------------------------------------

export interface LockResult {
  holdMs: number;
  /** `GET /api/v1/types/apis/data` (a list of entries) every 400 ms during the hold. */
  reads: Answer[];
  /** `POST /api/v1/types/countries/data`, sent as soon as the lock is held. */
  write: Answer;
}

const FRANCE = { name: "France", description: "The French Republic", customData: france };

/**
 * Another process takes `BEGIN EXCLUSIVE` on the server's SQLite file for `holdMs` while clients read and write.
 * Staged: the holder process starts (and opens the file) before the measured window, which `run` opens.
 */
export async function stageWriteLock(host: Host, holdMs: number): Promise<Staged<LockResult>> {
  if (!host.sqliteFile) throw new Error("the write-lock scenario needs a SQLite host");
  const holder = await helper("hold-lock.ts", [host.sqliteFile, String(holdMs)]);
  return {
    async run() {
      holder.say("lock");
      await holder.line("locked");
      const t0 = performance.now();
      const write = send(`${host.url}/api/v1/types/countries/data`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: host.entriesAuth },
        body: JSON.stringify(FRANCE),
        timeoutMs: holdMs + LIMITS.hostileAnswerMs,
      });
      const reads: Answer[] = [];
      while (performance.now() - t0 < holdMs - 500) {
        reads.push(await send(`${host.url}/api/v1/types/apis/data`, { timeoutMs: holdMs + 5_000 }));
        await sleep(400);
      }
      const answer = await write;
      await holder.exited;
      return { holdMs, reads, write: answer };
    },
    dispose: () => holder.kill(),
  };
}

/** A scenario whose helpers are started: `run` is the measured part, `dispose` ends what is left of them. */
export interface Staged<R> {
  run(): Promise<R>;
  dispose(): Promise<void>;
}

/** `measured` around a staged scenario, disposing its helpers whatever happens. */
export async function measuredStaged<R>(host: Host, scenario: string, staged: Staged<R>): Promise<Measured<R>> {
  try {
    return await measured(host, scenario, () => staged.run());
  } finally {
    await staged.dispose();
  }
}

interface Helper {
  say(line: string): void;
  /** Resolves with the first stdout line starting with `prefix` (already printed or to come); rejects if it exits first. */
  line(prefix: string): Promise<string>;
  exited: Promise<void>;
  kill(): Promise<void>;
}

/** Starts one of this folder's helper scripts and waits for its `ready` line. */
async function helper(script: string, args: string[]): Promise<Helper> {
  const path = fileURLToPath(new URL(`./${script}`, import.meta.url));
  const child = spawn(process.execPath, [...SOURCE_FLAGS, path, ...args], { stdio: ["pipe", "pipe", "inherit"] });
  let out = "";
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  child.stdout!.setEncoding("utf8").on("data", (c: string) => void (out += c));
  const line = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const found = out.split("\n").find((l) => l.startsWith(prefix));
        if (found === undefined) return false;
        child.stdout!.off("data", check);
        resolve(found);
        return true;
      };
      if (check()) return;
      child.stdout!.on("data", check);
      void exited.then(() => check() || reject(new Error(`${script} exited (${child.exitCode}) before printing "${prefix}": ${out}`)));
    });
  const h: Helper = {
    say: (l) => void child.stdin!.write(`${l}\n`),
    line,
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
  await line("ready");
  return h;
}

export function lockSummary(r: LockResult): string {
  const slowestRead = Math.max(...r.reads.map((a) => a.ms));
  const reads = `${r.reads.length} reads ${countBy(r.reads.map((a) => String(a.status || "none")))}, slowest ${slowestRead.toFixed(0)} ms`;
  const retry = r.write.headers["retry-after"] ? ` Retry-After ${r.write.headers["retry-after"]}` : "";
  return `${reads}; write ${short(r.write)}${retry}`;
}

// ---- rotating customer ids -------------------------------------------------------------------------------------

export interface Counts {
  sent: number;
  ok: number;
  limited: number;
  other: number;
}

export interface RotatingResult {
  existing: Counts;
  rotating: Counts;
  /** The rotating client's source address (127.0.0.2: another client than the existing customers'). */
  rotatingFrom: string;
}

export interface RotatingOptions {
  loops?: number;
  existingCustomers?: number;
  /** Each existing customer lists its conversations this often. */
  everyMs?: number;
  seconds?: number;
}

/**
 * `loops` loops in another process list conversations with a new random customerId per request, from another loopback
 * address, while existing customers (admitted once before) list theirs every `everyMs`. Staged: the existing customers
 * become known and the client process starts before the measured window.
 */
export async function stageRotatingCustomers(host: Host, o: RotatingOptions = {}): Promise<Staged<RotatingResult>> {
  const { loops = 16, existingCustomers = 5, everyMs = 500, seconds = 5 } = o;
  const list = (customerId: string, agent: Agent) =>
    send(`${host.url}/api/conversations/list?${new URLSearchParams({ productSlug: host.product, customerId })}`, {
      agent,
      timeoutMs: 20_000,
    });
  const agent = new Agent({ keepAlive: true, maxSockets: existingCustomers });
  const ids = Array.from({ length: existingCustomers }, () => `cust_${randomUUID()}`);
  for (const id of ids) await list(id, agent);
  const rotatingFrom = (await canBind("127.0.0.2", host.url)) ? "127.0.0.2" : "";
  const client = await helper("rotating-client.ts", [host.url, host.product, String(loops), String(seconds), "5000", rotatingFrom]);
  // the existing customers' first requests leave the windows before the attack starts
  await sleep(1100);
  return {
    async run() {
      client.say("go");
      const existing: Counts = { sent: 0, ok: 0, limited: 0, other: 0 };
      const until = performance.now() + seconds * 1000;
      await Promise.all(
        ids.map(async (id) => {
          for (let next = performance.now(); next < until; next += everyMs) {
            await sleep(next - performance.now());
            const a = await list(id, agent);
            existing.sent++;
            if (a.status === 200) existing.ok++;
            else if (a.status === 429) existing.limited++;
            else existing.other++;
          }
        }),
      );
      const rotating = JSON.parse((await client.line("result ")).slice("result ".length)) as Counts;
      return { existing, rotating, rotatingFrom: rotatingFrom || "127.0.0.1 (no second loopback address)" };
    },
    async dispose() {
      agent.destroy();
      await client.kill();
    },
  };
}

/** Whether this machine routes `address` as a loopback source (Linux: all of 127/8). */
async function canBind(address: string, url: string): Promise<boolean> {
  const a = await send(`${url}/openapi.yaml`, { localAddress: address, timeoutMs: 2_000 });
  return a.status === 200;
}

export function rotatingSummary(r: RotatingResult): string {
  const pct = (c: Counts) => `${c.ok}/${c.sent}${c.other ? ` (${c.other} neither 200 nor 429)` : ""}`;
  return `existing customers admitted ${pct(r.existing)}; rotating client admitted ${pct(r.rotating)} (from ${r.rotatingFrom})`;
}

function countBy(xs: string[]): string {
  const m = new Map<string, number>();
  for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1);
  return [...m].map(([k, n]) => `${n}×${k}`).join(" ");
}
