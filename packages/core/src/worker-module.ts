// Where a worker's module is, for the kit's worker threads and child processes: the built file beside the calling
// chunk in a package's dist/, or, from TypeScript sources (vitest, tsx), one esbuild bundle of the worker's source
// per process. A worker never runs through a test runner's or tsx's module hooks: each worker would start its own
// hooks thread, and tearing one down with its worker crashed Node 20.
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

export interface WorkerModuleSpec {
  /** `import.meta.url` of the module that starts the worker. */
  from: string;
  /** The built worker beside the calling chunk in dist/ (a tsup entry of the package), e.g. `./sqlite-worker.js`. */
  built: string;
  /** The worker's TypeScript source relative to the calling source file, e.g. `./worker.ts`. */
  source: string;
  /** Names the cached bundle, e.g. `sqlite-worker`. */
  name: string;
}

const bundled = new Map<string, string>();
const building = new Map<string, Promise<string>>();

const isSource = (from: string) => /\.[cm]?ts$/.test(new URL(from).pathname);

function buildOptions(entry: string): import("esbuild").BuildOptions & { write: false } {
  return {
    entryPoints: [entry],
    write: false,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    conditions: ["mountkit-source"],
    packages: "external",
    logLevel: "silent",
  };
}

/** Writes the bundle under a name taken from its content: processes side by side write it whole (rename) or not at all. */
function save(spec: WorkerModuleSpec, entry: string, output: { hash: string; contents: Uint8Array }): string {
  const dir = `${packageDir(entry)}/node_modules/.cache/`;
  const file = `${dir}mountkit-${spec.name}-${output.hash.replace(/[^A-Za-z0-9]/g, "")}.mjs`;
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${file}.${process.pid}`, output.contents);
    renameSync(`${file}.${process.pid}`, file);
  }
  const url = pathToFileURL(file).href;
  bundled.set(entry, url);
  return url;
}

const found = new Set<string>();

/**
 * The built worker beside the calling chunk. It is missing when the host bundled the kit's package into its own file
 * (esbuild, webpack, ncc): the Worker would fail with a bare "Cannot find module", so this says what to do instead.
 */
function builtModule(spec: WorkerModuleSpec): string {
  const url = new URL(spec.built, spec.from);
  if (found.has(url.href)) return url.href;
  if (url.protocol === "file:" && !existsSync(url))
    throw new Error(
      `mountkit's worker module ${fileURLToPath(url)} is missing: the package starting it was bundled into ${fileURLToPath(spec.from)}. ` +
        "Keep the @mountkit/* packages external to the bundle (esbuild --external:@mountkit/*, webpack externals): their worker threads start files of their own dist/.",
    );
  found.add(url.href);
  return url.href;
}

/**
 * The worker's module URL. From sources the worker is bundled with esbuild (a dev dependency, loaded only then)
 * into the package's node_modules/.cache, its dependencies left external so they resolve as usual. A caller on an
 * async path awaits `prepareWorkerModule` first, so the bundling never holds the event loop; this synchronous form
 * bundles on the spot when nothing prepared it.
 */
export function workerModule(spec: WorkerModuleSpec): string {
  if (!isSource(spec.from)) return builtModule(spec);
  const entry = fileURLToPath(new URL(spec.source, spec.from));
  const known = bundled.get(entry);
  if (known) return known;
  const esbuild = createRequire(spec.from)("esbuild") as typeof import("esbuild");
  return save(spec, entry, esbuild.buildSync(buildOptions(entry)).outputFiles![0]!);
}

/** `workerModule`, with the bundling from sources done by esbuild's service off the event loop. */
export function prepareWorkerModule(spec: WorkerModuleSpec): Promise<string> {
  if (!isSource(spec.from)) {
    try {
      return Promise.resolve(builtModule(spec));
    } catch (e) {
      return Promise.reject(e);
    }
  }
  const entry = fileURLToPath(new URL(spec.source, spec.from));
  const known = bundled.get(entry);
  if (known) return Promise.resolve(known);
  let pending = building.get(entry);
  if (!pending) {
    pending = (async () => {
      const esbuild = createRequire(spec.from)("esbuild") as typeof import("esbuild");
      const out = await esbuild.build(buildOptions(entry));
      return save(spec, entry, out.outputFiles![0]!);
    })();
    building.set(entry, pending);
    pending.catch(() => building.delete(entry));
  }
  return pending;
}

/** The package folder holding the source `file` (the parent of its `src/`), so the cache sits in its node_modules. */
function packageDir(file: string): string {
  const at = file.lastIndexOf("/src/");
  return at < 0 ? dirname(file) : file.slice(0, at);
}

/** Module loaders and preloads, with their value given apart or after `=`. */
const LOADER = /^(--(import|loader|experimental-loader|require)(=|$)|-r$)/;
/**
 * Yarn's Plug'n'Play runtime (`.pnp.cjs`, `.pnp.loader.mjs`, which `yarn node` puts in NODE_OPTIONS): it is how modules
 * resolve at all in such a project, so every thread needs it, as it had before the kit took loaders out.
 */
