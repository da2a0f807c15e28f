// The spec pool's contract, shared by every runtime: options, requests, and the "not judged" error (answered 503).

import type { SpecLimits } from "./limits.js";
import type { LintOptions, LintTask } from "./lint-types.js";
import type { ValidationOutcome } from "./validate.js";

export interface SpecPoolOptions {
  /**
   * Validation processes (child processes of the host, started on demand, ended after a minute idle); default the
   * cores less one, between 1 and 4.
   */
  maxThreads?: number;
  /** Documents waiting for a process; more answer 503. Default 64. */
  maxQueue?: number;
  /** Time one document may run once it reaches a process; default 30 s. */
  timeoutMs?: number;
  /**
   * Old-generation heap of each validation process (`--max-old-space-size`); a document needing more ends that process,
   * never the host, and answers 422. Default 1024 MB.
   */
  maxMemoryMb?: number;
  /**
   * Niceness the validation processes add to their own, so the event loop keeps the CPU when cores are scarce.
   * Default 10; 0 runs them at the host's priority.
   */
  lowerPriorityBy?: number;
  /**
   * Documents smaller than this without YAML anchors are validated on the event loop, within `inlineMaxSteps`.
   * Default 0: every document goes to a process, since the first validation of each OpenAPI version in a process
   * compiles the specification's JSON Schema (0.4-1.3 s for 2.0, 3.0 and 3.1, 0.25 s more to load the library).
   */
  inlineBelowBytes?: number;
  /**
   * Steps of work (limits.ts, StepBudget) a document validated inline may take on the host's event loop, a few
   * milliseconds' worth; a document that needs more is handed to a validation process (with `maxThreads: 0`, answered
   * 422 naming this limit). Default DEFAULT_INLINE_MAX_STEPS (250,000).
   */
  inlineMaxSteps?: number;
  limits?: Partial<SpecLimits>;
  /**
   * Spec linting with Spectral beside the validation (issue #28): the ruleset, in the validation processes, under the
   * same time and memory limits: `{}` or `{ ruleset: "oas" }` lints with Spectral's `spectral:oas`. Default off (as
   * `false` or `{ ruleset: "off" }`): a hostile document can hold a lint up to `timeoutMs`. While it is on, documents are not judged inline (`inlineBelowBytes`) unless there are no processes (`maxThreads: 0`).
   */
  lint?: LintOptions | false;
}

export interface PoolValidateRequest {
  baseUrl?: string;
  fetchDocument?: (url: URL) => Promise<Uint8Array>;
  signal?: AbortSignal;
  maxWarnings?: number;
  /** `false`: judge the document without linting it even when the pool lints (a catalogue submission keeps no lint). */
  lint?: false;
}

export interface SpecPool {
  validate(bytes: Uint8Array, request?: PoolValidateRequest): Promise<ValidationOutcome>;
  /** Ends the validation processes; documents in them answer 503. Later calls start new ones. */
  destroy(): Promise<void>;
  readonly options: Required<Omit<SpecPoolOptions, "limits" | "lint">> & { limits: SpecLimits; lint?: LintTask };
}

/** The pool is full: the caller answers 503 (the document was not judged). */
export class SpecPoolBusyError extends Error {
  constructor(message = "the validation queue is full") {
    super(message);
    this.name = "SpecPoolBusyError";
  }
}
