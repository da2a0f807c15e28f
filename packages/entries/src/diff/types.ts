// What a spec diff answers (docs/entries.md#spec-diffs): every change between two OpenAPI documents, classified, breaking first.

/** How a change affects existing clients, in the order answers list them. */
export const CHANGE_KINDS = ["breaking", "deprecated", "non-breaking", "annotation", "unclassified"] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export const CHANGE_ACTIONS = ["add", "remove", "replace", "rename"] as const;
export type ChangeAction = (typeof CHANGE_ACTIONS)[number];

export interface SpecChange {
  kind: ChangeKind;
  action: ChangeAction;
  /** JSON Pointer of the changed node: in `head` for an addition, in `base` otherwise (both as compared, see docs). */
  path: string;
  /** The value before (remove, replace, rename), when it is small enough to show (see `valueElided`). */
  before?: unknown;
  /** The value after (add, replace, rename), likewise. */
  after?: unknown;
  /** `before`/`after` were left out: larger than the answer shows (a removed operation, a whole schema). */
  valueElided?: boolean;
  message: string;
  /** The operation the change is in, when it is in one. */
  operation?: { method: string; path: string };
  /** The kit's own rule that classified this change, when it is not the library's verdict (docs/entries.md#spec-diffs). */
  rule?: string;
}

export interface DiffSide {
  /** `openapi` or `swagger` field of the document as posted or fetched. */
  openapi: string;
  title: string;
  version: string;
}

export interface SpecDiff {
  /** At least one change is breaking. */
  breaking: boolean;
  /** Changes of each kind (all of them, also those past `changes`' cap). */
  counts: Record<ChangeKind, number>;
  /** All changes found; `changes` holds at most `maxChanges` of them. */
  changeCount: number;
  changes: SpecChange[];
  base: DiffSide;
  head: DiffSide;
}

/** One document that could not be compared: not JSON/YAML, not OpenAPI, or over a limit. */
export interface DiffIssue {
  /** `base/...` or `head/...`: the side, then a JSON Pointer into it; the side alone for the whole document. */
  path: string;
  message: string;
}

export type DiffOutcome = { ok: true; diff: SpecDiff } | { ok: false; errors: DiffIssue[] };

/** A request that is not `{ base, head }` (`request: true`, answered 400), else DiffOutcome (a failure answered 422). */
export type DiffTaskOutcome = DiffOutcome | { ok: false; request: true; errors: DiffIssue[] };
