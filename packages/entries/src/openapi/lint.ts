// Spec linting with Spectral (issue #28), in the validation processes only: the document is read by Spectral's own
// parser and linted as `spectral lint` does, references resolved only through the parent (the spec-fetch policy),
// never from disk. Findings become JSON pointers, placed by positions.ts like the validation's warnings.
import { promises as fs } from "node:fs";
import { isAbsolute, resolve as resolvePath } from "node:path";
import type { ISpectralDiagnostic, Ruleset } from "@stoplight/spectral-core";
import type { Resolver } from "@stoplight/spectral-ref-resolver";
import { emptyCounts, failedLint, type LintReport, type LintResult, type LintSeverity, type LintTask } from "./lint-types.js";
import { escapeToken } from "./pointer.js";
import { locatePointers } from "./positions.js";

/** Spectral's DiagnosticSeverity, 0 to 3. */
const SEVERITIES: LintSeverity[] = ["error", "warning", "info", "hint"];

/** Where an object ruleset is said to live: relative `extends` in it are read from the working directory. */
const INLINE_RULESET = ".mountkit-lint-ruleset.json";

type SpectralCore = typeof import("@stoplight/spectral-core");
interface Spectral {
  core: SpectralCore;
  Yaml: typeof import("@stoplight/spectral-parsers").Yaml;
  Resolver: typeof import("@stoplight/spectral-ref-resolver").Resolver;
  oas: typeof import("@stoplight/spectral-rulesets").oas;
}

/** CommonJS packages: their `module.exports` is the default export. */
const cjs = <T>(m: T): T => ((m as { default?: T }).default ?? m) as T;

let modules: Promise<Spectral> | undefined;

/**
 * Spectral's modules, loaded on first use (about a second): a process of a deployment that lints loads them before it
 * says it is ready (`preloadSpectral`), so the load is not counted against a document's time; one that does not, never.
 */
export function preloadSpectral(): Promise<Spectral> {
  modules ??= Promise.all([
    import("@stoplight/spectral-core"),
    import("@stoplight/spectral-parsers"),
    import("@stoplight/spectral-ref-resolver"),
    import("@stoplight/spectral-rulesets"),
  ]).then(([core, parsers, resolver, rulesets]) => ({
    core: cjs(core),
    Yaml: cjs(parsers).Yaml,
    Resolver: cjs(resolver).Resolver,
    oas: cjs(rulesets).oas,
  }));
  return modules;
}

/** The last ruleset loaded in this process: a process serves one deployment, so one is kept. */
let loaded: { key: string; ruleset: Promise<Ruleset> } | undefined;

/** The host's ruleset, loaded as the CLI loads `--ruleset` (Spectral's bundler: YAML, JSON or JS, `extends`, functions). */
async function loadHostRuleset(source: { file: string } | { definition: Record<string, unknown> }): Promise<Ruleset> {
  const { bundleAndLoadRuleset } = await import("@stoplight/spectral-ruleset-bundler/with-loader");
  const file = "file" in source ? (isAbsolute(source.file) ? source.file : resolvePath(source.file)) : resolvePath(INLINE_RULESET);
  const text = "definition" in source ? JSON.stringify(source.definition) : undefined;
  const io = {
    fs: {
      promises: {
        // the object ruleset is served from memory under its own name; everything else from disk
        readFile: ((path: string, encoding?: unknown) =>
          text !== undefined && path === file
            ? Promise.resolve(text)
            : fs.readFile(path, encoding as BufferEncoding)) as typeof fs.readFile,
      },
    },
    // a ruleset extending a URL would fetch it from every process: deployments keep their rulesets on disk
    fetch: (async (url: string) => {
      throw new Error(`remote rulesets are not loaded (${url}): keep the ruleset in a file`);
    }) as unknown as typeof fetch,
  };
  return bundleAndLoadRuleset(file, io);
}

