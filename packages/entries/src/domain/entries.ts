// The entry operations behind the routes and `service.api`: submit, list, get, update, delete, inventory.
import type { Clock, IdGenerator } from "@mountkit/core";
import { entriesError, type Issue } from "../errors.js";
import type { EntriesStore, Entry, InventoryInput, Operation } from "../store/types.js";
import { dropNullOptionals } from "../types/nulls.js";
import type { EntryType, PrepareContext, TypeRegistry } from "../types/registry.js";
import { entryCursor, offsetCursor } from "./cursor.js";

export interface EntryInput<C = Record<string, unknown>> {
  name: string;
  description: string;
  customData: C;
  tags?: string[];
}

export type EntryPatch<C = Record<string, unknown>> = Partial<EntryInput<C>>;

/** typeId -> customData type. The default admits any type id with untyped customData. */
export type AnyEntryTypes = Record<string, Record<string, unknown>>;

export interface Page<T> {
  items: T[];
  next: string | null;
}

export interface InventoryPage {
  title: string;
  specVersion: string;
  version: string;
  endpoints: number;
  paths: number;
  tags: string[];
  operations: Operation[];
  next: string | null;
}

/**
 * The entry operations. `M` maps each registered type id to its customData type: an id outside `M` does not
 * compile, and customData is typed per type (see `EntryTypesOf`).
 */
export interface EntriesDomain<M extends object = AnyEntryTypes> {
  submit<K extends keyof M & string>(input: {
    typeId: K;
    ownerId: string;
    entry: EntryInput<M[K]>;
    signal?: AbortSignal;
    requestId?: string;
  }): Promise<Entry<M[K]>>;
  list<K extends keyof M & string>(input: {
    typeId: K;
    cursor?: string;
    limit?: number;
    tag?: string;
    ownerId?: string;
    q?: string;
  }): Promise<Page<Entry<M[K]>>>;
  get<K extends keyof M & string>(input: { typeId: K; id: string }): Promise<Entry<M[K]>>;
  update<K extends keyof M & string>(input: {
    typeId: K;
    id: string;
    ownerId: string;
    patch: EntryPatch<M[K]>;
    signal?: AbortSignal;
    requestId?: string;
  }): Promise<Entry<M[K]>>;
  remove<K extends keyof M & string>(input: { typeId: K; id: string; ownerId: string }): Promise<void>;
  inventory<K extends keyof M & string>(input: { typeId: K; id: string; cursor?: string; limit?: number }): Promise<InventoryPage>;
}

const dedupe = (tags: readonly string[]) => [...new Set(tags)];

export function entriesDomain(deps: { store: EntriesStore; types: TypeRegistry; clock: Clock; ids: IdGenerator }): EntriesDomain {
  const { store, types, clock, ids } = deps;

  const typeOf = (typeId: string): EntryType => {
    const t = types.get(typeId);
    if (!t) throw entriesError("unknown_type", { message: `unknown type ${typeId}` });
    return t;
  };

  /** Validates customData (every failing path, 422), then runs the type's hook. */
  async function checkCustomData(type: EntryType, customData: unknown, ctx: PrepareContext) {
    const r = await type.schema.validate(customData);
    if (!r.ok) {
      const details: Issue[] = r.issues.map((i) => ({ path: i.path ? `customData.${i.path}` : "customData", message: i.message }));
      throw entriesError("validation_failed", { details });
    }
    return type.prepare ? await type.prepare(customData, ctx) : {};
  }

  const context = (signal?: AbortSignal, requestId?: string): PrepareContext => ({
    signal: signal ?? new AbortController().signal,
    requestId: requestId ?? "",
  });

  async function existing(typeId: string, id: string): Promise<Entry> {
    const e = await store.get({ typeId, id });
    if (!e) throw entriesError("not_found", { message: `no ${typeId} entry ${id}` });
    return e;
  }

  return {
    async submit({ typeId, ownerId, entry, signal, requestId }) {
      const type = typeOf(typeId);
      const customData = dropNullOptionals(type.schema.jsonSchema, entry.customData) as Record<string, unknown>;
      const prep = await checkCustomData(type, customData, context(signal, requestId));
      const now = clock.now();
      const saved: Entry = {
        id: ids("ent"),
        typeId,
        ownerId,
        name: entry.name,
        description: entry.description,
        customData,
        tags: dedupe([...(entry.tags ?? []), ...(prep.tags ?? [])]),
        dateCreated: now,
        dateModified: now,
      };
      await store.create({ entry: saved, inventory: prep.inventory });
      return saved;
    },

    async list({ typeId, cursor, limit = 20, tag, ownerId, q }) {
      typeOf(typeId);
      const after = cursor ? entryCursor.decode(cursor) : undefined;
      const rows = await store.list({ typeId, limit: limit + 1, after, tag, ownerId, q });
      const items = rows.slice(0, limit);
      const last = items[items.length - 1];
      return { items, next: rows.length > limit && last ? entryCursor.encode(last) : null };
    },

    async get({ typeId, id }) {
      typeOf(typeId);
      return existing(typeId, id);
    },

    async update({ typeId, id, ownerId, patch, signal, requestId }) {
      const type = typeOf(typeId);
      const current = await existing(typeId, id);
      if (current.ownerId !== ownerId) throw entriesError("forbidden");
      let inventory: InventoryInput | undefined;
      let typeTags: string[] = [];
      const previous = await store.getInventory({ typeId, entryId: id });
      if (patch.customData !== undefined)
        patch = { ...patch, customData: dropNullOptionals(type.schema.jsonSchema, patch.customData) as Record<string, unknown> };
      if (patch.customData !== undefined) {
        const prep = await checkCustomData(type, patch.customData, context(signal, requestId));
        inventory = prep.inventory;
        typeTags = prep.tags ?? [];
      } else typeTags = previous?.tags ?? [];
      // The tags a catalogue added are recomputed, so a new spec version replaces the old `v...` tag.
      const own = patch.tags ?? current.tags.filter((t) => !previous?.tags.includes(t));
      const updated = await store.update({
        typeId,
        id,
        ownerId,
        changes: {
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.description !== undefined ? { description: patch.description } : {}),
          ...(patch.customData !== undefined ? { customData: patch.customData } : {}),
          tags: dedupe([...own, ...typeTags]),
          dateModified: Math.max(clock.now(), current.dateModified + 1),
        },
        ...(patch.customData !== undefined ? { inventory: inventory ?? null } : {}),
      });
      if (!updated) throw entriesError("not_found", { message: `no ${typeId} entry ${id}` });
      return updated;
    },

    async remove({ typeId, id, ownerId }) {
      typeOf(typeId);
      const current = await existing(typeId, id);
      if (current.ownerId !== ownerId) throw entriesError("forbidden");
      if (!(await store.delete({ typeId, id, ownerId }))) throw entriesError("not_found", { message: `no ${typeId} entry ${id}` });
    },

    async inventory({ typeId, id, cursor, limit = 100 }) {
      typeOf(typeId);
      // a bad cursor is a 400 whether or not the entry exists
      const offset = cursor ? offsetCursor.decode(cursor) : 0;
      const summary = await store.getInventory({ typeId, entryId: id });
      if (!summary) throw entriesError("not_found", { message: `no inventory for ${typeId} entry ${id}` });
      const operations = await store.listOperations({ typeId, entryId: id, offset, limit });
      const end = offset + operations.length;
      return { ...summary, operations, next: end < summary.endpoints ? offsetCursor.encode(end) : null };
    },
  };
}
