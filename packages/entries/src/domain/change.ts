// An owner's change of an entry (a PATCH or a restore): checked, catalogued again when customData changes, written
// with a compare-and-set when the request named a version, and recorded as the entry's next revision.
import { entriesError } from "../errors.js";
import type { Entry, InventoryInput } from "../store/types.js";
import { dropNullOptionals } from "../types/nulls.js";
import { type DomainParts, dedupe } from "./parts.js";
import type { EntryPatch } from "./types.js";

export interface ChangeInput {
  typeId: string;
  id: string;
  ownerId: string;
  patch: EntryPatch;
  expectModified?: number;
  restoredFrom?: number;
  signal?: AbortSignal;
  requestId?: string;
}

export function entryChanges(parts: DomainParts) {
  const { store, clock, typeOf, checkCustomData, context, existing } = parts;

  /** Why a conditional write applied nothing: the entry is gone (404) or moved past the expected version (412). */
  async function notApplied(typeId: string, id: string, expectModified: number | undefined): Promise<never> {
    const now = await store.get({ typeId, id });
    if (now && expectModified !== undefined) throw entriesError("precondition_failed");
    throw entriesError("not_found", { message: `no ${typeId} entry ${id}` });
  }

  /** The entry a write by `ownerId` may touch: it exists (404), is theirs (403), and is at `expectModified` when given (412). */
  async function writable(typeId: string, id: string, ownerId: string, expectModified: number | undefined): Promise<Entry> {
    const current = await existing(typeId, id);
    if (current.ownerId !== ownerId) throw entriesError("forbidden");
    if (expectModified !== undefined && current.dateModified !== expectModified) throw entriesError("precondition_failed");
    return current;
  }

  /** A change by the owner: PATCH, or a restore (`restoredFrom`); recorded as the entry's next revision. */
  async function change(input: ChangeInput): Promise<Entry> {
    const { typeId, id, ownerId, expectModified, signal, requestId } = input;
    let { patch } = input;
    const type = typeOf(typeId);
    const current = await writable(typeId, id, ownerId, expectModified);
    let inventory: InventoryInput | undefined;
    let typeTags: string[] = [];
    if (patch.customData !== undefined)
      patch = { ...patch, customData: dropNullOptionals(type.schema.jsonSchema, patch.customData) as Record<string, unknown> };
    if (patch.customData !== undefined) {
      const prep = await checkCustomData(type, patch.customData, context(signal, requestId));
      inventory = prep.inventory;
      typeTags = prep.tags ?? [];
    } else typeTags = current.derivedTags;
    // The tags a catalogue derives are recomputed, so a new spec version replaces the old `v...` tag.
    const own = patch.tags ?? current.tags;
    const event = await parts.events?.prepare("entry.updated", ownerId);
    const updated = await store.update({
      typeId,
      id,
      ownerId,
      changes: {
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        ...(patch.customData !== undefined ? { customData: patch.customData } : {}),
        tags: dedupe(own),
        derivedTags: dedupe(typeTags),
        dateModified: Math.max(clock.now(), current.dateModified + 1),
      },
      ...(patch.customData !== undefined ? { inventory: inventory ?? null } : {}),
      expectModified,
      note: { authorId: ownerId, restoredFrom: input.restoredFrom ?? null },
      ...(event ? { enqueue: event } : {}),
    });
    if (updated && event) parts.events?.committed();
    return updated ?? notApplied(typeId, id, expectModified);
  }

  return { change, notApplied, writable };
}
