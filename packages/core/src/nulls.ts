// docs/conventions.md#null-means-absent: on every optional request field, JSON `null` means the same as leaving the field out.
import * as z from "zod";

/** Looks through wrappers that do not change an object's shape (optional, default, nullable, pipes, readonly). */
function objectLike(schema: z.ZodType): z.ZodType {
  let s: z.ZodType = schema;
  for (let i = 0; i < 16; i++) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault || s instanceof z.ZodReadonly)
      s = s.unwrap() as z.ZodType;
    else if (s instanceof z.ZodPipe) s = s.in as z.ZodType;
    else if (s instanceof z.ZodLazy) s = s.unwrap() as z.ZodType;
    else return s;
  }
  return s;
}

/**
 * Whether a field may be left out (zod marks optional inputs with `optin`: "optional", or "defaulted" for a
 * field with a default, which the OpenAPI document also types nullable) and does not itself take `null`.
 */
function nullMeansAbsent(field: z.ZodType): boolean {
  return field._zod.optin !== undefined && !field.safeParse(null).success;
}

/**
 * `value` with every `null` removed where the schema has an optional field that does not accept null,
 * at any depth of objects and arrays. Returns the same object when there is nothing to remove.
 */
export function dropNullOptionals(schema: z.ZodType, value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const s = objectLike(schema);
  if (Array.isArray(value)) {
    if (!(s instanceof z.ZodArray)) return value;
    let out: unknown[] | undefined;
    value.forEach((item, i) => {
      const next = dropNullOptionals(s.element as z.ZodType, item);
      if (next !== item) (out ??= [...value])[i] = next;
    });
    return out ?? value;
  }
  if (!(s instanceof z.ZodObject)) return value;
  const shape = s.shape as Record<string, z.ZodType>;
  const record = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const key in shape) {
    if (!Object.hasOwn(record, key)) continue;
    const v = record[key];
    const field = shape[key]!;
    if (v === null) {
      if (nullMeansAbsent(field)) {
        out ??= { ...record };
        delete out[key];
      }
    } else if (typeof v === "object") {
      const next = dropNullOptionals(field, v);
      if (next !== v) (out ??= { ...record })[key] = next;
    }
  }
  return out ?? value;
}
