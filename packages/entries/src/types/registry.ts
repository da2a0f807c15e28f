// The type registry: built-in `apis` and `countries`, plus whatever the host registers.

import type { StandardSchemaV1 } from "@standard-schema/spec";
import type * as z from "zod";
import type { Inventory } from "../inventory/catalogue.js";
import { apisCustomData } from "./apis.js";
import { countriesCustomData } from "./countries.js";
import type { EffectSchemaLike } from "./effect.js";
import { type SchemaInput, toTypeSchema } from "./schema.js";
import type { JsonSchema, TypeSchema } from "./schema-types.js";

/** What a type's hook may add to an entry before it is saved. */
export interface Preparation {
  /** Tags merged into the entry's own. */
  tags?: string[];
  /** Opaque to the registry; the service stores it (the `apis` inventory). */
  inventory?: Inventory;
}

export interface PrepareContext {
  signal: AbortSignal;
  requestId: string;
}

/**
 * The `customData` type a schema accepts, read at compile time: the input type of zod or any Standard
 * Schema, the `Encoded` type of an Effect Schema (the kit stores customData as sent, so these are also
 * what reads return). A JSON Schema, or a schema whose input is `unknown`, gives `Record<string, unknown>`.
 */
export type CustomDataOf<S> = OrRecord<
  S extends EffectSchemaLike<unknown, infer I> ? I : S extends StandardSchemaV1<infer I, unknown> ? I : Record<string, unknown>
>;
type OrRecord<T> = unknown extends T ? Record<string, unknown> : T;

export interface EntryTypeDefinition<Id extends string = string, S extends SchemaInput = SchemaInput> {
  /** Path segment: lower-case letters, digits, `-`, `_`. */
  id: Id;
  title?: string;
  description?: string;
  /** zod, Effect Schema, any Standard Schema (with `jsonSchema`), or a JSON Schema object. */
  schema: S;
  /** JSON Schema for the docs when the schema cannot produce one (or to override it). */
  jsonSchema?: JsonSchema;
  /**
   * Runs after `customData` validated and before the entry is saved; throws a 422 KitError to refuse.
   * The built-in `apis` type fetches, validates and catalogues the spec here.
   */
  prepare?(customData: CustomDataOf<S>, ctx: PrepareContext): Promise<Preparation>;
}

/** Identity at run time; keeps a definition's literal `id` and schema type for the typed `api`. */
export function entryType<const Id extends string, S extends SchemaInput>(def: EntryTypeDefinition<Id, S>): EntryTypeDefinition<Id, S> {
  return def;
}

/** `customData` of the built-in types, as accepted by `submit`. A type alias (not an interface), so a typed
 * service stays assignable to the untyped `EntriesService`. */
export type BuiltinEntryTypes = {
  apis: z.input<typeof apisCustomData>;
  countries: z.input<typeof countriesCustomData>;
};

/** Any list of type definitions, whatever their schemas (`any`: each schema is read by EntryTypesOf, not constrained here). */
export type AnyEntryTypeDefinitions = readonly EntryTypeDefinition<string, any>[];

/** typeId -> customData of the built-in types plus `T`. A `T` with a plain `string` id admits every id. */
export type EntryTypesOf<T extends AnyEntryTypeDefinitions> = BuiltinEntryTypes & {
  [D in T[number] as D["id"]]: CustomDataOf<D["schema"]>;
};

export interface EntryType {
  id: string;
  title: string;
  description: string | undefined;
  schema: TypeSchema;
  prepare: ((customData: unknown, ctx: PrepareContext) => Promise<Preparation>) | undefined;
}

export const TYPE_ID = /^[a-z][a-z0-9_-]{0,63}$/;

export interface TypeRegistry {
  get(id: string): EntryType | undefined;
  list(): EntryType[];
  register(def: EntryTypeDefinition): EntryType;
  /** Bumped on every registration, so per-type caches know when to drop. */
  readonly version: number;
}

export function defineType(def: EntryTypeDefinition): EntryType {
  if (!TYPE_ID.test(def.id)) throw new TypeError(`invalid type id ${JSON.stringify(def.id)}: use ${TYPE_ID}`);
  return {
    id: def.id,
    title: def.title ?? def.id,
    description: def.description,
    schema: toTypeSchema(def.schema, def.jsonSchema),
    prepare: def.prepare as EntryType["prepare"],
  };
}

export const builtinTypes = {
  apis: (prepare?: EntryType["prepare"]): EntryTypeDefinition => ({
    id: "apis",
    title: "APIs",
    description: "Descriptions of APIs. The spec at `customData.specUrl` is validated and catalogued before the entry is saved.",
    schema: apisCustomData,
    ...(prepare ? { prepare } : {}),
  }),
  countries: (): EntryTypeDefinition => ({
    id: "countries",
    title: "Countries",
    description: "Country records (ISO 3166).",
    schema: countriesCustomData,
  }),
};

export function typeRegistry(defs: EntryTypeDefinition[] = []): TypeRegistry {
  const types = new Map<string, EntryType>();
  let version = 0;
  const registry: TypeRegistry = {
    get: (id) => types.get(id),
    list: () => [...types.values()],
    register(def) {
      if (types.has(def.id)) throw new Error(`type ${def.id} is already registered`);
      const t = defineType(def);
      types.set(t.id, t);
      version++;
      return t;
    },
    get version() {
      return version;
    },
  };
  for (const d of defs) registry.register(d);
  return registry;
}
