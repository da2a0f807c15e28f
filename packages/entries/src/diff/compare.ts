// Compares two OpenAPI/Swagger documents: parsed under the validation limits, brought to one OpenAPI version, compared by
// api-smart-diff (references resolved, each change classified), then the kit's rules (rules.ts). Runs in the spec
// pool's child processes (diff/worker-task.ts), never on the host's event loop: the library walks the whole document.
import { upgradeFromTwoToThree } from "@scalar/openapi-upgrader/2.0-to-3.0";
import { upgradeFromThreeToThreeOne } from "@scalar/openapi-upgrader/3.0-to-3.1";
import { apiDiff } from "api-smart-diff";
import type { SpecLimits } from "../openapi/limits.js";
import { parseSpec } from "../openapi/parse.js";
import { escapeToken } from "../openapi/pointer.js";
import type { ParsedSpec } from "../openapi/spec-types.js";
import { alignReferences } from "./align.js";
import { pruneUnchanged } from "./prune.js";
import { collapseTypeLists, kitVerdict, type LibraryDiff, operationOf } from "./rules.js";
import { CHANGE_KINDS, type ChangeKind, type DiffIssue, type DiffOutcome, type SpecChange } from "./types.js";

export interface DiffSpecsOptions {
  limits?: SpecLimits;
  /** Changes listed in the answer (all are counted); default 1,000. */
  maxChanges?: number;
}

type Json = Record<string, unknown>;

/** Values shown in `before`/`after` up to this many characters of JSON. */
const MAX_VALUE_CHARS = 512;

const pointer = (path: LibraryDiff["path"]) => path.map((p) => `/${escapeToken(String(p))}`).join("");

/** Whether a value is small enough to show, counting characters with an early exit. */
function small(v: unknown): boolean {
  if (v === undefined || v === null || typeof v !== "object") return typeof v !== "string" || v.length <= MAX_VALUE_CHARS;
  let budget = MAX_VALUE_CHARS;
  const stack: unknown[] = [v];
  while (stack.length) {
    const n = stack.pop();
    budget -= typeof n === "string" ? n.length + 2 : 4;
    if (budget < 0) return false;
    if (typeof n === "object" && n !== null) for (const [k, c] of Object.entries(n)) stack.push(k, c);
  }
  return true;
}

const VERB = { add: "Added", remove: "Removed", replace: "Replaced", rename: "Renamed" } as const;

function toChange(d: LibraryDiff, kind: ChangeKind, rule: string | undefined, message: string | undefined): SpecChange {
  const change: SpecChange = {
    kind,
    action: d.action,
    path: pointer(d.path),
    message: message || d.description || `[${VERB[d.action]}] ${pointer(d.path) || "the document"}`,
  };
  const shown = [d.before, d.after].every(small);
  if (shown && d.action !== "add" && d.before !== undefined) change.before = d.before;
  if (shown && d.action !== "remove" && d.after !== undefined) change.after = d.after;
  if (!shown) change.valueElided = true;
  const op = operationOf(d.path);
  if (op) change.operation = op;
  if (rule) change.rule = rule;
  return change;
}

/** Both documents as OpenAPI 3.x of the same minor version: 2.0 is upgraded to 3.0, and 3.0 to 3.1 beside a 3.1 one. */
function commonVersion(base: ParsedSpec, head: ParsedSpec): [Json, Json] {
  const up = (s: ParsedSpec, to31: boolean): Json => {
    let doc = s.document;
    if (s.kind === "swagger") doc = upgradeFromTwoToThree(doc) as Json;
    if (to31 && !String(doc.openapi).startsWith("3.1")) doc = upgradeFromThreeToThreeOne(doc) as Json;
    // the version field as written, so that a change of version shows as one
    if (s.kind === "openapi") doc.openapi = s.specVersion;
    return doc;
  };
  const to31 = [base, head].some((s) => s.kind === "openapi" && s.specVersion.startsWith("3.1"));
  return [up(base, to31), up(head, to31)];
}

function parseSide(side: "base" | "head", input: Uint8Array | string, limits?: SpecLimits): ParsedSpec | DiffIssue[] {
  const parsed = parseSpec(input, { limits });
  if (parsed.ok) return parsed.spec;
  return parsed.errors.map((e) => ({ path: `${side}${e.path}`, message: e.message }));
}

export function diffSpecs(baseInput: Uint8Array | string, headInput: Uint8Array | string, options: DiffSpecsOptions = {}): DiffOutcome {
  const base = parseSide("base", baseInput, options.limits);
  const head = parseSide("head", headInput, options.limits);
  if (Array.isArray(base) || Array.isArray(head))
    return { ok: false, errors: [...(Array.isArray(base) ? base : []), ...(Array.isArray(head) ? head : [])] };
  const [before, after] = commonVersion(base, head);
  pruneUnchanged(before, after);
  alignReferences(before, after);
  const found: SpecChange[] = [];
  for (const d of collapseTypeLists(apiDiff(before, after) as LibraryDiff[], before, after)) {
    const verdict = kitVerdict(d, before, after);
    if (verdict === null) continue;
    found.push(toChange(d, verdict?.kind ?? (d.type as ChangeKind), verdict?.rule, verdict?.message));
  }
  const rank = (k: ChangeKind) => CHANGE_KINDS.indexOf(k);
  found.sort((a, b) => rank(a.kind) - rank(b.kind));
  const counts = Object.fromEntries(CHANGE_KINDS.map((k) => [k, 0])) as Record<ChangeKind, number>;
  for (const c of found) counts[c.kind]++;
  const side = (s: ParsedSpec) => ({ openapi: s.specVersion, title: s.title, version: s.version });
  return {
    ok: true,
    diff: {
      breaking: counts.breaking > 0,
      counts,
      changeCount: found.length,
      changes: found.slice(0, options.maxChanges ?? 1000),
      base: side(base),
      head: side(head),
    },
  };
}
