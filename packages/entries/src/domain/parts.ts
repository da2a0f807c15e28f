// What the entry operations share: the store and clock, the type lookup, customData checks and the hook's context.
import type { Clock, IdGenerator } from "@mountkit/core";
import { entriesError, type Issue } from "../errors.js";
import type { EntriesStore, Entry } from "../store/types.js";
import type { EntryType, PrepareContext, TypeRegistry } from "../types/registry.js";
import type { EntryEvents } from "./events.js";

export interface DomainDeps {
  store: EntriesStore;
  types: TypeRegistry;
  clock: Clock;
  ids: IdGenerator;
  /** Outbound events of changes; none when absent. */
  events?: EntryEvents;
}

export const dedupe = (tags: readonly string[]) => [...new Set(tags)];

export type DomainParts = ReturnType<typeof domainParts>;

export function domainParts(deps: DomainDeps) {
  const { store, types } = deps;
  return {
    ...deps,
    /** The registered type, else 404. */
    typeOf(typeId: string): EntryType {
      const t = types.get(typeId);
      if (!t) throw entriesError("unknown_type", { message: `unknown type ${typeId}` });
      return t;
    },
    /** Validates customData (every failing path, 422), then runs the type's hook. */
    async checkCustomData(type: EntryType, customData: unknown, ctx: PrepareContext) {
      const r = await type.schema.validate(customData);
      if (!r.ok) {
        const details: Issue[] = r.issues.map((i) => ({ path: i.path ? `customData.${i.path}` : "customData", message: i.message }));
        throw entriesError("validation_failed", { details });
      }
      return type.prepare ? await type.prepare(customData, ctx) : {};
    },
    context: (signal?: AbortSignal, requestId?: string): PrepareContext => ({
      signal: signal ?? new AbortController().signal,
      requestId: requestId ?? "",
    }),
    /** The entry, else 404. */
    async existing(typeId: string, id: string): Promise<Entry> {
      const e = await store.get({ typeId, id });
      if (!e) throw entriesError("not_found", { message: `no ${typeId} entry ${id}` });
      return e;
    },
  };
}
