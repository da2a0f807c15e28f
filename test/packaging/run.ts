// Packaging test (CI, after `npm run build`): packs every package, checks that no packed file points at a
// document outside the repository, lints each tarball with publint and @arethetypeswrong/cli, installs the
// tarballs into fresh Express, Fastify, Hono and memory-only hosts outside the workspace (effect only where a
// host registers an Effect Schema type), type-checks them strictly and runs them, and runs a memory host installed by
// Yarn with Plug'n'Play. Exits non-zero on the first failure. Independent steps (packs, lints, hosts) run a few at a
// time: most of their time is npm's and tsc's start-up and the registry's latency.
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { scanTree } from "../external-references.js";

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
  // the pages, each a package of its own (a host may serve a prebuilt bundle from its own server)
  "packages/support-widget",
  "packages/support-inbox",
  "packages/memory-explorer",
  "packages/entries-catalogue",
  "packages/api-reference",
];

/** Runs a command, resolves with its stdout; rejects with everything it printed when it exits non-zero. */
function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}, timeoutMs = 600_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      out += c;
    });
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      err += c;
    });
    child.once("error", reject);
    child.once("close", (code, signal) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} ${args.join(" ")} (in ${cwd}) exited ${code ?? signal}\n${out}\n${err}`));
    });
  });
}

/** `fn` over `items`, at most `limit` at once; results in the items' order. The first failure fails the whole. */
async function inParallel<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

function step(title: string) {
  console.log(`\n== ${title}`);
}

// 1. pack
step("npm pack");
const tarballDir = join(work, "tarballs");
mkdirSync(tarballDir);
const tarballs = new Map<string, string>();
const packed = await inParallel(WORKSPACES, 4, async (dir) => {
  const [info] = JSON.parse(await run("npm", ["pack", "--json", "--pack-destination", tarballDir], join(root, dir))) as Array<{
    name: string;
    filename: string;
    files: Array<{ path: string }>;
  }>;
  const shipped = new Set(info!.files.map((f) => f.path));
  for (const must of ["README.md", "LICENSE", "package.json"])
    if (!shipped.has(must)) throw new Error(`${info!.name}: tarball lacks ${must}`);
  console.log(`${info!.name}: ${info!.files.length} files`);
  return [info!.name, join(tarballDir, info!.filename)] as const;
});
for (const [name, file] of packed) tarballs.set(name, file);

// what users get must not point at specification documents they never get (docs/ pages are the reference)
step("references outside the repository");
const unpacked = join(work, "unpacked");
const outside = await inParallel([...tarballs], 4, async ([name, file]) => {
  const dir = join(unpacked, name.replace("/", "__"));
  mkdirSync(dir, { recursive: true });
  await run("tar", ["-xzf", file, "-C", dir], root);
  return scanTree(dir).map((r) => `${name}: ${r.file}:${r.line} (${r.kind}) ${r.text}`);
});
if (outside.flat().length) throw new Error(`tarballs refer to documents outside the repository:\n${outside.flat().join("\n")}`);
console.log(`${tarballs.size} tarballs: no reference to a document outside the repository`);

// 2. publint and arethetypeswrong on every tarball
step("publint + attw");
const attw = join(root, "node_modules/.bin/attw");
const lintReports = await inParallel([...tarballs], 4, async ([name, file]) => {
  const lines: string[] = [];
  let errors = 0;
  const buf = readFileSync(file);
  const { messages, pkg } = await publint({
    pack: { tarball: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) },
    level: "warning",
  });
  for (const m of messages) {
    lines.push(`publint ${name} ${m.type}: ${formatMessage(m, pkg)}`);
    if (m.type === "error") errors++;
  }
  // ESM-only by design: a CommonJS caller loads it through require(esm) (Node 20.19+), so the rule that
  // a require() resolving to ESM is an error does not apply; every other rule (node10 included) does.
  try {
    await run(attw, [file, "--profile", "esm-only", "--format", "table-flipped"], root);
    lines.push(`attw ${name}: no problems`);
  } catch (e) {
    errors++;
    lines.push(`attw ${name}:\n${(e as Error).message}`);
  }
  console.log(lines.join("\n"));
  return errors;
});
const lintErrors = lintReports.reduce((a, b) => a + b, 0);
if (lintErrors) throw new Error(`${lintErrors} publint/attw errors`);

// 3. hosts outside the workspace: shared tooling in the parent folder, the host brings its SQLite driver
step("hosts");
const hostsDir = join(work, "hosts");
mkdirSync(hostsDir);
writeFileSync(join(hostsDir, "package.json"), JSON.stringify({ private: true, type: "module" }));
await run("npm", ["install", "--no-audit", "--no-fund", "typescript@^5.9.3", "@types/node@^20.19.0"], hostsDir);
// better-sqlite3 is a native addon built for this Node in the workspace; a host would install it itself
// (CI awaits this test before it swaps the workspace's build for Node 22's and 24's)
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
const REQUIRED = [
  ...FULL,
  "@mountkit/sql/memory",
  "@mountkit/sql/support",
  "@mountkit/sql/entries",
  "@mountkit/core/adapter",
  "@mountkit/core/jobs",
  "@mountkit/core/testing",
  "@mountkit/memory/cli",
  "@mountkit/support/wire",
  "@mountkit/support/node",
];

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
    // nor the memory package's optional peers (the MCP SDK, ai): a host that does not import /mcp or /ai gets neither
    absent: ["@mountkit/entries", "@mountkit/support", "effect", "pg", "@modelcontextprotocol/sdk", "ai"],
  },
  {
    // the memory package's optional peers installed by the host: /mcp over HTTP, the bin on stdio, /ai
    name: "memory-agents",
    main: "memory-agents.ts",
    dependencies: {
      ...kit(["@mountkit/core", "@mountkit/memory", "@mountkit/sql"]),
      "@modelcontextprotocol/sdk": "^1.32.2",
      ai: "^7.0.0",
      // ai's provider types import json-schema's, which it does not depend on (the hosts check libraries' types)
      "@types/json-schema": "^7.0.15",
    },
    require: ["@mountkit/memory/mcp", "@mountkit/memory/ai"],
    absent: ["@mountkit/entries", "@mountkit/support"],
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

// two at a time: each host's run (shutdown timings included) keeps a core to itself
const results = await inParallel(hosts, 2, async (host) => {
  const dir = join(hostsDir, host.name);
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: `host-${host.name}`, private: true, type: "module", dependencies: host.dependencies }, null, 2),
  );
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  cpSync(join(hostsSrc, host.main), join(dir, "src/main.ts"));
  cpSync(join(hostsSrc, "probe.ts"), join(dir, "src/probe.ts"));
  await run("npm", ["install", "--no-audit", "--no-fund"], dir);
  for (const name of host.absent ?? [])
    if (existsSync(join(dir, "node_modules", name))) throw new Error(`host ${host.name}: ${name} was installed`);
  await run(join(hostsDir, "node_modules/.bin/tsc"), ["-p", "."], dir);
  const dataDir = join(dir, "data");
  // started as production hosts often are, with V8's and the process's own flags, which Node refuses in a worker
  // thread's execArgv: the kit's threads must start all the same
  const out = await run(
    process.execPath,
    ["--max-old-space-size=1024", "--stack-trace-limit=50", "dist/main.js"],
    dir,
    { DATA_DIR: dataDir, MOUNTKIT_PACKAGES: JSON.stringify(host.require) },
    60_000,
  );
  console.log(`host ${host.name}: ${out.trim()}`);
  if (host.name === "memory-only") {
    // the bin from the tarball, with the store module the SQL package provides
    const bin = join(dir, "node_modules/.bin/mountkit-memory");
    const created = await run(bin, ["keys", "create", "--brain", "cli-brain", "--store-module", "@mountkit/sql/memory"], dir, {
      DATA_DIR: dataDir,
    });
    if (!/created key/.test(created)) throw new Error(`mountkit-memory keys create printed: ${created}`);
    const listed = await run(bin, ["keys", "list", "--store-module", "@mountkit/sql/memory"], dir, { DATA_DIR: dataDir });
    if (!/brain=cli-brain/.test(listed)) throw new Error(`mountkit-memory keys list printed: ${listed}`);
    console.log("host memory-only: mountkit-memory keys create/list ran from the tarball");
  }
  if (host.name === "express") {
    // the entries command from the tarball, under its name and its earlier one
    for (const name of ["mountkit-entries", "mountkit"]) {
      const help = await run(join(dir, "node_modules/.bin", name), ["--help"], dir);
      if (!/^usage: mountkit-entries import /.test(help)) throw new Error(`${name} --help printed: ${help}`);
    }
    console.log("host express: mountkit-entries --help (and mountkit, its alias) ran from the tarball");
  }
  return out.trim();
});

// 4. a memory host installed by Yarn with Plug'n'Play (no node_modules): the kit's SQLite and extraction threads load
// their modules from Yarn's zip cache, through the runtime Yarn puts in NODE_OPTIONS, which they must keep
step("yarn plug'n'play host");
const pnpDir = join(work, "pnp-host");
mkdirSync(pnpDir);
await run("npm", ["install", "--no-audit", "--no-fund", "--prefix", join(work, "yarn"), "@yarnpkg/cli-dist@^4.9.0"], work);
const yarn = join(work, "yarn/node_modules/@yarnpkg/cli-dist/bin/yarn.js");
const pnpKit = kit(["@mountkit/core", "@mountkit/memory", "@mountkit/sql"]);
writeFileSync(
  join(pnpDir, "package.json"),
  JSON.stringify({
    name: "host-memory-pnp",
    private: true,
    type: "module",
    // the workspace's better-sqlite3 (built for this Node), as the npm hosts link it; the kit's packages depend on each
    // other by version, resolved to the tarballs too
    dependencies: { ...pnpKit, "better-sqlite3": `portal:${join(root, "node_modules/better-sqlite3")}` },
    resolutions: pnpKit,
  }),
);
const registry = (await run("npm", ["config", "get", "registry"], work)).trim();
writeFileSync(
  join(pnpDir, ".yarnrc.yml"),
  [
    "nodeLinker: pnp",
    `npmRegistryServer: "${registry}"`,
    "enableGlobalCache: false",
    "enableTelemetry: false",
    "enableScripts: false",
    "",
  ].join("\n"),
);
writeFileSync(join(pnpDir, "yarn.lock"), "");
cpSync(join(hostsSrc, "memory-pnp.mjs"), join(pnpDir, "main.mjs"));
await run(process.execPath, [yarn, "install"], pnpDir, { YARN_ENABLE_IMMUTABLE_INSTALLS: "false" });
if (existsSync(join(pnpDir, "node_modules"))) throw new Error("the Plug'n'Play host has a node_modules folder");
const pnpOut = await run(process.execPath, [yarn, "node", "main.mjs"], pnpDir, { DATA_DIR: join(pnpDir, "data") }, 60_000);
console.log(`host memory-pnp: ${pnpOut.trim()}`);
results.push(pnpOut.trim());

console.log(`\npackaging: ${tarballs.size} tarballs clean, ${results.length} hosts passed`);
if (!keep) rmSync(work, { recursive: true, force: true });
else console.log(`kept ${work}`);
