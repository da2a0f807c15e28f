// `npm test`: the whole suite in phases, each with its time printed.
//   1. the main suite (the vitest projects default, http-sqlite and http-postgres) on this Node;
//   2. the host-safety suite alone: it measures the host's event loop, so no other suite may share the cores;
//   3. the browser suite alone: Chromium beside busy test workers starves the page;
//   4. when MOUNTKIT_TEST_NODES names a folder prepared by `scripts/test-node-versions.sh prepare DIR` (CI does this):
//      the main suite on Node 22, then on Node 24. On two cores, suites at once ran no faster than one after another
//      (three at once: slower) and turned CPU-heavy tests into timeouts.
// Every phase runs even after an earlier one failed, so one run reports every failure; the exit code is 1 if any
// failed, and the end of the output repeats every failing test with the first lines of its error, so a log cut to its
// tail still says what failed. `npm test -- <vitest filters>` runs only `vitest run <filters>` with the main config.
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const MAIN_PROJECTS = ["--project", "default", "--project", "http-sqlite", "--project", "http-postgres"];

const recap = [];
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");
/** Keeps each " FAIL " line of a step's output with the 8 lines after it (the error's first lines). */
function collectFailures(name, text) {
  const lines = text.replace(ANSI, "").split("\n");
  lines.forEach((line, i) => {
    if (/^\s*FAIL\s/.test(line)) recap.push(`[${name}] ${line.trim()}`, ...lines.slice(i + 1, i + 9).map((l) => `    ${l}`));
  });
}

/** Runs a command in the repository root with the output passed through; resolves to its exit code. */
function run(command, args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ["inherit", "pipe", "pipe"], env: { ...process.env, ...env } });
    let text = "";
    for (const [from, to] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ]) {
      from.on("data", (chunk) => {
        to.write(chunk);
        text += chunk.toString();
      });
    }
    child.on("error", (error) => {
      console.error(`[test] ${command} did not start: ${error.message}`);
      resolve(1);
    });
    // "close" comes once the output is drained, after "exit"
    child.on("close", (code, signal) => {
      collectFailures(`${command} ${args.slice(0, 3).join(" ")}`, text);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

const started = Date.now();
const failed = [];
/** Runs one phase (its steps at once), prints its time, and records a failure by name. */
async function phase(name, steps) {
  const t0 = Date.now();
  const codes = await Promise.all(steps.map((s) => s.start()));
  const seconds = Math.round((Date.now() - t0) / 1000);
  steps.forEach((s, i) => {
    if (codes[i] !== 0) failed.push(s.name);
  });
  const bad = steps.filter((_, i) => codes[i] !== 0).map((s) => s.name);
  console.log(`[test] ${name}: ${bad.length ? `FAILED (${bad.join(", ")})` : "passed"} in ${seconds} s`);
}

const filters = process.argv.slice(2);
if (filters.length > 0) process.exit(await run("npx", ["vitest", "run", ...filters]));

const nodes = process.env.MOUNTKIT_TEST_NODES;
await phase(`main suite (node ${process.version})`, [
  { name: `main suite on node ${process.version}`, start: () => run("npx", ["vitest", "run", ...MAIN_PROJECTS]) },
]);
await phase("host safety (alone)", [{ name: "host safety", start: () => run("npx", ["vitest", "run", "--project", "host-safety"]) }]);
await phase("browser (alone)", [
  { name: "browser", start: () => run("npx", ["vitest", "run", "--config", "vitest.browser.config.ts"]) },
]);
if (nodes) {
  await phase("main suite (node 22, then 24)", [
    { name: "main suite on node 22 and 24", start: () => run("bash", [join(root, "scripts/test-node-versions.sh"), "test", nodes]) },
  ]);
}
const total = Math.round((Date.now() - started) / 1000);
if (recap.length > 0) console.log(["", "[test] the failing tests again:", ...recap.slice(0, 400)].join("\n"));
console.log(`[test] ${failed.length ? `FAILED: ${failed.join(", ")}` : "every phase passed"} (${total} s)`);
process.exit(failed.length ? 1 : 0);
