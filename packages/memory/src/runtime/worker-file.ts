// Where a worker thread's module is, built or from sources. In the tsup build it is a file next to the calling
// module in dist/ (tsup.config.ts lists it as an entry). From TypeScript sources (vitest, `npm start` with tsx)
// a worker started on a .ts file would need the parent's loader hooks, and on Node 20 each thread then ran its
// own hooks thread, which crashed the process; so the source module is bundled once per process with esbuild
// (a dev dependency, loaded only here) and the thread runs plain Node. Same scheme as the spec validator's
// worker in @mountkit/entries (`packages/entries/src/openapi/pool.ts`).
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

export interface WorkerFileOptions {
  /** `import.meta.url` of the module that starts the worker. */
  here: string;
  /** The built worker's file name in dist/, next to the built caller: "./extract-worker.js". */
  built: string;
  /** The worker's source, relative to the caller's source: "../extractors/worker.ts". */
  source: string;
  /** Prefix of the bundled file's name in the cache. */
  name: string;
}

const bundled = new Map<string, string>();

/** The worker module's file URL (href). */
export function workerFile(o: WorkerFileOptions): string {
  if (!/\.[cm]?ts$/.test(new URL(o.here).pathname)) return new URL(o.built, o.here).href;
  const entry = fileURLToPath(new URL(o.source, o.here));
  let href = bundled.get(entry);
  if (href) return href;
  const esbuild = createRequire(o.here)("esbuild") as typeof import("esbuild");
  const [bundle] = esbuild.buildSync({
    entryPoints: [entry],
    write: false,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    conditions: ["mountkit-source"],
    // npm dependencies stay external and resolve from the cache folder as usual; workspace sources are inlined
    packages: "external",
    logLevel: "silent",
  }).outputFiles;
  // named by content: test processes running side by side share one file, written whole (rename) or not at all
  const dir = fileURLToPath(new URL("../../node_modules/.cache/", import.meta.url));
  const file = `${dir}${o.name}-${bundle!.hash.replace(/[^A-Za-z0-9]/g, "")}.mjs`;
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${file}.${process.pid}`, bundle!.contents);
    renameSync(`${file}.${process.pid}`, file);
  }
  href = pathToFileURL(file).href;
  bundled.set(entry, href);
  return href;
}

/**
 * The parent's Node options for a worker thread, without module loaders and preloads (`--import tsx`,
 * `--loader`, `--require`): the worker's module is plain JavaScript, and a loader per thread is what crashed.
 */
export function workerExecArgv(argv: readonly string[] = process.execArgv): string[] {
  const out: string[] = [];
  const LOADERS = /^--(import|loader|experimental-loader|require|r)$/;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (LOADERS.test(a) || a === "-r") {
      i++;
      continue;
    }
    if (/^--(import|loader|experimental-loader|require)=/.test(a)) continue;
    out.push(a);
  }
  return out;
}
