// Issue #14: the root entry of every package that claims to run on fetch runtimes (Workers, Deno, Bun)
// bundles for a browser target without a single Node builtin. Each root is built from its sources (the
// `mountkit-source` condition) with its dependencies, and a failure names the chain of imports to the builtin.
import { builtinModules } from "node:module";
import { fileURLToPath } from "node:url";
import { build, type Metafile, type Plugin } from "esbuild";
import { describe, expect, it } from "vitest";

const ROOTS = ["core", "entries", "memory", "support", "support-client"];

const root = fileURLToPath(new URL("..", import.meta.url));
const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
const isBuiltin = (path: string) => path.startsWith("node:") || BUILTINS.has(path) || BUILTINS.has(path.split("/")[0]!);

/** Leaves every builtin out of the bundle as an external, so esbuild's metafile records who imported it. */
const builtinsExternal: Plugin = {
  name: "builtins-external",
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => (isBuiltin(args.path) ? { path: args.path, external: true } : undefined));
  },
};

/** Each builtin import, with the chain of files from the entry to the file that imports it. */
function builtinChains(meta: Metafile, entry: string): string[] {
  const parent = new Map<string, string>([[entry, ""]]);
  const queue = [entry];
  const found: string[] = [];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const imp of meta.inputs[file]?.imports ?? []) {
      if (imp.external && isBuiltin(imp.path)) {
        const chain = [`${imp.path} (${imp.kind})`];
        for (let at = file; at; at = parent.get(at)!) chain.unshift(at);
        found.push(chain.join(" -> "));
      } else if (!imp.external && !parent.has(imp.path)) {
        parent.set(imp.path, file);
        queue.push(imp.path);
      }
    }
  }
  return found;
}

describe("fetch-runtime roots import no Node builtin", () => {
  it.each(ROOTS)("@mountkit/%s", async (name) => {
    const entry = `packages/${name}/src/index.ts`;
    const result = await build({
      absWorkingDir: root,
      entryPoints: [entry],
      bundle: true,
      write: false,
      metafile: true,
      format: "esm",
      platform: "browser",
      conditions: ["mountkit-source", "worker", "browser"],
      logLevel: "silent",
      plugins: [builtinsExternal],
    });
    expect(builtinChains(result.metafile, entry)).toEqual([]);
  });
});
