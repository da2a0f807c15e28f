// Runs the example server (`npm start`'s entry point) as a child process for multi-process and crash
// tests: a random port, the environment given, stdout/stderr kept for failure messages. Each child reports its
// worst event-loop delay (./loop-delay-child.mjs); a test file whose children stalled past the loop-delay guard's
// threshold fails in a file-level afterAll registered here, naming the test that started each one.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect } from "vitest";
import { LOOP_DELAY_MAX_MS } from "../loop-delay.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const probe = fileURLToPath(new URL("./loop-delay-child.mjs", import.meta.url));

/** Worst event-loop delay of each child this file started and stopped, in ms, by what started it. */
const childDelays: Array<{ label: string; maxMs: number }> = [];
let delayDir: string | undefined;

afterAll(() => {
  if (delayDir) rmSync(delayDir, { recursive: true, force: true });
  if (process.env.MOUNTKIT_LOOP_DELAY_REPORT === "1")
    for (const c of childDelays) console.log(`loop delay of ${c.label}: ${c.maxMs.toFixed(0)} ms`);
  const over = childDelays.filter((c) => c.maxMs > LOOP_DELAY_MAX_MS);
  if (over.length > 0)
    throw new Error(
      `loop-delay guard: example server processes stalled their event loop past ${LOOP_DELAY_MAX_MS} ms (MOUNTKIT_LOOP_DELAY_MAX_MS):\n` +
        over.map((c) => `  ${c.maxMs.toFixed(0).padStart(6)} ms  ${c.label}`).join("\n"),
    );
});

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  /** kill -9: no shutdown handler runs. */
  crash(): Promise<void>;
  /** SIGTERM and wait for a clean exit. */
  stop(): Promise<void>;
}

/** `nodeFlags` go to Node before the loaders, as a host's own (`node --max-old-space-size=4096 server.js`). */
export async function startServer(
  env: Record<string, string>,
  timeoutMs = 60_000,
  nodeFlags: readonly string[] = [],
): Promise<ServerProcess> {
  delayDir ??= mkdtempSync(join(tmpdir(), "mk-loop-delay-"));
  const delayFile = join(delayDir, `${childDelays.length}-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  const child = spawn(
    process.execPath,
    [...nodeFlags, "--conditions=mountkit-source", "--import", "tsx", "--import", probe, "examples/server/src/main.ts"],
    {
      cwd: repo,
      env: {
        ...process.env,
        PORT: "0",
        HOST: "127.0.0.1",
        LOG_LEVEL: "warn",
        FRAMEWORK: "fastify",
        DATABASE_URL: "",
        ...env,
        MOUNTKIT_LOOP_DELAY_FILE: delayFile,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const storage = env.DATABASE_URL ? "postgres" : env.DATA_DIR ? "sqlite" : "in-memory";
  const state = expect.getState();
  const label = `the example server [${env.FRAMEWORK ?? "fastify"}, ${storage}] started in ${state.currentTestName ?? `a hook of ${basename(state.testPath ?? "?")}`}`;
  let recorded = false;
  /** Once the child is gone: its worst delay joins the file's record (a child that served nothing has none). */
  const record = () => {
    if (recorded || !existsSync(delayFile)) return;
    recorded = true;
    try {
      childDelays.push({ label, maxMs: (JSON.parse(readFileSync(delayFile, "utf8")) as { maxMs: number }).maxMs });
    } catch (e) {
      childDelays.push({ label: `${label} (its record is unreadable: ${String(e)})`, maxMs: Number.POSITIVE_INFINITY });
    }
  };
  let out = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => {
    out += c;
  });
  child.stderr!.setEncoding("utf8").on("data", (c: string) => {
    out += c;
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r())).then(record);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const check = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${out}`));
    });
  });
  return {
    url,
    child,
    output: () => out,
    async crash() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
