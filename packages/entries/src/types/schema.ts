// Adapters turning a host's schema (zod, Effect Schema, any Standard Schema, or JSON Schema) into one validator + JSON Schema pair.
import type { StandardSchemaV1 } from "@standard-schema/spec";
import * as z from "zod";
import { type EffectSchemaLike, isEffectSchema, loadEffect } from "./effect.js";
import { compileJsonSchema } from "./json-schema.js";
import type { JsonSchema, TypeSchema } from "./schema-types.js";

/** Anything a host may register a type with. An Effect Schema needs `effect` installed (an optional peer). */
export type SchemaInput = z.ZodType | EffectSchemaLike | StandardSchemaV1 | JsonSchema;

export function formatPath(path: ReadonlyArray<PropertyKey | { key: PropertyKey }> | undefined): string {
  let out = "";
  for (const seg of path ?? []) {
    const key = typeof seg === "object" && seg !== null ? seg.key : seg;
    if (typeof key === "number") out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

function stripDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/** Wraps a Standard Schema validator; `jsonSchema` documents it. */
export function fromStandardSchema(schema: StandardSchemaV1, jsonSchema: JsonSchema): TypeSchema {
  return {
    jsonSchema: stripDialect(jsonSchema),
    async validate(value) {
      const r = await schema["~standard"].validate(value);
      if (!r.issues) return { ok: true, value: r.value };
      return { ok: false, issues: r.issues.map((i) => ({ path: formatPath(i.path), message: i.message })) };
    },
  };
}

export function fromZod(schema: z.ZodType): TypeSchema {
  const js = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as JsonSchema;
  return fromStandardSchema(schema, js);
}

/** Loads `effect` on first use (an optional peer); throws a TypeError naming the package when it is missing. */
export function fromEffect(schema: EffectSchemaLike): TypeSchema {
  const { Schema, JSONSchema } = loadEffect();
  const effectSchema = schema as unknown as Parameters<typeof Schema.standardSchemaV1>[0];
  // errors: "all" makes Effect report every failing path instead of stopping at the first.
  const std = Schema.standardSchemaV1(effectSchema, { errors: "all" });
  const js = JSONSchema.make(effectSchema, { target: "jsonSchema2020-12" }) as unknown as JsonSchema;
  return fromStandardSchema(std, js);
}

export function fromJsonSchema(schema: JsonSchema): TypeSchema {
  const check = compileJsonSchema(schema);
  return {
    jsonSchema: stripDialect(schema),
    async validate(value) {
      const issues = check(value);
      return issues.length ? { ok: false, issues } : { ok: true, value };
    },
  };
}

const isZod = (s: unknown): s is z.ZodType => typeof s === "object" && s !== null && "_zod" in s;
const isStandard = (s: unknown): s is StandardSchemaV1 => typeof s === "object" && s !== null && "~standard" in s;

/** Picks the adapter for a schema. A bare Standard Schema other than zod/Effect needs `jsonSchema` for the docs. */
export function toTypeSchema(schema: SchemaInput, jsonSchema?: JsonSchema): TypeSchema {
  if (isZod(schema)) return jsonSchema ? fromStandardSchema(schema, jsonSchema) : fromZod(schema);
  if (isEffectSchema(schema)) {
    const adapted = fromEffect(schema);
    return jsonSchema ? { ...adapted, jsonSchema: stripDialect(jsonSchema) } : adapted;
  }
  if (isStandard(schema)) {
    if (!jsonSchema) throw new TypeError("a Standard Schema other than zod or Effect Schema needs a jsonSchema for its documentation");
    return fromStandardSchema(schema, jsonSchema);
  }
  return fromJsonSchema(schema as JsonSchema);
}
