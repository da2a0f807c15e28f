// The entries store interface. Plain JSON records and explicit ordering/pagination, so SQL stores can implement it.
import type { JobStore, NewJob } from "@mountkit/core/jobs";
import type { WebhookStore } from "@mountkit/core/webhooks";

/** A stored entry; `C` is its type's customData (see `CustomDataOf`), untyped by default. */
export interface Entry<C = Record<string, unknown>> {
  id: string;
  typeId: string;
  /** The `sub` of the token that created it. */
  ownerId: string;
  name: string;
  description: string;
  customData: C;
  /** The tags as the owner submitted them. */
  tags: string[];
  /** The tags the type's catalogue step derived (`api`, `openapi`, `v<version>` for `apis`), kept apart. */
  derivedTags: string[];
  /** Epoch milliseconds. */
  dateCreated: number;
  dateModified: number;
}

/** One (path, method) pair of a catalogued API. */
export interface Operation {
  method: string;
  path: string;
  operationId?: string;
  summary?: string;
}

/** What a catalogued spec yields; `operations` in catalogue order (path, then method). */
export interface InventoryInput {
  /** `openapi` or `swagger` version of the document, e.g. `3.1.0`, `2.0`. */
  specVersion: string;
  title: string;
  /** `info.version` of the API. */
  version: string;
  endpoints: number;
  paths: number;
  tags: string[];
  operations: Operation[];
}

export type InventorySummary = Omit<InventoryInput, "operations">;

/**
 * One kept state of an entry: what it held after its submission (revision 1) or after a change (one more each).
 * A store writes it in the same transaction as the change, and deletes an entry's revisions with the entry.
 */
export interface EntryRevision<C = Record<string, unknown>> {
  typeId: string;
  entryId: string;
  revision: number;
  /** The `sub` of who made the change. */
  authorId: string;
  /** Epoch milliseconds: the entry's `dateModified` after the change. */
  date: number;
  name: string;
  description: string;
  customData: C;
  /** The entry's submitted tags after the change. */
  tags: string[];
  /** The tags the type's catalogue step derived after the change. */
  derivedTags: string[];
  /** The revision this change restored, else null. */
  restoredFrom: number | null;
}

/** What a change records beside the entry's new fields (see `EntryRevision`). */
export interface RevisionNote {
  authorId: string;
  restoredFrom?: number | null;
}

/** Keyset position in the entries order (newest first: `dateCreated` desc, then `id` desc). */
export interface EntryPosition {
  dateCreated: number;
  id: string;
}

export interface EntriesStore {
  /**
   * Saves a new entry, its revision 1 (authored by its owner) and, when given, its inventory, atomically. Entry
   * ids are unique per store. `enqueue`: jobs (the change's events) queued on `jobs` in the same transaction.
   */
  create(input: { entry: Entry; inventory?: InventoryInput; enqueue?: readonly NewJob[] }): Promise<void>;
  get(input: { typeId: string; id: string }): Promise<Entry | null>;
  /**
   * Entries of one type, newest first (`dateCreated` desc, `id` desc), strictly after `after` when given,
   * at most `limit`. `tag` keeps entries carrying that tag (submitted or derived); `ownerId` keeps that owner's entries; `q` keeps
   * entries whose `name` or `description` contains it as a substring, ignoring the case of ASCII letters only
   * (A-Z = a-z; every other character matches exactly, so every store agrees whatever its locale).
   */
  list(input: { typeId: string; limit: number; after?: EntryPosition; tag?: string; ownerId?: string; q?: string }): Promise<Entry[]>;
  /**
   * Applies `changes` when the entry exists, belongs to `ownerId` and, when `expectModified` is given, still has
   * that `dateModified` (compare-and-set: of two changes expecting the same state, one applies); records the
   * next revision with `note` in the same transaction. Returns the updated entry, or null when nothing applied.
   * `inventory`: an object replaces the stored inventory, `null` removes it, absent leaves it. `enqueue`: the jobs
   * for the updated entry (its events), queued on `jobs` in the same transaction.
   */
  update(input: {
    typeId: string;
    id: string;
    ownerId: string;
    changes: Partial<Pick<Entry, "name" | "description" | "customData" | "tags" | "derivedTags">> & { dateModified: number };
    inventory?: InventoryInput | null;
    expectModified?: number;
    note?: RevisionNote;
    enqueue?: (updated: Entry) => readonly NewJob[];
  }): Promise<Entry | null>;
  /**
   * Deletes the entry, its inventory and its revisions when it exists, belongs to `ownerId` and (when given) still
   * has the `dateModified` `expectModified`; false otherwise. `enqueue`: jobs queued on `jobs` in the same transaction.
   */
  delete(input: { typeId: string; id: string; ownerId: string; expectModified?: number; enqueue?: readonly NewJob[] }): Promise<boolean>;
  /** An entry's revisions, newest first, those numbered below `before` when given, at most `limit`. */
  listRevisions(input: { typeId: string; entryId: string; limit: number; before?: number }): Promise<EntryRevision[]>;
  getRevision(input: { typeId: string; entryId: string; revision: number }): Promise<EntryRevision | null>;
  getInventory(input: { typeId: string; entryId: string }): Promise<InventorySummary | null>;
  /** Operations in stored order from position `offset` (0-based), at most `limit`. */
  listOperations(input: { typeId: string; entryId: string; offset: number; limit: number }): Promise<Operation[]>;
  /** The durable queue the store writes `enqueue` jobs to (the same database on SQL). */
  readonly jobs: JobStore;
  /** Webhook subscriptions and deliveries, beside the entries. */
  readonly webhooks: WebhookStore;
  close?(): Promise<void>;
}
