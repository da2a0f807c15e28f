#!/usr/bin/env node
// `mountkit-entries` command (also installed as `mountkit`, its earlier name): runs the built CLI when present, else
// the TypeScript sources through tsx (repo checkouts).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const built = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
if (existsSync(built)) {
  const { main } = await import(pathToFileURL(built).href);
  process.exitCode = await main(process.argv.slice(2));
} else {
  const source = fileURLToPath(new URL("../src/cli-main.ts", import.meta.url));
  const tsx = import.meta.resolve("tsx");
  const r = spawnSync(process.execPath, ["--conditions=mountkit-source", "--import", tsx, source, ...process.argv.slice(2)], { stdio: "inherit" });
  process.exitCode = r.status ?? 1;
}