const PNP = /(^|[/\\=])\.pnp\.([cm]?js|loader\.mjs)$/;
/**
 * Debugger options that pause a thread at its start until a debugger resumes it: a host debugged with
 * `node --inspect-brk` would wait on its database. The kit's threads are debugged through the host's session.
 */
const PAUSES = /^--(inspect-brk|inspect-brk-node|inspect-wait)(=|$)/;
/**
 * Whether a thread takes this option of the host's: not a loader or preload (but Yarn's resolution), and not a
 * debugger pause. Said once for the command line and for NODE_OPTIONS.
 */
const forThreads = (option: string[]) => !(LOADER.test(option[0]!) && !PNP.test(option.at(-1)!)) && !PAUSES.test(option[0]!);
/** Always refused in a worker's `execArgv` (it sets the process's title): makes every probe below throw, never start. */
const PROBE_FLAG = "--title=mountkit-probe";
const accepted = new Map<string, boolean>();

/**
 * Whether Node accepts `option` (a flag and its value, when given apart) in a worker's `execArgv`. Node refuses V8
 * options and options of the whole process (`--max-old-space-size`, `--stack-trace-limit`, `--expose-gc`,
 * `--title`...), and those apply to every thread anyway, being the process's. A Worker given the option and one flag
 * always refused throws before any thread starts, listing what it refused: the option is accepted when only that flag
 * is listed. The answer is kept for the process.
 */
function acceptedInWorker(option: string[]): boolean {
  const key = option.join("\0");
  let ok = accepted.get(key);
  if (ok === undefined) {
    ok = false;
    try {
      new Worker("", { eval: true, execArgv: [...option, PROBE_FLAG] }).terminate();
    } catch (e) {
      const listed = /execArgv flags: (.*)$/s.exec(e instanceof Error ? e.message : "")?.[1];
      ok = listed === PROBE_FLAG;
    }
    accepted.set(key, ok);
  }
  return ok;
}

/**
 * The host's Node options for a worker thread, without module loaders and preloads (`--import tsx`, `--loader`,
 * `--require`: the worker's module is plain JavaScript, and a loader per thread is what crashed Node 20) other than
 * Yarn's Plug'n'Play runtime, without `--inspect-brk` and `--inspect-wait` (the thread would wait for a debugger),
 * and without the options Node refuses in a worker (a host started with `node --max-old-space-size=4096` must still
 * get its threads).
 */
export function workerExecArgv(argv: readonly string[] = process.execArgv): string[] {
  return optionsOf(argv)
    .filter((o) => forThreads(o) && acceptedInWorker(o))
    .flat();
}

/** Each option with the values given apart after it (`--conditions x`): everything in execArgv is one or the other. */
function optionsOf(args: readonly string[]): string[][] {
  const options: string[][] = [];
  for (const a of args) {
    if (a.startsWith("-") || options.length === 0) options.push([a]);
    else options.at(-1)!.push(a);
  }
  return options;
}

/** NODE_OPTIONS split as Node splits it: at spaces outside double quotes, inside which a backslash escapes. */
function splitNodeOptions(value: string): string[] {
  const out: string[] = [];
  let quoted = false;
  let fresh = true;
  for (let i = 0; i < value.length; i++) {
    let c = value[i]!;
    if (c === "\\" && quoted && i + 1 < value.length) c = value[++i]!;
    else if (c === " " && !quoted) {
      fresh = true;
      continue;
    } else if (c === '"') {
      quoted = !quoted;
      continue;
    }
    if (fresh) out.push(c);
    else out[out.length - 1] += c;
    fresh = false;
  }
  return out;
}

const quoteOption = (a: string) => (/[ "\\]/.test(a) ? `"${a.replace(/["\\]/g, "\\$&")}"` : a);

/**
 * The environment for a worker thread: the host's, unless its NODE_OPTIONS holds module loaders or preloads
 * (`--require @opentelemetry/auto-instrumentations-node/register`, `--import tsx`), which Node runs again in every
 * worker given no `env` (a tracing SDK started in each of the kit's threads), or `--inspect-brk`: then the same
 * without them (Yarn's Plug'n'Play runtime stays). Undefined when there is nothing to drop (the Worker's default,
 * the host's environment as it is).
 */
export function workerEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv | undefined {
  const value = env.NODE_OPTIONS;
  if (!value) return undefined;
  const options = optionsOf(splitNodeOptions(value));
  const kept = options.filter(forThreads);
  if (kept.length === options.length) return undefined;
  const rest = kept.flat().map(quoteOption).join(" ");
  const out: NodeJS.ProcessEnv = { ...env, NODE_OPTIONS: rest };
  if (!rest) delete out.NODE_OPTIONS;
  return out;
}

/**
 * What a Worker (or a pool of them) of the kit's takes from the host: `execArgv` from workerExecArgv, and `env` from
 * workerEnv when it has one (else the Worker's default, the host's environment).
 */
export function workerOptions(): { execArgv: string[]; env?: NodeJS.ProcessEnv } {
  const env = workerEnv();
  return { execArgv: workerExecArgv(), ...(env ? { env } : {}) };
}
