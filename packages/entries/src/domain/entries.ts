// The entry operations behind the routes and `service.api`: submit, list, get, update, delete, inventory, and the
// revision operations of revisions.ts.
import { entriesError } from "../errors.js";
import type { Entry } from "../store/types.js";
import { dropNullOptionals } from "../types/nulls.js";
import { entryChanges } from "./change.js";
import { entryCursor, offsetCursor } from "./cursor.js";
import { type DomainDeps, dedupe, domainParts } from "./parts.js";
import { revisionOps } from "./revisions.js";
import type { EntriesDomain } from "./types.js";

export type { AnyEntryTypes, EntriesDomain, EntryInput, EntryPatch, InventoryPage, Page } from "./types.js";

export function entriesDomain(deps: DomainDeps): EntriesDomain {
  const { store, clock, ids, events } = deps;
  const parts = domainParts(deps);
  const { typeOf, checkCustomData, context, existing } = parts;
  const { change, notApplied, writable } = entryChanges(parts);

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
        tags: dedupe(entry.tags ?? []),
        derivedTags: dedupe(prep.tags ?? []),
        dateCreated: now,
        dateModified: now,
      };
      const event = await events?.prepare("entry.created", ownerId);
      await store.create({
        entry: saved,
        inventory: prep.inventory,
        ...(event ? { enqueue: event(saved) } : {}),
      });
      if (event) events?.committed();
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
      const current = await writable(typeId, id, ownerId, expectModified);
      const event = await events?.prepare("entry.deleted", ownerId);
      if (!(await store.delete({ typeId, id, ownerId, expectModified, ...(event ? { enqueue: event(current) } : {}) })))
        await notApplied(typeId, id, expectModified);
      else if (event) events?.committed();
    },

    ...revisionOps(parts, change),

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
