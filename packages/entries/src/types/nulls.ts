// docs/conventions.md#null-means-absent for customData: an optional member sent as JSON `null` is treated as absent, read off the type's JSON Schema.
import type { JsonSchema } from "./schema-types.js";

function allowsNull(s: unknown): boolean {
  if (typeof s !== "object" || s === null) return true;
  const t = (s as JsonSchema).type;
  if (t === undefined && !("anyOf" in s) && !("oneOf" in s) && !("$ref" in s) && !("const" in s) && !("enum" in s)) return true;
  if (t === "null" || (Array.isArray(t) && t.includes("null"))) return true;
  const alts = ((s as JsonSchema).anyOf ?? (s as JsonSchema).oneOf) as unknown[] | undefined;
  return alts?.some(allowsNull) ?? false;
}

/** `value` without the nulls of optional members that do not accept null, at every depth the schema describes. */
export function dropNullOptionals(schema: JsonSchema | undefined, value: unknown): unknown {
  if (!schema || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const items = schema.items as JsonSchema | undefined;
    return items && typeof items === "object" ? value.map((v) => dropNullOptionals(items, v)) : value;
  }
  const props = schema.properties as Record<string, JsonSchema> | undefined;
  if (!props) return value;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const prop = Object.hasOwn(props, k) ? props[k] : undefined;
    if (v === null && prop !== undefined && !required.has(k) && !allowsNull(prop)) continue;
    out[k] = dropNullOptionals(prop, v);
  }
  return out;
}
