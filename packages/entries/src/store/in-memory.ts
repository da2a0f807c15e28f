// In-memory EntriesStore: the reference implementation the conformance suite pins down.
import { inMemoryJobStore } from "@mountkit/core/jobs";
import { inMemoryWebhookStore } from "@mountkit/core/webhooks";
import type { EntriesStore, Entry, EntryRevision, InventoryInput, InventorySummary, Operation, RevisionNote } from "./types.js";

const key = (typeId: string, id: string) => `${typeId}\u0000${id}`;

/** Newest first; ties broken by id descending, so the order is total and stable. */
export function compareEntries(a: { dateCreated: number; id: string }, b: { dateCreated: number; id: string }): number {
  if (a.dateCreated !== b.dateCreated) return b.dateCreated - a.dateCreated;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** Lower-cases ASCII letters only: the free-text match every store implements (SQLite's `lower()` does the same). */
export const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));

export function inMemoryEntriesStore(): EntriesStore {
  const entries = new Map<string, Entry>();
  const inventories = new Map<string, InventoryInput>();
  /** Each entry's revisions, oldest first (revision n at index n - 1). */
  const revisions = new Map<string, EntryRevision[]>();
  const jobs = inMemoryJobStore();
  // Copies in and out, like a database would: callers never share state with the store.
  const copy = <T>(v: T): T => structuredClone(v);
  const keep = (e: Entry, note: RevisionNote) => {
    const k = key(e.typeId, e.id);
    const list = revisions.get(k) ?? [];
    list.push(revisionOf(e, list.length + 1, note));
    revisions.set(k, list);
  };

  return {
    jobs,
    webhooks: inMemoryWebhookStore(),
    async create({ entry, inventory, enqueue }) {
      const k = key(entry.typeId, entry.id);
      if (entries.has(k)) throw new Error(`entry ${entry.id} already exists`);
      entries.set(k, copy(entry));
      keep(entry, { authorId: entry.ownerId });
      if (inventory) inventories.set(k, copy(inventory));
      for (const j of enqueue ?? []) await jobs.enqueue(j);
    },
    async get({ typeId, id }) {
      const e = entries.get(key(typeId, id));
      return e ? copy(e) : null;
    },
    async list({ typeId, limit, after, tag, ownerId, q }) {
      const needle = q === undefined ? undefined : asciiLower(q);
      const out: Entry[] = [];
      for (const e of entries.values()) {
        if (e.typeId !== typeId) continue;
        if (ownerId !== undefined && e.ownerId !== ownerId) continue;
        if (tag !== undefined && !e.tags.includes(tag) && !e.derivedTags.includes(tag)) continue;
        if (needle !== undefined && !asciiLower(e.name).includes(needle) && !asciiLower(e.description).includes(needle)) continue;
        if (after && compareEntries(after, e) >= 0) continue;
        out.push(e);
      }
      out.sort(compareEntries);
      return out.slice(0, Math.max(0, limit)).map(copy);
    },
    async update({ typeId, id, ownerId, changes, inventory, expectModified, note, enqueue }) {
      const k = key(typeId, id);
      const e = entries.get(k);
      if (!e || e.ownerId !== ownerId || (expectModified !== undefined && e.dateModified !== expectModified)) return null;
      const next: Entry = { ...e, ...copy(changes) };
      entries.set(k, next);
      keep(next, note ?? { authorId: ownerId });
      if (inventory === null) inventories.delete(k);
      else if (inventory) inventories.set(k, copy(inventory));
      for (const j of enqueue?.(copy(next)) ?? []) await jobs.enqueue(j);
      return copy(next);
    },
    async delete({ typeId, id, ownerId, expectModified, enqueue }) {
      const k = key(typeId, id);
      const e = entries.get(k);
      if (!e || e.ownerId !== ownerId || (expectModified !== undefined && e.dateModified !== expectModified)) return false;
      entries.delete(k);
      inventories.delete(k);
      revisions.delete(k);
      for (const j of enqueue ?? []) await jobs.enqueue(j);
      return true;
    },
    async listRevisions({ typeId, entryId, limit, before }) {
      const list = revisions.get(key(typeId, entryId)) ?? [];
      const upTo = before === undefined ? list.length : Math.min(list.length, Math.max(0, before - 1));
      return list
        .slice(Math.max(0, upTo - Math.max(0, limit)), upTo)
        .reverse()
        .map(copy);
    },
    async getRevision({ typeId, entryId, revision }) {
      const r = revisions.get(key(typeId, entryId))?.[revision - 1];
      return r ? copy(r) : null;
    },
    async getInventory({ typeId, entryId }) {
      const inv = inventories.get(key(typeId, entryId));
      if (!inv) return null;
      const { operations: _ops, ...summary } = inv;
      return copy(summary) as InventorySummary;
    },
    async listOperations({ typeId, entryId, offset, limit }) {
      const inv = inventories.get(key(typeId, entryId));
      if (!inv) return [];
      return inv.operations.slice(Math.max(0, offset), Math.max(0, offset) + Math.max(0, limit)).map((o) => copy(o) as Operation);
    },
  };
}

/** The revision `revision` of entry `e` as it is now, with `note`'s author and provenance. */
export function revisionOf(e: Entry, revision: number, note: RevisionNote): EntryRevision {
  return {
    typeId: e.typeId,
    entryId: e.id,
    revision,
    authorId: note.authorId,
    date: e.dateModified,
    name: e.name,
    description: e.description,
    customData: structuredClone(e.customData),
    tags: [...e.tags],
    derivedTags: [...e.derivedTags],
    restoredFrom: note.restoredFrom ?? null,
  };
}

/** @deprecated Renamed `inMemoryEntriesStore`: "memory" in a name means the memory service. This alias goes in the next major version. */
export const memoryEntriesStore = inMemoryEntriesStore;
