// The entry operations' types: inputs, pages, and the operations themselves typed per entry type.
import type { Entry, EntryRevision, Operation } from "../store/types.js";

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
