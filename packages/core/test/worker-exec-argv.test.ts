// The Node options the kit's worker threads get from the host's: module loaders dropped, and the options Node refuses
// in a worker's execArgv (V8's and the whole process's) dropped, so a host started with them still gets its threads.
import { Worker } from "node:worker_threads";
import { workerExecArgv } from "@mountkit/core/worker-module";
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

  it("drops the options Node refuses in a worker, with their values given apart, and keeps the others in order", async () => {
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
