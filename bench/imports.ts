// Cold `import` time per package: a fresh Node process imports one built package (dist/) and reports how
// long the import took, median of several runs, so a host sees what each service costs at start-up.
import { execFileSync } from "node:child_process";
import { percentile } from "./lib.js";

const PACKAGES = [
  "@mountkit/core",
  "@mountkit/entries",
  "@mountkit/memory",
  "@mountkit/support",
  "@mountkit/support-client",
  "@mountkit/sql",
  "@mountkit/sql/memory",
  "@mountkit/sql/support",
  "@mountkit/sql/entries",
  "@mountkit/node",
  "@mountkit/express",
  "@mountkit/fastify",
  "@mountkit/fetch",
];

function coldImportMs(specifier: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t));`;
  return Number(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }));
}

export async function run(args: string[]): Promise<void> {
  const i = args.indexOf("--runs");
  const runs = i >= 0 ? Number(args[i + 1]) : 7;
  console.log(`imports: cold import of each built package in a fresh node ${process.version}, median of ${runs} runs`);
  const rows = PACKAGES.map((name) => {
    const times = Array.from({ length: runs }, () => coldImportMs(name)).sort((a, b) => a - b);
    return { package: name, "median ms": Number(percentile(times, 50).toFixed(1)), "min ms": Number(times[0]!.toFixed(1)) };
  });
  console.table(rows);
}
