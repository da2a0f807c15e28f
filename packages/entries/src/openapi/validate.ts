// The OpenAPI validation behind the validation address: hard errors only for what blocks cataloguing, the rest as warnings.
import { Validator } from "@seriousme/openapi-schema-validator";
import { type Inventory, catalogue } from "../inventory/catalogue.js";
import { checkDocument, type ParsedSpec, parseSpec, parseText, type SpecIssue, decodeText } from "./parse.js";
import type { SpecLimits } from "./limits.js";
import { checkRefs, type ExternalLoader } from "./refs.js";
import { explainSchemaErrors, type SchemaError } from "./schema-messages.js";
import { semanticWarnings } from "./semantics.js";

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

/** Runs the spec's own JSON Schema (2.0, 3.0 or 3.1) and turns its violations into one warning per defect. */
async function schemaWarnings(spec: ParsedSpec): Promise<SpecIssue[]> {
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
  return explainSchemaErrors(errors as SchemaError[], spec.document, new Set(spec.notes.map((n) => n.path)));
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

/** Validates and catalogues bytes, text, or an already parsed document. */
export async function validateSpec(input: Uint8Array | string | ParsedSpec, options: ValidateSpecOptions = {}): Promise<ValidationOutcome> {
  let spec: ParsedSpec;
  if (typeof input === "object" && !(input instanceof Uint8Array)) spec = input;
  else {
    const parsed = parseSpec(input, { limits: options.limits });
    if (!parsed.ok) return { answer: { valid: false, errors: parsed.errors } };
    spec = parsed.spec;
  }
  const fetchDocument = options.fetchDocument;
  const refs = await checkRefs(spec.document, {
    baseUrl: options.baseUrl,
    maxDocuments: options.maxExternalDocuments,
    load: fetchDocument ? externalLoader(fetchDocument) : undefined,
  });
  const warnings = [...spec.notes, ...refs.warnings, ...(await schemaWarnings(spec)), ...semanticWarnings(spec)];
  const inventory = catalogue(spec, refs.pathItem);
  const max = options.maxWarnings ?? 50;
  return {
    answer: {
      valid: true,
      openapi: spec.specVersion,
      title: spec.title,
      version: spec.version,
      endpoints: inventory.endpoints,
      paths: inventory.paths,
      warnings: warnings.slice(0, max),
      warningCount: warnings.length,
      ...(refs.notices.length ? { notices: refs.notices.slice(0, max) } : {}),
    },
    inventory,
  };
}

/** For a document already decoded by a JSON body parser. */
export function parsedFromValue(value: unknown): ReturnType<typeof checkDocument> {
  return checkDocument(value, "json");
}