function rulesetFor(s: Spectral, task: LintTask): Promise<Ruleset> {
  const key = JSON.stringify(task.ruleset);
  if (loaded?.key === key) return loaded.ruleset;
  const ruleset =
    task.ruleset === "oas"
      ? Promise.resolve(new s.core.Ruleset({ extends: [s.oas] }, { severity: "recommended" }))
      : loadHostRuleset(task.ruleset);
  loaded = { key, ruleset };
  ruleset.catch(() => {
    if (loaded?.ruleset === ruleset) loaded = undefined;
  });
  return ruleset;
}

export interface LintInput {
  /** The document's text, as validated. */
  text: string;
  format: "json" | "yaml";
  /** Where the document came from: relative references resolve against it, and findings in it carry no `source`. */
  baseUrl?: string;
  /** Fetches a same-origin document through the parent; absent, external references are not followed. */
  fetchDocument?: (url: URL) => Promise<Uint8Array>;
  maxDepth: number;
}

/** A fresh resolver per document: Spectral caches referenced documents per resolver, and one task's must not serve the next. */
function resolverFor(s: Spectral, fetchDocument: LintInput["fetchDocument"]): Resolver {
  const viaParent = {
    resolve: async (ref: { toString(): string }) => new TextDecoder().decode(await fetchDocument!(new URL(String(ref)))),
  };
  return new s.Resolver({ resolvers: fetchDocument ? { http: viaParent, https: viaParent } : {} });
}

/**
 * The document's name for Spectral. Without one, Spectral reports a finding inside a local `$ref` target at the
 * referencing place, and checks the reference object itself (measured against the CLI, which always names its file):
 * a posted document without `baseUrl` gets a placeholder name, which no resolver here can read.
 */
const sourceOf = (input: LintInput) => input.baseUrl ?? `/document.${input.format}`;

const pointer = (path: ReadonlyArray<string | number>) => path.map((k) => `/${escapeToken(String(k))}`).join("");

/** Error messages only: a rule that throws must not show its stack in an answer. */
const reason = (e: unknown) => String((e as Error | undefined)?.message ?? e).split("\n")[0]!;

/** Lints one document; never throws: a ruleset that cannot load or a rule that throws gives a `failed` report. */
export async function lintDocument(input: LintInput, task: LintTask): Promise<LintReport> {
  let diagnostics: ISpectralDiagnostic[];
  try {
    const s = await preloadSpectral();
    const spectral = new s.core.Spectral({ resolver: resolverFor(s, input.fetchDocument) });
    spectral.setRuleset(await rulesetFor(s, task));
    const document = new s.core.Document(input.text, s.Yaml, sourceOf(input));
    diagnostics = await spectral.run(document);
  } catch (e) {
    return failedLint(task, `lint failed: ${reason(e)}`);
  }
  return report(diagnostics, input, task);
}

function report(diagnostics: ISpectralDiagnostic[], input: LintInput, task: LintTask): LintReport {
  const counts = emptyCounts();
  const results: LintResult[] = [];
  const source = sourceOf(input);
  const own = (d: ISpectralDiagnostic) => d.source === undefined || d.source === null || d.source === source;
  for (const d of diagnostics) {
    const severity = SEVERITIES[d.severity] ?? "hint";
    counts[severity]++;
    if (results.length >= task.maxResults) continue;
    const r: LintResult = { rule: String(d.code), severity, message: d.message, path: pointer(d.path) };
    if (!own(d)) r.source = d.source!;
    else r.line = d.range.start.line + 1;
    if (r.line !== undefined) r.column = d.range.start.character + 1;
    results.push(r);
  }
  // the validation's positions (the key of a member) where the text holds the pointer; Spectral's range elsewhere
  const wanted = results.filter((r) => r.source === undefined && r.path !== "").map((r) => r.path);
  const at = wanted.length ? locatePointers(input.text, input.format, wanted, input.maxDepth) : new Map();
  for (const r of results) {
    const p = r.source === undefined ? at.get(r.path) : undefined;
    if (p) {
      r.line = p.line;
      r.column = p.column;
    }
  }
  return { ruleset: task.name, results, resultCount: diagnostics.length, counts };
}
