// What parsing a spec yields (the document with its kind and versions, or its issues), apart from the parser so that
// the limit checks and the position lookup it calls can name an issue without importing it.

export interface SpecIssue {
  /** JSON Pointer into the document (`/info/title`), empty for the whole document. */
  path: string;
  message: string;
  /** 1-based line of `path` (its key, for a member of an object) in the source text, when the source shows it. */
  line?: number;
  /** 1-based column of the same place, in UTF-16 code units. */
  column?: number;
}

export type SpecFormat = "json" | "yaml";

export interface ParsedSpec {
  document: Record<string, unknown>;
  format: SpecFormat;
  kind: "swagger" | "openapi";
  /** The `swagger`/`openapi` field: `2.0`, `3.0.3`, `3.1.0`. */
  specVersion: string;
  title: string;
  /** `info.version`, as written. */
  version: string;
  /** Problems that do not prevent cataloguing (a numeric `info.version`, ...). */
  notes: SpecIssue[];
  /** The text the document was parsed from: positions of issues are looked up in it, only when there are issues. */
  source?: string;
}

export type ParseOutcome = { ok: true; spec: ParsedSpec } | { ok: false; errors: SpecIssue[] };
