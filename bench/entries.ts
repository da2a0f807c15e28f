// Entries benchmark: submissions/s over HTTP (countries, and apis with a fetched spec), then catalogue time and peak
// memory for a multi-MB spec next to the raw validator libraries on the same spec. Each measurement in its own process.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import autocannon from "autocannon";
import { dump } from "js-yaml";
import { signHs256 } from "@mountkit/entries";
import { generateSpec } from "../packages/entries/test/fixtures/spec-generator.js";
import { arg, nodeFlags, spawnTarget, table } from "./lib.js";
import { france } from "../packages/entries/test/fixtures/countries.js";

const run$ = promisify(execFile);

async function measure(url: string, path: string, body: string, token: string, seconds: number, connections: number) {
  const r = await autocannon({
    url: `${url}${path}`,
    method: "POST",
    connections,
    duration: seconds,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body,
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

async function child(mode: string, file: string, runs: number) {
  const script = fileURLToPath(new URL("./servers/entries-catalogue.ts", import.meta.url));
  const { stdout } = await run$(process.execPath, [...nodeFlags(), script, mode, file, String(runs)], {
    maxBuffer: 1 << 20,
  });
  const line = stdout.split("\n").find((l) => l.startsWith("result "));
  if (!line) throw new Error(`${mode}: no result`);
  return JSON.parse(line.slice(7)) as {
    coldMs: number;
    warmMs: number;
    coldCpuMs: number;
    warmCpuMs: number;
    peakRssMb: number;
    outcome: unknown;
  };
}

/** Spec diffs (docs/entries.md#spec-diffs) on generated 1 MB and 10 MB specs, beside the validation of the same spec. */
async function diffs(runs: number) {
  const script = fileURLToPath(new URL("./servers/entries-diff.ts", import.meta.url));
  const rows = [];
  for (const [endpoints, extra] of [
    [75, 150],
    [620, 1650],
  ] as const) {
    const { stdout } = await run$(process.execPath, [...nodeFlags(), script, String(endpoints), String(extra), String(runs)], {
      maxBuffer: 1 << 20,
    });
    const line = stdout.split("\n").find((l) => l.startsWith("result "));
    if (!line) throw new Error("diff bench: no result");
    const r = JSON.parse(line.slice(7));
    rows.push({
      spec: `JSON ${r.mb.toFixed(1)} MB, ${r.operations} ops`,
      "validate ms": r.validationMs,
      "diff identical ms": r.identicalMs,
      "diff 3 ops changed ms": r.fewMs,
      "same, via diff process ms": r.pooledMs,
      "diff every op changed ms": r.worstMs,
      result: `${r.few}; worst: ${r.worst}`,
    });
  }
  console.log(`\nspec diff beside validation (median of ${runs} runs, in one process; "via diff process" adds the IPC hop)`);
  console.log(table(rows));
}

export async function run(args: string[]): Promise<void> {
  const runs0 = arg(args, "runs", 5);
  if (args.includes("--diff-only")) return diffs(Math.max(1, runs0 - 2));
  const seconds = arg(args, "seconds", 5);
  const connections = arg(args, "connections", 16);
  const runs = arg(args, "runs", 5);

  // 1. submissions/s
  const secret = `bench-${crypto.randomUUID()}`;
  const target = await spawnTarget("./servers/entries-target.ts", ["fastify"], { BENCH_SECRET: secret });
  const meta = { token: await signHs256(secret, { sub: "bench", expiresInSec: 3600 }), spec: `${target.url}/bench/spec.json` };
  const countries = await measure(
    target.url,
    "/api/v1/types/countries/data",
    JSON.stringify({ name: "France", description: "bench", customData: france, tags: ["bench"] }),
    meta.token,
    seconds,
    connections,
  );
  const apis = await measure(
    target.url,
    "/api/v1/types/apis/data",
    JSON.stringify({ name: "API", description: "bench", customData: { specUrl: meta.spec } }),
    meta.token,
    seconds,
    connections,
  );
  await target.stop();
  console.log(`\nsubmissions over HTTP (fastify, ${connections} connections, ${seconds} s each, separate server process)`);
  console.log(
    table([
      {
        type: "countries (validate + store)",
        "req/s": countries.rps,
        "p50 ms": countries.p50,
        "p99 ms": countries.p99,
        "non-2xx": countries.non2xx,
        errors: countries.errors,
      },
      {
        type: "apis (fetch 24-op spec + validate + catalogue + store)",
        "req/s": apis.rps,
        "p50 ms": apis.p50,
        "p99 ms": apis.p99,
        "non-2xx": apis.non2xx,
        errors: apis.errors,
      },
    ]),
  );

  // 2. a multi-MB spec: the kit's whole catalogue pipeline versus the raw validators
  const dir = await mkdtemp(join(tmpdir(), "mk-bench-entries-"));
  try {
    const g = generateSpec({ endpoints: 414, version: "2026-01-28.clover", format: "3.0", propertiesPerSchema: 30, extraSchemas: 1100 });
    const jsonFile = join(dir, "spec.json");
    const yamlFile = join(dir, "spec.yaml");
    const json = JSON.stringify(g.document);
    await writeFile(jsonFile, json);
    const yaml = dump(g.document, { noRefs: true, lineWidth: -1 });
    await writeFile(yamlFile, yaml);
    const rows = [];
    for (const [label, file, size] of [
      ["JSON", jsonFile, json.length],
      ["YAML", yamlFile, yaml.length],
    ] as const) {
      for (const mode of ["catalogue", "pool", "seriousme", "readme"]) {
        const r = await child(mode, file, runs);
        rows.push({
          spec: `${label} ${(size / 1e6).toFixed(1)} MB`,
          what:
            mode === "catalogue"
              ? "kit: parse+refs+schema warnings+semantics+catalogue"
              : mode === "pool"
                ? "kit as the address runs it: same, in the worker pool (copy in, clone out)"
                : mode === "seriousme"
                  ? "raw @seriousme/openapi-schema-validator (parse+validate)"
                  : "raw @readme/openapi-parser (parse+validate)",
          "cold ms": r.coldMs,
          "warm ms": r.warmMs,
          "warm CPU ms": r.warmCpuMs,
          "peak RSS +MB": r.peakRssMb,
          result: String(r.outcome),
        });
      }
    }
    console.log(
      `\ncatalogue of a 414-endpoint, ${g.operations.length}-operation, $ref-heavy spec (median of ${runs - 1} warm runs; cold = first run incl. schema compile)`,
    );
    console.log(table(rows));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  // 3. spec diffs next to the validation time
  await diffs(Math.max(1, runs - 2));
}
