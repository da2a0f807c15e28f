// The OpenAPI validation behind the validation address: hard errors only for what blocks cataloguing, the rest as warnings.
import { Validator } from "@seriousme/openapi-schema-validator";
import { catalogue, type Inventory } from "../inventory/catalogue.js";
import { DEFAULT_SPEC_LIMITS, limitMessages, type SpecLimits, type StepBudget, StepBudgetExceeded, stepBudget } from "./limits.js";
import type { LintReport } from "./lint-types.js";
import { checkDocument, decodeText, parseSpec, parseText } from "./parse.js";
import { withPositions } from "./positions.js";
import { checkRefs, type ExternalLoader, type PointerResolver, pointerResolver } from "./refs.js";
import { explainSchemaErrors, type SchemaError } from "./schema-messages.js";
import { semanticWarnings } from "./semantics.js";
import type { ParsedSpec, SpecIssue } from "./spec-types.js";

export type ValidationAnswer =
  | {
      valid: true;
      /** `openapi` or `swagger` field of the document. */
      openapi: string;
      title: string;
      version: string;
      endpoints: number;
      paths: number;
      warnings: SpecIssue[];
      /** All warnings found; `warnings` holds at most `maxWarnings` of them. */
      warningCount: number;
      /** References not followed (other origins, no base URL): what was left unchecked, not defects. Capped likewise. */
      notices?: SpecIssue[];
      /** The deployment's lint ruleset's findings (issue #28); only from the validation processes, absent when linting is off. */
      lint?: LintReport;
    }
  | { valid: false; errors: SpecIssue[] };

export interface ValidateSpecOptions {
  /** URL the document came from: same-origin external `$ref`s are fetched relative to it. */
  baseUrl?: string;
  /** Fetches a same-origin external document (bytes); absent: external references are only reported. */
  fetchDocument?: (url: URL) => Promise<Uint8Array>;
  maxWarnings?: number;
  maxExternalDocuments?: number;
  /** Depth and YAML alias limits; default DEFAULT_SPEC_LIMITS. */
  limits?: SpecLimits;
  /**
   * Steps of work the checks may take (limits.ts, StepBudget); past them the answer is invalid and names the limit
   * ("too complex"). Default: no limit (the validation processes have a time limit instead).
   */
  maxSteps?: number;
  /** A budget the caller keeps (the inline path of the spec pool): running out throws StepBudgetExceeded. */
  budget?: StepBudget;
}

export interface ValidationOutcome {
  answer: ValidationAnswer;
  /** Present when valid: what the catalogue stores. */
  inventory?: Inventory;
}

// The JSON Schema validators compile once per process (about 100 ms each); validate() itself runs synchronously.
let shared: Validator | undefined;
const validator = () => (shared ??= new Validator({ allErrors: true }));

type AjvLike = ((data: unknown) => boolean) & { errors?: SchemaError[] | null };

/**
 * The library's compiled validator for the document's version. `Validator.validate()` also deep-clones the whole
 * document to check references (about 300 ms on a 7 MB spec, measured) and reports only the first dangling one;
 * refs.ts checks every reference in one walk, so only the schema step is taken from the library. Falls back to
 * `validate()` if a future version drops `getAjvValidator`.
 */
function compiledSchema(kind: ParsedSpec["kind"], specVersion: string): AjvLike | undefined {
  const v = validator() as unknown as { getAjvValidator?: (version: string) => AjvLike };
  if (typeof v.getAjvValidator !== "function") return undefined;
  return v.getAjvValidator(kind === "swagger" ? "2.0" : specVersion.slice(0, 3));
}

/**
 * What the JSON Schema validator will cost, charged before it runs (it cannot count): a few steps per node, and for
 * each array every pair of its items, which `uniqueItems` compares when the items are not plain strings or numbers
 * (`tags`, `parameters`, `security`: 4,000 tags took 1.4 s, issue #24).
 */
export function schemaCost(document: unknown, budget: StepBudget): void {
  const seen = new Set<object>();
  const stack: unknown[] = [document];
  while (stack.length) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      budget.spend(SCHEMA_STEPS_PER_NODE + (node.length * (node.length - 1)) / 2);
      for (const v of node) if (typeof v === "object" && v !== null) stack.push(v);
      continue;
    }
    budget.spend(SCHEMA_STEPS_PER_NODE);
    for (const key in node) {
      const v = (node as Record<string, unknown>)[key];
      if (typeof v === "object" && v !== null) stack.push(v);
    }
  }
}

