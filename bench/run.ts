// `npm run bench -- <name> [args]`: runs bench/<name>.ts (adapters, support, memory, entries, storage).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const [name, ...args] = process.argv.slice(2);
const known = ["adapters", "support", "memory", "entries", "storage", "hardening"];
const names = name ? [name] : known.filter((n) => existsSync(fileURLToPath(new URL(`./${n}.ts`, import.meta.url))));
if (name && !known.includes(name)) {
  console.error(`unknown benchmark "${name}"; one of: ${known.join(", ")}`);
  process.exit(2);
}
for (const n of names) {
  const mod = (await import(`./${n}.ts`)) as { run(args: string[]): Promise<void> };
  console.log(`\n=== bench: ${n} ===`);
  await mod.run(args);
}
process.exit(0);
