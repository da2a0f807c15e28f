// Packaging test (CI, after `npm run build`): packs every package, lints each tarball with publint and
// @arethetypeswrong/cli, installs the tarballs into fresh Express, Fastify, Hono and memory-only hosts
// outside the workspace (effect only where a host registers an Effect Schema type), type-checks them
// strictly and runs them. Exits non-zero on the first failure.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { publint } from "publint";
import { formatMessage } from "publint/utils";

const root = resolve(import.meta.dirname, "../..");
const hostsSrc = join(import.meta.dirname, "hosts");
const work = mkdtempSync(join(tmpdir(), "mk-packaging-"));
const keep = process.argv.includes("--keep");

const WORKSPACES = [
  "packages/core",
  "packages/entries",
  "packages/memory",
  "packages/support",
  "packages/support-client",
  "packages/sql",
  "packages/testing",
  "adapters/node",
  "adapters/express",
  "adapters/fastify",
  "adapters/fetch",
];

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync(cmd, args, { cwd, env: { ...process.env, ...env }, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(" ")} (in ${cwd}) exited ${r.status}\n${r.stdout}\n${r.stderr}`);
  }
  return r.stdout;
}

function step(title: string) {
  console.log(`\n== ${title}`);
}

// 1. pack
step("npm pack");
const tarballDir = join(work, "tarballs");
mkdirSync(tarballDir);
const tarballs = new Map<string, string>();
for (const dir of WORKSPACES) {
  const [info] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", tarballDir], join(root, dir))) as Array<{
    name: string;
    filename: string;
    files: Array<{ path: string }>;
  }>;
  tarballs.set(info!.name, join(tarballDir, info!.filename));
  const shipped = new Set(info!.files.map((f) => f.path));
  for (const must of ["README.md", "LICENSE", "package.json"])
    if (!shipped.has(must)) throw new Error(`${info!.name}: tarball lacks ${must}`);
  console.log(`${info!.name}: ${info!.files.length} files`);
}

// 2. publint and arethetypeswrong on every tarball
step("publint + attw");
const attw = join(root, "node_modules/.bin/attw");
let lintErrors = 0;
for (const [name, file] of tarballs) {
  const buf = readFileSync(file);
  const { messages, pkg } = await publint({
    pack: { tarball: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) },
    level: "warning",
  });
  for (const m of messages) {
    console.log(`publint ${name} ${m.type}: ${formatMessage(m, pkg)}`);
    if (m.type === "error") lintErrors++;
  }
  // ESM-only by design: a CommonJS caller loads it through require(esm) (Node 20.19+), so the rule that
  // a require() resolving to ESM is an error does not apply; every other rule (node10 included) does.
  const r = spawnSync(attw, [file, "--profile", "esm-only", "--format", "table-flipped"], { encoding: "utf8" });
  if (r.status !== 0) {
    lintErrors++;
    console.log(`attw ${name}:\n${r.stdout}${r.stderr}`);
  } else console.log(`attw ${name}: no problems`);
}
if (lintErrors) throw new Error(`${lintErrors} publint/attw errors`);

// 3. hosts outside the workspace: shared tooling in the parent folder, the host brings its SQLite driver
step("hosts");
const hostsDir = join(work, "hosts");
mkdirSync(hostsDir);
writeFileSync(join(hostsDir, "package.json"), JSON.stringify({ private: true, type: "module" }));
run("npm", ["install", "--no-audit", "--no-fund", "typescript@^5.9.3", "@types/node@^20.19.0"], hostsDir);
// better-sqlite3 is a native addon built for this Node in the workspace; a host would install it itself
symlinkSync(join(root, "node_modules/better-sqlite3"), join(hostsDir, "node_modules/better-sqlite3"), "dir");

const dep = (name: string) => `file:${tarballs.get(name)}`;
const kit = (names: string[]) => Object.fromEntries(names.map((n) => [n, dep(n)]));
const FULL = [
  "@mountkit/core",
  "@mountkit/entries",
  "@mountkit/memory",
  "@mountkit/support",
  "@mountkit/support-client",
  "@mountkit/sql",
  "@mountkit/node",
];
// @mountkit/testing is left out of require(): it imports vitest, which only runs inside a vitest run
const REQUIRED = [...FULL, "@mountkit/sql/memory", "@mountkit/sql/support", "@mountkit/sql/entries"];

interface Host {
  name: string;
  main: string;
  dependencies: Record<string, string>;
  require: string[];
  /** Packages that must not be in the host's tree. */
  absent?: string[];
}

const hosts: Host[] = [
  {
    name: "express",
    main: "express.ts",
    dependencies: { ...kit([...FULL, "@mountkit/express"]), express: "^5.1.0", "@types/express": "^5.0.6" },
    require: [...REQUIRED, "@mountkit/express"],
    // entries without its optional peer
    absent: ["effect"],
  },
  {
    name: "fastify",
    main: "fastify.ts",
    // the host that registers an Effect Schema type brings effect itself
    dependencies: { ...kit([...FULL, "@mountkit/fastify"]), fastify: "^5.6.0", effect: "^3.19.0" },
    require: [...REQUIRED, "@mountkit/fastify"],
  },
  {
    name: "hono",
    main: "hono.ts",
    dependencies: { ...kit([...FULL, "@mountkit/fetch"]), hono: "^4.10.0", "@hono/node-server": "^1.19.0" },
    require: [...REQUIRED, "@mountkit/fetch"],
    absent: ["effect"],
  },
  {
    name: "memory-only",
    main: "memory-only.ts",
    dependencies: {
      ...kit(["@mountkit/core", "@mountkit/memory", "@mountkit/sql", "@mountkit/node", "@mountkit/express"]),
      express: "^5.1.0",
      "@types/express": "^5.0.6",
    },
    require: [],
    absent: ["@mountkit/entries", "@mountkit/support", "effect", "pg"],
  },
];

const tsconfig = {
  compilerOptions: {
    target: "ES2022",
    lib: ["ES2023", "DOM", "DOM.Iterable"],
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    skipLibCheck: false,
    outDir: "dist",
    types: ["node"],
  },
  include: ["src"],
};

const results: string[] = [];
for (const host of hosts) {
  const dir = join(hostsDir, host.name);
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: `host-${host.name}`, private: true, type: "module", dependencies: host.dependencies }, null, 2),
  );
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  cpSync(join(hostsSrc, host.main), join(dir, "src/main.ts"));
  cpSync(join(hostsSrc, "probe.ts"), join(dir, "src/probe.ts"));
  run("npm", ["install", "--no-audit", "--no-fund"], dir);
  for (const name of host.absent ?? [])
    if (existsSync(join(dir, "node_modules", name))) throw new Error(`host ${host.name}: ${name} was installed`);
  run(join(hostsDir, "node_modules/.bin/tsc"), ["-p", "."], dir);
  const dataDir = join(dir, "data");
  const out = execFileSync(process.execPath, ["dist/main.js"], {
    cwd: dir,
    env: { ...process.env, DATA_DIR: dataDir, MOUNTKIT_PACKAGES: JSON.stringify(host.require) },
    encoding: "utf8",
    timeout: 60_000,
  });
  results.push(out.trim());
  console.log(`host ${host.name}: ${out.trim()}`);
  if (host.name === "memory-only") {
    // the bin from the tarball, with the store module the SQL package provides
    const bin = join(dir, "node_modules/.bin/mountkit-memory");
    const created = run(bin, ["keys", "create", "--brain", "cli-brain", "--store-module", "@mountkit/sql/memory"], dir, {
      DATA_DIR: dataDir,
    });
    if (!/created key/.test(created)) throw new Error(`mountkit-memory keys create printed: ${created}`);
    const listed = run(bin, ["keys", "list", "--store-module", "@mountkit/sql/memory"], dir, { DATA_DIR: dataDir });
    if (!/brain=cli-brain/.test(listed)) throw new Error(`mountkit-memory keys list printed: ${listed}`);
    console.log("host memory-only: mountkit-memory keys create/list ran from the tarball");
  }
}

console.log(`\npackaging: ${tarballs.size} tarballs clean, ${results.length} hosts passed`);
if (!keep) rmSync(work, { recursive: true, force: true });
else console.log(`kept ${work}`);
