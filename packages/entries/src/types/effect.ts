// Effect Schema support. `effect` is an optional peer: it is loaded (synchronously, the registry being
// synchronous) only when a host registers an Effect Schema, so importing @mountkit/entries never pays for it.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type * as EffectJsonSchema from "effect/JSONSchema";
import type * as EffectSchema from "effect/Schema";

/** What the kit reads of an Effect Schema, structurally, so the published types need no `effect`. */
export interface EffectSchemaLike<A = unknown, I = unknown> {
  readonly Type: A;
  readonly Encoded: I;
  readonly Context: never;
  readonly ast: unknown;
}

// Effect marks every schema with this registered symbol (Schema.TypeId); checking it needs no import.
const EFFECT_SCHEMA = Symbol.for("effect/Schema");

/** True for an Effect Schema (a class or an object carrying Effect's schema marker). */
export function isEffectSchema(s: unknown): s is EffectSchemaLike {
  return (typeof s === "object" || typeof s === "function") && s !== null && EFFECT_SCHEMA in s;
}

interface EffectModules {
  Schema: typeof EffectSchema;
  JSONSchema: typeof EffectJsonSchema;
}

let loaded: EffectModules | undefined;

/**
 * Loads `effect/Schema` and `effect/JSONSchema` once. The ESM files are resolved the way `import` would
 * and loaded with require(esm) (Node 20.19+), so a host that already imported effect shares its instance
 * instead of loading a second copy of the library.
 */
export function loadEffect(): EffectModules {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  const load = (specifier: string) => {
    let path = specifier;
    try {
      path = fileURLToPath(import.meta.resolve(specifier));
    } catch {
      // no import.meta.resolve (some bundlers): let require() resolve it
    }
    return require(path);
  };
  try {
    loaded = { Schema: load("effect/Schema"), JSONSchema: load("effect/JSONSchema") };
  } catch (cause) {
    throw new TypeError("an Effect Schema entry type needs the `effect` package installed beside @mountkit/entries (npm install effect)", {
      cause,
    });
  }
  return loaded;
}
