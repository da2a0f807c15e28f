// The service's operations as typed in-process calls: the entry operations (`domain/entries.ts`), the validation
// address and each type's OpenAPI document. Routes call it after their guard; hosts and tests call it without HTTP.
import type { Clock, IdGenerator } from "@mountkit/core";
import type { SafeFetchOptions } from "@mountkit/core/outbound";
import { type DiffApi, diffOps } from "./diff/api.js";
import type { DiffPool } from "./diff/pool-types.js";
import { type AnyEntryTypes, type EntriesDomain, entriesDomain } from "./domain/entries.js";
import type { EntryEvents } from "./domain/events.js";
import { entriesError } from "./errors.js";
import { answerFor } from "./openapi/answer.js";
import type { SpecPool } from "./openapi/pool-types.js";
import { typeDocument } from "./openapi/type-document.js";
import { LIMITS } from "./routes/schemas.js";
import type { EntriesStore } from "./store/types.js";
import type { TypeRegistry } from "./types/registry.js";

/** `M`: typeId -> customData type (`EntryTypesOf<...>`); the default is untyped. */
export interface EntriesApi<M extends object = AnyEntryTypes> extends EntriesDomain<M>, DiffApi {
  /** The validation address, in process. */
  validateOpenApi(body: Uint8Array | string, options?: { baseUrl?: string; signal?: AbortSignal }): ReturnType<typeof answerFor>;
  /** The OpenAPI document of one type (throws a 404 KitError for an unknown type). */
  typeDocument(typeId: string): Record<string, unknown>;
}

export interface EntriesApiDeps {
  store: EntriesStore;
  types: TypeRegistry;
  clock: Clock;
  ids: IdGenerator;
  /** The service's basePath, written into each type's document. */
  basePath: string;
  /** Policy for the documents the validation address fetches (`{ url }` requests, same-origin `$ref`s). */
  fetch: SafeFetchOptions;
  pool: SpecPool;
  /** The spec diff processes (docs/entries.md#spec-diffs). */
  diffs: DiffPool;
  /** Outbound events of entry changes (webhooks). */
  events?: EntryEvents;
}

/** Each type's document, built once per registry version (registering a type clears them). */
function typeDocuments(types: TypeRegistry, basePath: string) {
  const documents = new Map<string, Record<string, unknown>>();
  let documentsVersion = types.version;
  return (typeId: string) => {
    if (documentsVersion !== types.version) {
      documents.clear();
      documentsVersion = types.version;
    }
    const type = types.get(typeId);
    if (!type) throw entriesError("unknown_type", { message: `unknown type ${typeId}` });
    let doc = documents.get(typeId);
    if (!doc) {
      doc = typeDocument(type, { basePath, inventory: type.prepare !== undefined, limits: LIMITS });
      documents.set(typeId, doc);
    }
    return doc;
  };
}

export function createEntriesApi(deps: EntriesApiDeps): EntriesApi {
  const { store, types, clock, ids, fetch, pool, events } = deps;
  return {
    ...entriesDomain({ store, types, clock, ids, ...(events ? { events } : {}) }),
    ...diffOps({ store, types, fetch, pool: deps.diffs }),
    validateOpenApi: (body, options = {}) =>
      answerFor(typeof body === "string" ? new TextEncoder().encode(body) : body, {
        baseUrl: options.baseUrl,
        fetch: options.signal ? { ...fetch, signal: options.signal } : fetch,
        pool,
      }),
    typeDocument: typeDocuments(types, deps.basePath),
  };
}
