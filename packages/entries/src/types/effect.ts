// Effect Schema support. `effect` is an optional peer: it is loaded (synchronously, the registry being
// synchronous) only when a host registers an Effect Schema, so importing @mountkit/entries never pays for it.
import type * as EffectJsonSchema from "effect/JSONSchema";
import type * as EffectSchema from "effect/Schema";
import { platform } from "#runtime/platform";

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
 * Loads `effect/Schema` and `effect/JSONSchema` once, synchronously (`#runtime/platform`: require(esm) on Node, sharing the
 * instance a host already imported).
 */
export function loadEffect(): EffectModules {
  if (loaded) return loaded;
  try {
    loaded = {
      Schema: platform.requireModule("effect/Schema") as typeof EffectSchema,
      JSONSchema: platform.requireModule("effect/JSONSchema") as typeof EffectJsonSchema,
    };
  } catch (cause) {
    throw new TypeError("an Effect Schema entry type needs the `effect` package installed beside @mountkit/entries (npm install effect)", {
      cause,
    });
  }
  return loaded;
}
