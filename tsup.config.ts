import { defineConfig } from "tsup";

// One build for every workspace package: ESM + .d.ts into each package's dist/. Every bare import stays
// external so packages never bundle each other (they resolve through the workspace at run time).
// `inline`: bare imports bundled into the package after all, with the source file their types come from.
const packages: Array<{ dir: string; entries?: Record<string, string>; inline?: Record<string, string> }> = [
  {
    dir: "packages/core",
    entries: { adapter: "src/adapter.ts", jobs: "src/jobs.ts", testing: "src/testing.ts", "browser-bundle": "src/browser-bundle.ts", dom: "src/dom.ts", "worker-module": "src/worker-module.ts", "outbound-node": "src/outbound/node.ts", "outbound-fetch": "src/outbound/fetch.ts", webhooks: "src/webhooks/index.ts", "webhooks-cli": "src/webhooks/cli.ts" },
  },
  {
    dir: "packages/entries",
    entries: {
      testing: "src/testing.ts",
      cli: "src/cli.ts",
      "spec-worker": "src/openapi/worker.ts",
      "diff-worker": "src/diff/worker.ts",
      node: "src/node.ts",
      // the package's `#runtime/*` imports (src/runtime/): `node` on Node, `fetch` on fetch runtimes (package.json "imports")
      "runtime-platform-node": "src/runtime/platform-node.ts",
      "runtime-platform-fetch": "src/runtime/platform-fetch.ts",
      "runtime-spec-node": "src/runtime/spec-node.ts",
      "runtime-spec-fetch": "src/runtime/spec-fetch.ts",
    },
  },
  {
    dir: "packages/memory",
    entries: {
      testing: "src/testing.ts",
      cli: "src/cli.ts",
      "cli-bin": "src/cli-bin.ts",
      // optional-peer subpaths: the MCP server (@modelcontextprotocol/sdk) and the Vercel AI SDK tools (ai)
      mcp: "src/mcp/index.ts",
      ai: "src/ai.ts",
      "extract-worker": "src/extractors/worker.ts",
      // the package's `#extraction-runtime` import: extraction threads on Node, in-process elsewhere (package.json "imports")
      "runtime-node": "src/runtime/node.ts",
      "runtime-fetch": "src/runtime/fetch.ts",
    },
  },
  { dir: "packages/support", entries: { testing: "src/testing.ts", wire: "src/wire.ts", node: "src/node.ts" } },
  // the browser client depends on no package: the wire types it shares with the server are inlined, .d.ts too
  { dir: "packages/support-client", inline: { "@mountkit/support/wire": "./packages/support/src/wire.ts" } },
  { dir: "packages/support-widget" },
  { dir: "packages/memory-explorer" },
  { dir: "packages/support-inbox" },
  { dir: "packages/entries-catalogue" },
  { dir: "packages/sql", entries: { memory: "src/memory.ts", support: "src/support.ts", entries: "src/entries.ts", "sqlite-worker": "src/sqlite/worker.ts" } },
  { dir: "packages/testing" },
  { dir: "packages/api-reference" },
  { dir: "adapters/node" },
  { dir: "adapters/express" },
  { dir: "adapters/fastify" },
  { dir: "adapters/fetch" },
];

import { existsSync } from "node:fs";

// Browser bundles served by the services (built from sources, so build order does not matter).
const browserBundles = [
  { dir: "packages/support-widget", name: "widget", entry: "src/browser.ts" },
  { dir: "packages/memory-explorer", name: "explorer", entry: "src/browser.ts" },
  { dir: "packages/support-inbox", name: "inbox", entry: "src/browser.ts" },
  { dir: "packages/entries-catalogue", name: "catalogue", entry: "src/browser.ts" },
];

export default defineConfig([
  ...packages
    .filter((p) => existsSync(`${p.dir}/src/index.ts`))
    .map((p) => {
      const entry: Record<string, string> = { index: `${p.dir}/src/index.ts` };
      for (const [name, file] of Object.entries(p.entries ?? {})) if (existsSync(`${p.dir}/${file}`)) entry[name] = `${p.dir}/${file}`;
      return {
        entry,
        outDir: `${p.dir}/dist`,
        format: ["esm"],
        target: "node20",
        platform: "node",
        dts: p.inline ? { compilerOptions: { paths: Object.fromEntries(Object.entries(p.inline).map(([k, v]) => [k, [v]])) } } : true,
        sourcemap: true,
        // a package with a browser bundle shares dist/ with it: no clean, or the two builds race
        clean: !browserBundles.some((b) => b.dir === p.dir),
        skipNodeModulesBundle: true,
        external: [p.inline ? new RegExp(`^(?!(${Object.keys(p.inline).join("|")})$)[^./]`) : /^[^./]/],
        silent: true,
      };
    }),
  ...browserBundles.map((b) => ({
    entry: { [b.name]: `${b.dir}/${b.entry}` },
    outDir: `${b.dir}/dist`,
    format: ["iife" as const],
    platform: "browser" as const,
    target: "es2022",
    minify: true,
    sourcemap: false,
    dts: false,
    clean: false,
    noExternal: [/.*/],
    outExtension: () => ({ js: ".js" }),
    esbuildOptions(options: { conditions?: string[] }) {
      options.conditions = ["mountkit-source"];
    },
    silent: true,
  })),
]);
