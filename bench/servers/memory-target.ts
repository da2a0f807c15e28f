// Benchmark target: the memory service alone in this process, on a fresh SQLite file (queue and store), behind a
// framework, so that ingestion over HTTP is measured as a host serves it: the client in another process.
// argv: <framework> <worker concurrency or "default">; env BENCH_BRAINS: brain ids, comma-separated, each given the key
// `${BENCH_KEY}_${index}`. stdin: "start" -> "started" (CPU and loop delay counted from here); "idle" -> after every
// episode is extracted, "idle <CPU ms of every thread of this process> <worst loop delay ms> <edges> <CPU ms of the
// main thread, or NaN off Linux>".
import { monitorEventLoopDelay } from "node:perf_hooks";
import { FRAMEWORKS, type Framework, listen } from "../../examples/server/src/listen.js";
import { mainThreadCpuMs } from "../lib.js";
import { benchMemory, countEdges } from "../memory-throughput.js";
import { onCommands } from "./control.js";

const framework = (process.argv[2] ?? "fastify") as Framework;
if (!FRAMEWORKS.includes(framework)) throw new Error(`framework must be one of ${FRAMEWORKS.join(", ")}`);
const concurrency = process.argv[3] && process.argv[3] !== "default" ? Number(process.argv[3]) : undefined;
const brains = (process.env.BENCH_BRAINS ?? "").split(",").filter(Boolean);
const keyPrefix = process.env.BENCH_KEY ?? "mk_bench_target";

const { service, close } = await benchMemory(concurrency);
for (const [i, brainId] of brains.entries()) await service.keys.create({ brainId, key: `${keyPrefix}_${i}` });
// the threads warmed (model load) on another brain, outside the timing
await service.api.createEpisode("tp-warm-up", { content: "Warm-up: Ana moved to Lisbon in 2019." });
await service.worker.idle();
const running = await listen(framework, [service]);

const loop = monitorEventLoopDelay({ resolution: 10 });
let cpu0 = process.cpuUsage();
let main0 = mainThreadCpuMs();
async function command(cmd: string) {
  if (cmd === "start") {
    loop.reset();
    loop.enable();
    cpu0 = process.cpuUsage();
    main0 = mainThreadCpuMs();
    process.stdout.write("started\n");
  } else if (cmd === "idle") {
    await service.worker.idle();
    const cpu = process.cpuUsage(cpu0);
    const main1 = mainThreadCpuMs();
    loop.disable();
    const edges = await countEdges(service, brains);
    process.stdout.write(`idle ${(cpu.user + cpu.system) / 1000} ${loop.max / 1e6} ${edges} ${main1 - main0}\n`);
  }
}

onCommands(command, async () => {
  await running.close();
  await close();
  process.exit(0);
});
process.stdout.write(`url ${running.url}\n`);