/** The JSON Schema validator's work per object or array, in steps of the walks (measured, see README). */
const SCHEMA_STEPS_PER_NODE = 8;

/** Runs the spec's own JSON Schema (2.0, 3.0 or 3.1) and turns its violations into one warning per defect. */
async function schemaWarnings(spec: ParsedSpec, budget?: StepBudget, resolve?: PointerResolver): Promise<SpecIssue[]> {
  if (budget) schemaCost(spec.document, budget);
  let errors: AjvLike["errors"] | string;
  const compiled = compiledSchema(spec.kind, spec.specVersion);
  if (compiled) errors = compiled(spec.document) ? null : compiled.errors;
  else {
    const r = await validator().validate(spec.document);
    errors = r.valid ? null : (r.errors as AjvLike["errors"] | string);
  }
  if (!errors) return [];
  // String errors are the library's reference check, which refs.ts already reports path by path.
  if (typeof errors === "string") return errors.startsWith("Can't resolve") ? [] : [{ path: "", message: errors }];
  return explainSchemaErrors(errors as SchemaError[], spec.document, new Set(spec.notes.map((n) => n.path)), { budget, resolve });
}

/** Loads an external `$ref` target: any JSON or YAML value (often a bare path item or schema, not a whole spec). */
export function externalLoader(fetchDocument: (url: URL) => Promise<Uint8Array>): ExternalLoader {
  return async (url) => {
    const text = decodeText(await fetchDocument(url));
    if (text === undefined) throw new Error("not valid UTF-8");
    const r = parseText(text);
    if (!r.ok) throw new Error(r.message);
    return r.value;
  };
}

/**
 * Validates and catalogues bytes, text, or an already parsed document. With `maxSteps`, a document that needs more
 * work answers invalid naming the limit; with `budget`, running out throws StepBudgetExceeded to the caller.
 */
export async function validateSpec(input: Uint8Array | string | ParsedSpec, options: ValidateSpecOptions = {}): Promise<ValidationOutcome> {
  if (options.budget || options.maxSteps === undefined) return validateWithin(input, options, options.budget);
  try {
    return await validateWithin(input, options, stepBudget(options.maxSteps));
  } catch (e) {
    if (!(e instanceof StepBudgetExceeded)) throw e;
    return { answer: { valid: false, errors: [{ path: "", message: limitMessages.steps(e.max) }] } };
  }
}

async function validateWithin(
  input: Uint8Array | string | ParsedSpec,
  options: ValidateSpecOptions,
  budget: StepBudget | undefined,
): Promise<ValidationOutcome> {
  let spec: ParsedSpec;
  if (typeof input === "object" && !(input instanceof Uint8Array)) spec = input;
  else {
    const parsed = parseSpec(input, { limits: options.limits });
    if (!parsed.ok) return { answer: { valid: false, errors: parsed.errors } };
    spec = parsed.spec;
  }
  // one cache of resolved pointers for every check of the document
  const resolve = pointerResolver(spec.document, budget);
  const fetchDocument = options.fetchDocument;
  const refs = await checkRefs(spec.document, {
    baseUrl: options.baseUrl,
    maxDocuments: options.maxExternalDocuments,
    load: fetchDocument ? externalLoader(fetchDocument) : undefined,
    budget,
    resolve,
  });
  const warnings = [
    ...spec.notes,
    ...refs.warnings,
    ...(await schemaWarnings(spec, budget, resolve)),
    ...semanticWarnings(spec, { budget, resolve }),
  ];
  const inventory = catalogue(spec, refs.pathItem);
  const max = options.maxWarnings ?? 50;
  let shown = warnings.slice(0, max);
  let notices = refs.notices.slice(0, max);
  // positions cost one more scan of the text: only for what is reported, and only when something is
  if (spec.source !== undefined && (shown.length || notices.length)) {
    budget?.spend(spec.source.length >> 4);
    const located = withPositions([...shown, ...notices], spec.source, spec.format, (options.limits ?? DEFAULT_SPEC_LIMITS).maxDepth);
    shown = located.slice(0, shown.length);
    notices = located.slice(shown.length);
  }
  return {
    answer: {
      valid: true,
      openapi: spec.specVersion,
      title: spec.title,
      version: spec.version,
      endpoints: inventory.endpoints,
      paths: inventory.paths,
      warnings: shown,
      warningCount: warnings.length,
      ...(notices.length ? { notices } : {}),
    },
    inventory,
  };
}

/** For a document already decoded by a JSON body parser. */
export function parsedFromValue(value: unknown): ReturnType<typeof checkDocument> {
  return checkDocument(value, "json");
}
