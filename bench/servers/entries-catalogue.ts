// Benchmark child: one way of processing a spec file, measured alone (CPU, wall, peak RSS above the loaded file).
// argv: <mode: catalogue|pool|seriousme|readme> <file> <runs>. Prints `result <json>`. `pool` is what the validation
// address runs: the same pipeline in a worker thread, bytes copied in and the outcome cloned back.
import { readFileSync } from "node:fs";
import { resourceUsage } from "node:process";
import { validate as readmeValidate } from "@readme/openapi-parser";
import { specPool, validateSpec } from "@mountkit/entries/node";
import { Validator } from "@seriousme/openapi-schema-validator";
import { load as loadYaml } from "js-yaml";

const [mode, file, runsArg] = process.argv.slice(2) as ["catalogue" | "pool" | "seriousme" | "readme", string, string];
const runs = Number(runsArg ?? 5);
const bytes = readFileSync(file);
const text = bytes.toString("utf8");
const parse = () => (/^\s*\{/.test(text) ? JSON.parse(text) : loadYaml(text));
const seriousme = new Validator({ allErrors: true });

const pool = mode === "pool" ? specPool({ inlineBelowBytes: 0, maxThreads: 1 }) : undefined;

async function once(): Promise<unknown> {
  if (mode === "catalogue" || pool) {
    const r = pool ? await pool.validate(bytes) : await validateSpec(bytes);
    if (!r.answer.valid) throw new Error(JSON.stringify(r.answer.errors));
    return r.inventory!.endpoints;
  }
  if (mode === "seriousme") return (await seriousme.validate(parse())).valid;
  return (await readmeValidate(parse(), { resolve: { external: false } } as never)).valid;
}

const baseRss = resourceUsage().maxRSS;
const times: number[] = [];
const cpus: number[] = [];
let outcome: unknown;
for (let i = 0; i < runs; i++) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  outcome = await once();
  times.push(performance.now() - t0);
  const cpu = process.cpuUsage(cpu0);
  cpus.push((cpu.user + cpu.system) / 1000);
}
const warm = times.slice(1).sort((a, b) => a - b);
const warmCpu = cpus.slice(1).sort((a, b) => a - b);
await pool?.destroy();
console.log(
  `result ${JSON.stringify({
    coldMs: times[0],
    warmMs: warm[Math.floor(warm.length / 2)] ?? times[0],
    coldCpuMs: cpus[0],
    warmCpuMs: warmCpu[Math.floor(warmCpu.length / 2)] ?? cpus[0],
    peakRssMb: (resourceUsage().maxRSS - baseRss) / 1024,
    outcome,
  })}`,
);
