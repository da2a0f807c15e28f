// Turns JSON Schema (Ajv) errors into one plain warning per defect: noise from the `oneOf`/`anyOf`/`if` branches a
// value was never meant to match is dropped, allowed values are listed, and the offending property is named.
import type { StepBudget } from "./limits.js";
import { type PointerResolver, pointerResolver } from "./refs.js";
import type { SpecIssue } from "./spec-types.js";

export interface SchemaError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

const COMBINATORS = new Set(["oneOf", "anyOf", "if", "not", "then", "else"]);
/** Errors a failed branch leaves on the object itself while the real defect sits deeper. */
const BRANCH_SHAPE = new Set(["required", "additionalProperties", "unevaluatedProperties", "type", "$ref", "false schema"]);

const lastToken = (path: string) =>
  path
    .slice(path.lastIndexOf("/") + 1)
    .replace(/~1/g, "/")
    .replace(/~0/g, "~");

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

/** Longest value a "did you mean" is looked for (the edit distance costs the product of the two lengths). */
const SUGGEST_MAX_LENGTH = 64;

/** "did you mean" for a near miss (typo or case), else nothing. */
function suggestion(value: unknown, allowed: unknown[]): string {
  if (typeof value !== "string" || value.length > SUGGEST_MAX_LENGTH) return "";
  let best: string | undefined;
  let bestD = Number.POSITIVE_INFINITY;
  for (const a of allowed) {
    if (typeof a !== "string" || a.length > SUGGEST_MAX_LENGTH) continue;
    const d = a.toLowerCase() === value.toLowerCase() ? 0 : distance(a, value);
    if (d < bestD) [best, bestD] = [a, d];
  }
  return best !== undefined && bestD <= Math.max(1, Math.floor(value.length / 3)) ? ` (did you mean ${JSON.stringify(best)}?)` : "";
}

function describe(e: SchemaError, value: unknown): string {
  const name = e.instancePath ? `\`${lastToken(e.instancePath)}\`` : "the document";
  const p = e.params;
  switch (e.keyword) {
    case "additionalProperties":
      return `property \`${String(p.additionalProperty)}\` is not allowed here (no additional properties)`;
    case "unevaluatedProperties":
      return `property \`${String(p.unevaluatedProperty)}\` is not allowed here (no unevaluated properties)`;
    case "required":
      return `\`${String(p.missingProperty)}\` is required in ${name}`;
    case "type":
      return `${name} must be of type ${String(p.type).replace(/,/g, " or ")} (it is ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value})`;
    case "requiredOneOf": {
      const names = (p.names as string[]).map((n) => `\`${n}\``);
      return `${name} matches none of the forms allowed here: each needs ${names.length > 2 ? "one of " : "either "}${names.slice(0, -1).join(", ")} or ${names.at(-1)}, and none is present`;
    }
    case "oneOf":
    case "anyOf":
      return `${name} matches none of the forms allowed here`;
    case "not":
      return `${name} has a combination of fields that is not allowed here`;
    case "if":
      return `${name} does not meet the conditions for its kind`;
    default:
      return `${name} ${e.message ?? "is invalid"}`;
  }
}

/**
 * Every proper ancestor of each path (`/a` and the empty root for `/a/b`), counted: `isUnder(x, p)` for some listed
 * `x` is then a lookup, where scanning the list for each error made the explanation quadratic in the number of errors
 * (issue #24: 22,000 errors of one 60 KB document took 30 s).
 */
function ancestorCounts(paths: Iterable<string>, budget: StepBudget | undefined): Map<string, number> {
  const counts = new Map<string, number>();
  for (const path of paths) {
    budget?.spend(1 + (path.length >> 5));
    for (let i = path.indexOf("/"); i >= 0; i = path.indexOf("/", i + 1)) {
      const ancestor = path.slice(0, i);
      counts.set(ancestor, (counts.get(ancestor) ?? 0) + 1);
    }
  }
  return counts;
}

export interface ExplainOptions {
  /** Work allowed (see limits.ts); none: unbounded. */
  budget?: StepBudget;
  /** The document's resolver, when the caller shares it with other checks. */
  resolve?: PointerResolver;
}

/**
 * `notedPaths`: pointers already explained by the parser (a numeric version read back, say): schema errors there
 * would repeat the same defect.
 */
