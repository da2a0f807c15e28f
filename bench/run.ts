// `npm run bench -- <name> [args]`: runs bench/<name>.ts (adapters, support, memory, memory-transfer, entries, storage, widget, imports, hardening, lint, webhooks;
// memory-histories and memory-throughput, which memory also prints, only when named).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const [name, ...args] = process.argv.slice(2);
const known = [
  "adapters",
  "support",
  "memory",
  "memory-transfer",
  "entries",
  "storage",
  "widget",
  "imports",
  "hardening",
  "lint",
  "webhooks",
];
const exists = (file: string) => existsSync(fileURLToPath(new URL(file, import.meta.url)));
const names = name ? [name] : known.filter((n) => exists(`./${n}.ts`) || (n === "hardening" && exists("./hardening-stalled.ts")));
if (name && !known.includes(name) && name !== "memory-histories" && name !== "memory-throughput") {
  console.error(`unknown benchmark "${name}"; one of: ${known.join(", ")}`);
  process.exit(2);
}
for (const n of names) {
  console.log(`\n=== bench: ${n} ===`);
  if (n === "hardening" && !args.includes("--host-only")) {
    // issue #10's figures live in two files: (2) stalled uploads here, (1) and (3) in hardening.ts when present
    const file = "./hardening-stalled.ts";
    const stalled = (await import(file)) as { runStalled(args: string[]): Promise<void> };
    await stalled.runStalled(args);
    if (!exists("./hardening.ts")) continue;
  }
  const mod = (await import(`./${n}.ts`)) as { run(args: string[]): Promise<void> };
  await mod.run(args);
}
process.exit(0);
