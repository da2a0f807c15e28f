// How the kit's worker threads start inside a host. Their module: a clear error when the host bundled the kit into its
// own file. The Node options they get from the host's: module loaders and preloads dropped (from execArgv and
// NODE_OPTIONS), and the options Node refuses in a worker's execArgv (V8's and the whole process's) dropped, so a host
// started with them still gets its threads, and a host's tracing preload does not start again in each of them.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { prepareWorkerModule, workerEnv, workerExecArgv, workerModule } from "@mountkit/core/worker-module";
import { describe, expect, it } from "vitest";

/** Starts a worker with `execArgv` and answers what it saw as its own, once it has run. */
function execArgvSeen(execArgv: string[]): Promise<string[]> {
  const w = new Worker("require('node:worker_threads').parentPort.postMessage(process.execArgv)", { eval: true, execArgv });
  return new Promise((resolve, reject) => {
    w.once("message", (m: string[]) => {
      resolve(m);
      void w.terminate();
    });
    w.once("error", reject);
  });
}

describe("workerExecArgv", () => {
  it("keeps Yarn's Plug'n'Play runtime, without which no module resolves in such a project", () => {
    expect(
      workerExecArgv(["--require", "/app/.pnp.cjs", "--experimental-loader=file:///app/.pnp.loader.mjs", "--require", "/app/otel.cjs"]),
    ).toEqual(["--require", "/app/.pnp.cjs", "--experimental-loader=file:///app/.pnp.loader.mjs"]);
    const env = { NODE_OPTIONS: '--require "/my app/.pnp.cjs" --experimental-loader "/my app/.pnp.loader.mjs" --require /app/otel.cjs' };
    expect(workerEnv(env)).toEqual({ NODE_OPTIONS: '--require "/my app/.pnp.cjs" --experimental-loader "/my app/.pnp.loader.mjs"' });
    expect(workerEnv({ NODE_OPTIONS: "--require /app/.pnp.cjs" })).toBeUndefined();
  });

  it("drops loaders and preloads, given with '=' or apart", () => {
    expect(
      workerExecArgv([
        "--import",
        "tsx",
        "--import=x",
        "--loader",
        "l",
        "--experimental-loader=l",
        "--require",
        "r",
        "-r",
        "r",
        "--require=r",
      ]),
    ).toEqual([]);
  });

  it("drops the options Node refuses in a worker (with their values given apart) and the debugger pauses, and keeps the others in order", async () => {
    const host = [
      "--max-old-space-size=512",
      "--enable-source-maps",
      "--stack-trace-limit=50",
      "--conditions",
      "mountkit-source",
      "--expose-gc",
      "--title",
      "host",
      "--import",
      "tsx",
      "--no-warnings",
      "--abort-on-uncaught-exception",
      "--inspect-brk=127.0.0.1:0",
      "--inspect-wait",
    ];
    const kept = workerExecArgv(host);
    expect(kept).toEqual(["--enable-source-maps", "--conditions", "mountkit-source", "--no-warnings"]);
    // what was kept starts a worker, which sees it as its own
    expect(await execArgvSeen(kept)).toEqual(kept);
    // and what was dropped would not have
    expect(() => new Worker("", { eval: true, execArgv: host.filter((a) => !a.startsWith("--import") && a !== "tsx") })).toThrow(
      /invalid execArgv/,
    );
  });
});

describe("workerEnv", () => {
  it("leaves the environment alone when NODE_OPTIONS holds no loader or preload", () => {
    expect(workerEnv({ PATH: "/bin" })).toBeUndefined();
    expect(workerEnv({ NODE_OPTIONS: "--max-old-space-size=512 --conditions x" })).toBeUndefined();
  });

  it("drops loaders and preloads from NODE_OPTIONS, quoted as Node reads them, and keeps the rest", () => {
    const env = {
      PATH: "/bin",
      NODE_OPTIONS:
        '--require "/my dir/otel.cjs" --stack-trace-limit=7 --import=tsx -r dotenv/config --conditions "a \\"b\\""  --no-warnings',
    };
    expect(workerEnv(env)).toEqual({ PATH: "/bin", NODE_OPTIONS: '--stack-trace-limit=7 --conditions "a \\"b\\"" --no-warnings' });
    expect(workerEnv({ PATH: "/bin", NODE_OPTIONS: "--import tsx" })).toEqual({ PATH: "/bin" });
  });

  it("keeps a host's preload out of a worker given it, and the host's other options in", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mk-worker-env-"));
    try {
      const preload = join(dir, "preload.cjs");
      writeFileSync(preload, "globalThis.preloaded = true;");
      const host = { ...process.env, NODE_OPTIONS: `--require "${preload}" --no-deprecation` };
      const seen = (env: NodeJS.ProcessEnv) => {
        const w = new Worker(
          "require('node:worker_threads').parentPort.postMessage([globalThis.preloaded === true, process.noDeprecation === true])",
          { eval: true, env },
        );
        return new Promise<[boolean, boolean]>((resolve, reject) => {
          w.once("message", (m: [boolean, boolean]) => {
            resolve(m);
            void w.terminate();
          });
          w.once("error", reject);
        });
      };
      // as Node would start it for the host, and as the kit starts it
      expect(await seen({ ...process.env, NODE_OPTIONS: "" })).toEqual([false, false]);
      expect(await seen(host)).toEqual([true, true]);
      expect(await seen(workerEnv(host)!)).toEqual([false, true]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("workerModule", () => {
  it("answers the built worker beside the calling chunk, and says what to do when a bundler left it behind", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mk-worker-module-"));
    try {
      writeFileSync(join(dir, "thread.js"), "");
      const spec = { from: pathToFileURL(join(dir, "chunk.js")).href, built: "./thread.js", source: "./thread.ts", name: "thread" };
      expect(workerModule(spec)).toBe(pathToFileURL(join(dir, "thread.js")).href);
      expect(await prepareWorkerModule(spec)).toBe(pathToFileURL(join(dir, "thread.js")).href);
      // the host's bundle in place of the package's chunk: its worker is not beside it
      const bundled = { ...spec, from: pathToFileURL(join(dir, "server.mjs")).href, built: "./sqlite-worker.js" };
      const said = /worker module .*sqlite-worker\.js is missing: .*server\.mjs\. Keep the @mountkit\/\* packages external to the bundle/;
      expect(() => workerModule(bundled)).toThrow(said);
      await expect(prepareWorkerModule(bundled)).rejects.toThrow(said);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