export function explainSchemaErrors(
  errors: SchemaError[],
  document: unknown,
  notedPaths: Set<string>,
  options: ExplainOptions = {},
): SpecIssue[] {
  const budget = options.budget;
  const valueAt = options.resolve ?? pointerResolver(document, budget);
  const byPath = new Map<string, SchemaError[]>();
  for (const e of errors) {
    budget?.spend();
    if (notedPaths.has(e.instancePath)) continue;
    let list = byPath.get(e.instancePath);
    if (!list) byPath.set(e.instancePath, (list = []));
    list.push(e);
  }
  const issues = new Map<string, SpecIssue>();
  const add = (path: string, message: string) => issues.set(`${path}\u0000${message}`, { path, message });

  // enum/const: one message per value with every allowed value; none when some branch allows the value after all
  let kept: SchemaError[] = [];
  const complaints = new Map<string, number>();
  const combinatorPaths = new Set<string>();
  for (const [path, list] of byPath) {
    const choices = list.filter((e) => e.keyword === "enum" || e.keyword === "const");
    if (choices.length) {
      complaints.set(path, choices.length);
      const allowed = [
        ...new Set(choices.flatMap((e) => (e.keyword === "enum" ? (e.params.allowedValues as unknown[]) : [e.params.allowedValue]))),
      ];
      budget?.spend(allowed.length);
      const value = valueAt(path);
      if (!allowed.some((a) => a === value)) {
        kept.push({
          instancePath: path,
          keyword: "enum",
          params: {},
          message: `${JSON.stringify(value)} is not allowed: use one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}${suggestion(value, allowed)}`,
        });
      }
    }
    for (const e of list) {
      if (e.keyword === "enum" || e.keyword === "const") continue;
      if (COMBINATORS.has(e.keyword)) combinatorPaths.add(path);
      kept.push(e);
    }
  }
  const parentOf = (path: string) => path.slice(0, path.lastIndexOf("/"));
  // A value refused by the branches that complained (`in: query` while the query branch failed on its `type`) is not
  // the defect when a sibling field is: the branch that accepts the value failed there.
  const plain = kept.filter((o) => !COMBINATORS.has(o.keyword));
  const plainAt = new Map<string, number>();
  for (const o of plain) plainAt.set(o.instancePath, (plainAt.get(o.instancePath) ?? 0) + 1);
  const plainUnder = ancestorCounts(
    plain.map((o) => o.instancePath),
    budget,
  );
  // errors under the parent that are neither at the path nor under it
  const siblingTrouble = (path: string) =>
    (plainUnder.get(parentOf(path)) ?? 0) - (plainAt.get(path) ?? 0) - (plainUnder.get(path) ?? 0) > 0;
  // Several refused fields under one object: the one every branch complained about (`in`) is the branch selector,
  // the one fewer branches refused is the defect.
  const suspects = kept.filter((e) => e.keyword === "enum" && combinatorPaths.has(parentOf(e.instancePath)));
  const groups = new Map<string, { size: number; fewest: number }>();
  for (const e of suspects) {
    const g = groups.get(parentOf(e.instancePath)) ?? { size: 0, fewest: Number.POSITIVE_INFINITY };
    g.size++;
    g.fewest = Math.min(g.fewest, complaints.get(e.instancePath) ?? 0);
    groups.set(parentOf(e.instancePath), g);
  }
  const drop = new Set<SchemaError>();
  for (const e of suspects) {
    const group = groups.get(parentOf(e.instancePath))!;
    const mine = complaints.get(e.instancePath) ?? 0;
    // a rival refused by fewer branches exists exactly when the group's fewest is below this one's count
    if (group.size > 1 ? group.fewest < mine : siblingTrouble(e.instancePath)) drop.add(e);
  }
  kept = kept.filter((e) => !drop.has(e));
  // `type: "user"` fails both the enum of names and the array form: the enum message says it all
  const enumPaths = new Set(kept.filter((e) => e.keyword === "enum").map((e) => e.instancePath));
  kept = kept.filter((e) => !(e.keyword === "type" && enumPaths.has(e.instancePath)));
  // Each branch of a `oneOf`/`anyOf` that failed for a missing member (`schema`, `content`, `$ref` on a 3.0 parameter)
  // leaves its own `required` line: one defect, said once, with every member that would do.
  const missingAt = new Map<string, SchemaError[]>();
  for (const e of kept)
    if (e.keyword === "required" && combinatorPaths.has(e.instancePath)) {
      const list = missingAt.get(e.instancePath);
      if (list) list.push(e);
      else missingAt.set(e.instancePath, [e]);
    }
  const merged = new Set<SchemaError>();
  const mergedInto: SchemaError[] = [];
  for (const path of combinatorPaths) {
    const missing = missingAt.get(path) ?? [];
    const names = [...new Set(missing.map((e) => String(e.params.missingProperty)))];
    if (names.length < 2) continue;
    for (const e of missing) merged.add(e);
    mergedInto.push({ instancePath: path, keyword: "requiredOneOf", params: { names } });
  }
  if (merged.size) kept = [...kept.filter((e) => !merged.has(e)), ...mergedInto];
  const substantive = kept.filter((e) => !COMBINATORS.has(e.keyword));
  const substantiveAt = new Set(substantive.map((e) => e.instancePath));
  const substantiveUnder = ancestorCounts(substantiveAt, budget);
  const hasDeeper = (path: string) => substantiveUnder.has(path);
  const hasAtOrDeeper = (path: string) => substantiveAt.has(path) || substantiveUnder.has(path);
  const explained = new Set<string>();
  for (const e of kept) {
    const path = e.instancePath;
    if (COMBINATORS.has(e.keyword)) {
      // a branch failure says something only when nothing more precise was found at or under it, and once
      if (!hasAtOrDeeper(path) && !explained.has(path)) add(path, describe(e, valueAt(path)));
      explained.add(path);
      continue;
    }
    if (combinatorPaths.has(path) && BRANCH_SHAPE.has(e.keyword) && hasDeeper(path)) continue;
    if (e.keyword === "enum") add(path, `\`${lastToken(path)}\`: ${e.message}`);
    else add(path, describe(e, valueAt(path)));
  }
  return [...issues.values()];
}
