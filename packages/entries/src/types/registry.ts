// The type registry: built-in `apis` and `countries`, plus whatever the host registers.
import type { Inventory } from "../inventory/catalogue.js";
import { apisCustomData } from "./apis.js";
import { countriesCustomData } from "./countries.js";
import { type JsonSchema, type SchemaInput, type TypeSchema, toTypeSchema } from "./schema.js";

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

export interface EntryTypeDefinition {
  /** Path segment: lower-case letters, digits, `-`, `_`. */
  id: string;
  title?: string;
  description?: string;
  /** zod, Effect Schema, any Standard Schema (with `jsonSchema`), or a JSON Schema object. */
  schema: SchemaInput;
  /** JSON Schema for the docs when the schema cannot produce one (or to override it). */
  jsonSchema?: JsonSchema;
  /**
   * Runs after `customData` validated and before the entry is saved; throws a 422 KitError to refuse.
   * The built-in `apis` type fetches, validates and catalogues the spec here.
   */
  prepare?: (customData: unknown, ctx: PrepareContext) => Promise<Preparation>;
}

export interface EntryType {
  id: string;
  title: string;
  description: string | undefined;
  schema: TypeSchema;
  prepare: EntryTypeDefinition["prepare"];
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
    prepare: def.prepare,
  };
}

export const builtinTypes = {
  apis: (prepare?: EntryTypeDefinition["prepare"]): EntryTypeDefinition => ({
    id: "apis",
    title: "APIs",
    description: "Descriptions of APIs. The spec at `customData.specUrl` is validated and catalogued before the entry is saved.",
    schema: apisCustomData,
    prepare,
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
