// Spec linting's contract, shared by the host and the validation processes (issue #28): the deployment's ruleset
// choice, and the `lint` part of a valid answer. Types and pure helpers only: the root bundle imports this file.

export type LintSeverity = "error" | "warning" | "info" | "hint";

/** One finding of the ruleset, as Spectral reports it: its rule code, severity and message, at a JSON pointer. */
export interface LintResult {
  /** The rule's code (`operation-operationId`, `oas3-schema`), or Spectral's own: `parser`, `invalid-ref`, `unrecognized-format`. */
  rule: string;
  severity: LintSeverity;
  message: string;
  /** JSON Pointer of the part concerned, in the document named by `source` (the validated one when absent). */
  path: string;
  /** 1-based line of `path` (its key, for an object member), when the validated text shows it. */
  line?: number;
  /** 1-based column of the same place, in UTF-16 code units. */
  column?: number;
  /** URL of the external (`$ref`-ed) document the finding is in; absent for the validated document itself. */
  source?: string;
}

/** The `lint` part of a valid answer. */
export interface LintReport {
  /** The ruleset applied: `oas`, or the name of the deployment's own (`lint.name`, its file's name, or `custom`). */
  ruleset: string;
  /** Findings in Spectral's order (by position), at most `lint.maxResults` of them. */
  results: LintResult[];
  /** All findings; `results` holds at most `lint.maxResults` of them. */
  resultCount: number;
  /** All findings by severity. */
  counts: Record<LintSeverity, number>;
  /**
   * Set when linting did not finish (a limit reached, the ruleset could not be loaded, a rule failed): the reason, with
   * the limit's wording from the validation (`too slow: ...`, `too large: ...`). Results and counts are then empty.
   */
  failed?: string;
}

/**
 * A ruleset in Spectral's own file format, as an object (`{ extends: ["spectral:oas"], rules: { ... } }`): rule
 * overrides (`"operation-tags": "off"`) and new rules using Spectral's built-in functions by name.
 */
export type LintRulesetDefinition = Record<string, unknown>;

export interface LintOptions {
  /**
   * `oas` (default): Spectral's `spectral:oas` ruleset, recommended rules. `off`: no linting. A path (absolute, or
   * relative to the working directory) to a ruleset file in Spectral's format (`.spectral.yaml`, `.json`, `.js`), or
   * such a ruleset as an object: loaded as Spectral's CLI loads `--ruleset` (no remote `extends`).
   */
  ruleset?: "oas" | "off" | (string & {}) | LintRulesetDefinition;
  /** Shown as `lint.ruleset` in answers; default `oas`, the file's name, or `custom` for an object. */
  name?: string;
  /** Findings listed per answer (all are counted); default 200. */
  maxResults?: number;
}

/** What the validation processes are told: plain data, sent over the IPC channel. */
export interface LintTask {
  ruleset: "oas" | { file: string } | { definition: LintRulesetDefinition };
  name: string;
  maxResults: number;
}

export const DEFAULT_LINT_MAX_RESULTS = 200;

const baseName = (file: string) => file.replace(/\\/g, "/").split("/").pop() || file;

/** The task for the options, or undefined when linting is off (no options: off; `{}`: `oas`). */
export function lintTask(o: LintOptions | false | undefined): LintTask | undefined {
  if (o === false || o === undefined) return undefined;
  const ruleset = o?.ruleset ?? "oas";
  const maxResults = Math.max(0, Math.floor(o?.maxResults ?? DEFAULT_LINT_MAX_RESULTS));
  if (ruleset === "off") return undefined;
  if (ruleset === "oas") return { ruleset: "oas", name: o?.name ?? "oas", maxResults };
  if (typeof ruleset === "string") return { ruleset: { file: ruleset }, name: o?.name ?? baseName(ruleset), maxResults };
  return { ruleset: { definition: ruleset }, name: o?.name ?? "custom", maxResults };
}

export const emptyCounts = (): Record<LintSeverity, number> => ({ error: 0, warning: 0, info: 0, hint: 0 });

/** A report for linting that did not finish. */
export function failedLint(task: Pick<LintTask, "name">, reason: string): LintReport {
  return { ruleset: task.name, results: [], resultCount: 0, counts: emptyCounts(), failed: reason };
}
