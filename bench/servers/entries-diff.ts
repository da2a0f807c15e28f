// Benchmark child: diff time for one generated spec size next to the validation time of the same document, each
// measured alone. argv: <endpoints> <extraSchemas> <runs>. Prints `result <json>`. The diff is what a diff process runs
// (diffSpecs); `pool` adds the process hop (body copied in, answer cloned back) as the diff address runs it.
import { diffSpecs } from "../../packages/entries/src/diff/compare.js";
import { diffPool } from "../../packages/entries/src/diff/pool.js";
import { validateSpec } from "@mountkit/entries/node";
import { generateSpec } from "../../packages/entries/test/fixtures/spec-generator.js";

const [endpoints, extra, runsArg] = process.argv.slice(2).map(Number) as [number, number, number];
const runs = runsArg || 3;
const g = generateSpec({ endpoints, version: "1", format: "3.0", propertiesPerSchema: 30, extraSchemas: extra });
const base = g.document as Record<string, any>;
const baseText = JSON.stringify(base);

/** A realistic release: three operations changed (one removed, one new required parameter, one response field gone). */
function fewChanges(): string {
  const head = structuredClone(base);
  const keys = Object.keys(head.paths);
  delete head.paths[keys[0]!];
  const op = Object.values(head.paths[keys[1]!] as Record<string, any>)[0];
  (op.parameters ??= []).push({ name: "bench", in: "query", required: true, schema: { type: "string" } });
  const third = head.paths[keys[2]!] as Record<string, any>;
  third["x-bench"] = true;
  return JSON.stringify(head);
}

/** Worst case: every path item changed (a description on each operation), so nothing is pruned. */
function everyPath(): string {
  const head = structuredClone(base);
  for (const item of Object.values(head.paths) as Array<Record<string, any>>)
    for (const op of Object.values(item)) if (op && typeof op === "object") op.description = `${op.description ?? ""} (changed)`;
  return JSON.stringify(head);
}

async function time(f: () => unknown | Promise<unknown>): Promise<{ ms: number; value: unknown }> {
  const values: number[] = [];
  let value: unknown;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    value = await f();
    values.push(performance.now() - t0);
  }
  values.sort((a, b) => a - b);
  return { ms: values[Math.floor(values.length / 2)]!, value };
}

const few = fewChanges();
const every = everyPath();
const validation = await time(async () => (await validateSpec(baseText)).answer.valid);
const identical = await time(() => {
  const r = diffSpecs(baseText, baseText);
  return r.ok ? r.diff.changeCount : "failed";
});
const fewDiff = await time(() => {
  const r = diffSpecs(baseText, few);
  return r.ok ? `${r.diff.changeCount} changes, ${r.diff.counts.breaking} breaking` : "failed";
});
const pool = diffPool({ maxThreads: 1, timeoutMs: 600_000 });
const body = new TextEncoder().encode(JSON.stringify({ base: baseText, head: few }));
await pool.diff(body); // the process starts and loads once
const pooled = await time(async () => {
  const r = await pool.diff(body);
  return r.ok ? r.diff.changeCount : "failed";
});
await pool.destroy();
const worst = await time(() => {
  const r = diffSpecs(baseText, every);
  return r.ok ? `${r.diff.changeCount} changes` : "failed";
});
console.log(
  `result ${JSON.stringify({
    mb: baseText.length / 1e6,
    operations: g.operations.length,
    validationMs: validation.ms,
    identicalMs: identical.ms,
    fewMs: fewDiff.ms,
    few: fewDiff.value,
    pooledMs: pooled.ms,
    worstMs: worst.ms,
    worst: worst.value,
  })}`,
);
