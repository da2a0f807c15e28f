// What a type's schema becomes once adapted (a validator reporting every failing path, and a JSON Schema), apart from
// the adapters so that the JSON Schema compiler they call can name its issues without importing them.

export type JsonSchema = Record<string, unknown>;

export interface ValidationIssue {
  /** Dotted path inside the validated value: `contact.email`, `items[2].name`; empty for the root. */
  path: string;
  message: string;
}

export type ValidationResult = { ok: true; value: unknown } | { ok: false; issues: ValidationIssue[] };

/** What the registry needs from any schema: a validator reporting every failing path, and a JSON Schema for docs. */
export interface TypeSchema {
  validate(value: unknown): Promise<ValidationResult>;
  /** JSON Schema 2020-12 without `$schema`; may carry `$defs`. */
  jsonSchema: JsonSchema;
}
