// Spec lint benchmark (issue #28, `npm run bench -- lint`): Spectral's oas ruleset beside the validation on generated
// 1 MB and 10 MB specs, both in the validation processes as the validation address runs them (built dist/).
import { specPool } from "@mountkit/entries/node";
import { generateSpec } from "../packages/entries/test/fixtures/spec-generator.js";
import { arg, table } from "./lib.js";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Milliseconds of each of `runs` validations after one warm-up (the process's first compile is not counted). */
async function timed(pool: ReturnType<typeof specPool>, bytes: Uint8Array, runs: number) {
  let last = await pool.validate(bytes);
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    last = await pool.validate(bytes);
    ms.push(performance.now() - t0);
  }
  return { ms: median(ms), answer: last.answer };
}

export async function run(args: string[]): Promise<void> {
  const runs = arg(args, "runs", 3);
  const limits = { maxThreads: 1, timeoutMs: 600_000, maxMemoryMb: 4096 };
  const plain = specPool({ ...limits, lint: false });
  const linting = specPool({ ...limits, lint: {} });
  const rows = [];
  try {
    for (const [endpoints, extraSchemas] of [
      [75, 150],
      [620, 1650],
    ] as const) {
      const bytes = Buffer.from(JSON.stringify(generateSpec({ endpoints, version: "1", format: "3.0", extraSchemas }).document));
      const v = await timed(plain, bytes, runs);
      const l = await timed(linting, bytes, runs);
      const lint = l.answer.valid ? l.answer.lint : undefined;
      rows.push({
        spec: `JSON ${(bytes.byteLength / 1e6).toFixed(1)} MB, ${endpoints} ops`,
        "validate ms": Math.round(v.ms),
        "validate + lint ms": Math.round(l.ms),
        "lint ms": Math.round(l.ms - v.ms),
        findings: lint?.failed ?? `${lint?.resultCount} (${lint?.counts.error} errors, ${lint?.counts.warning} warnings)`,
      });
    }
  } finally {
    await Promise.all([plain.destroy(), linting.destroy()]);
  }
  console.log(`\nspec lint (Spectral, spectral:oas) beside validation, median of ${runs} warm runs in one validation process`);
  console.log(table(rows));
}
