// The entry operations behind the routes and `service.api`: submit, list, get, update, delete, inventory.
import type { Clock, IdGenerator } from "@mountkit/core";
import { entriesError, type Issue } from "../errors.js";
import type { EntriesStore, Entry, EntryRevision, InventoryInput, Operation } from "../store/types.js";
import { dropNullOptionals } from "../types/nulls.js";
import type { EntryType, PrepareContext, TypeRegistry } from "../types/registry.js";
import { entryCursor, offsetCursor, revisionCursor } from "./cursor.js";

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
  /**
   * Changes an entry (owner only). `expectModified`: apply only while the entry still has this `dateModified` (the
   * version its ETag names), else 412; of two changes expecting the same version, one applies.
   */
  update<K extends keyof M & string>(input: {
    typeId: K;
    id: string;
    ownerId: string;
    patch: EntryPatch<M[K]>;
    expectModified?: number;
    signal?: AbortSignal;
    requestId?: string;
  }): Promise<Entry<M[K]>>;
  remove<K extends keyof M & string>(input: { typeId: K; id: string; ownerId: string; expectModified?: number }): Promise<void>;
  /** The entry's revisions, newest first. */
  revisions<K extends keyof M & string>(input: {
    typeId: K;
    id: string;
    cursor?: string;
    limit?: number;
  }): Promise<Page<EntryRevision<M[K]>>>;
  revision<K extends keyof M & string>(input: { typeId: K; id: string; revision: number }): Promise<EntryRevision<M[K]>>;
  /**
   * Makes a revision's name, description, customData and own tags the entry's again, as a change of its own (a
   * new revision; a catalogued type catalogues the restored customData anew). Owner only; `expectModified` as in
   * `update`.
   */
  restore<K extends keyof M & string>(input: {
    typeId: K;
    id: string;
    revision: number;
    ownerId: string;
    expectModified?: number;
    signal?: AbortSignal;
    requestId?: string;
  }): Promise<Entry<M[K]>>;
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

  /** Why a conditional write applied nothing: the entry is gone (404) or moved past the expected version (412). */
  async function notApplied(typeId: string, id: string, expectModified: number | undefined): Promise<never> {
    const now = await store.get({ typeId, id });
    if (now && expectModified !== undefined) throw entriesError("precondition_failed");
    throw entriesError("not_found", { message: `no ${typeId} entry ${id}` });
  }

  /** A change by the owner: PATCH, or a restore (`restoredFrom`); recorded as the entry's next revision. */
  async function change(input: {
    typeId: string;
    id: string;
    ownerId: string;
    patch: EntryPatch;
    expectModified?: number;
    restoredFrom?: number;
    signal?: AbortSignal;
    requestId?: string;
  }): Promise<Entry> {
    const { typeId, id, ownerId, expectModified, signal, requestId } = input;
    let { patch } = input;
    const type = typeOf(typeId);
    const current = await existing(typeId, id);
    if (current.ownerId !== ownerId) throw entriesError("forbidden");
    if (expectModified !== undefined && current.dateModified !== expectModified) throw entriesError("precondition_failed");
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
      expectModified,
      note: { authorId: ownerId, derivedTags: typeTags, restoredFrom: input.restoredFrom ?? null },
    });
    return updated ?? notApplied(typeId, id, expectModified);
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
      await store.create({ entry: saved, inventory: prep.inventory, derivedTags: prep.tags ?? [] });
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

    update: (input) => change(input),

    async remove({ typeId, id, ownerId, expectModified }) {
      typeOf(typeId);
      const current = await existing(typeId, id);
      if (current.ownerId !== ownerId) throw entriesError("forbidden");
      if (expectModified !== undefined && current.dateModified !== expectModified) throw entriesError("precondition_failed");
      if (!(await store.delete({ typeId, id, ownerId, expectModified }))) await notApplied(typeId, id, expectModified);
    },

    async revisions({ typeId, id, cursor, limit = 20 }) {
      typeOf(typeId);
      const before = cursor ? revisionCursor.decode(cursor) : undefined;
      await existing(typeId, id);
      const rows = await store.listRevisions({ typeId, entryId: id, limit: limit + 1, before });
      const items = rows.slice(0, limit);
      const last = items[items.length - 1];
      return { items, next: rows.length > limit && last ? revisionCursor.encode(last.revision) : null };
    },

    async revision({ typeId, id, revision }) {
      typeOf(typeId);
      const r = await store.getRevision({ typeId, entryId: id, revision });
      if (!r) throw entriesError("not_found", { message: `no revision ${revision} of ${typeId} entry ${id}` });
      return r;
    },

    async restore({ typeId, id, revision, ownerId, expectModified, signal, requestId }) {
      typeOf(typeId);
      const r = await store.getRevision({ typeId, entryId: id, revision });
      if (!r) throw entriesError("not_found", { message: `no revision ${revision} of ${typeId} entry ${id}` });
      const own = r.tags.filter((t) => !r.derivedTags.includes(t));
      const patch = { name: r.name, description: r.description, customData: r.customData, tags: own };
      return change({ typeId, id, ownerId, patch, expectModified, restoredFrom: revision, signal, requestId });
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
