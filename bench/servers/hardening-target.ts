// Benchmark target for `bench hardening`: the entries service alone (default validation pool) on a framework.
// argv: <framework>. Prints `url <base>`; answers a stdin line `rss` with `rss <current MB> <peak MB since last rss>`,
// and `eld` with `eld <p50 ms> <p99 ms> <max ms>`: this process's event-loop delay since the last `eld`.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createEntriesService, devAuth } from "@mountkit/entries";
import { FRAMEWORKS, type Framework, listen } from "../../examples/server/src/listen.js";
import { onCommands } from "./control.js";

const framework = (process.argv[2] ?? "fastify") as Framework;
if (!FRAMEWORKS.includes(framework)) throw new Error(`framework must be one of ${FRAMEWORKS.join(", ")}`);
// MOUNTKIT_BENCH_WORKER_NICE=0 runs the validation workers at the event loop's priority (the pool's default is +10)
const nice = process.env.MOUNTKIT_BENCH_WORKER_NICE;
const entries = createEntriesService({
  auth: (await devAuth()).verifier,
  validation: nice === undefined ? {} : { lowerPriorityBy: Number(nice) },
});
const running = await listen(framework, [entries]);
let peak = 0;
// what the latency target is really about, free of the load generator's and the machine's noise
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
// RSS counts the worker threads too: they live in this process
setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, 20).unref();
console.log(`url ${running.url}`);
onCommands(
  (cmd) => {
    if (cmd === "rss") {
      const now = process.memoryUsage.rss();
      console.log(`rss ${(now / 2 ** 20).toFixed(1)} ${(Math.max(peak, now) / 2 ** 20).toFixed(1)}`);
      peak = 0;
    } else if (cmd === "eld") {
      const ms = (ns: number) => (ns / 1e6).toFixed(1);
      console.log(`eld ${ms(delay.percentile(50))} ${ms(delay.percentile(99))} ${ms(delay.max)}`);
      delay.reset();
    }
  },
  async () => {
    await running.close();
    await entries.dispose();
    process.exit(0);
  },
);
