// An entry's revisions: listed newest first, read one by one, and restored as a change of their own.
import { entriesError } from "../errors.js";
import type { Entry } from "../store/types.js";
import type { ChangeInput } from "./change.js";
import { revisionCursor } from "./cursor.js";
import type { DomainParts } from "./parts.js";
import type { EntriesDomain } from "./types.js";

export function revisionOps(
  parts: DomainParts,
  change: (input: ChangeInput) => Promise<Entry>,
): Pick<EntriesDomain, "revisions" | "revision" | "restore"> {
  const { store, typeOf, existing } = parts;
  /** The revision, else 404 (an unknown type first). */
  async function found(typeId: string, id: string, revision: number) {
    typeOf(typeId);
    const r = await store.getRevision({ typeId, entryId: id, revision });
    if (!r) throw entriesError("not_found", { message: `no revision ${revision} of ${typeId} entry ${id}` });
    return r;
  }
  return {
    async revisions({ typeId, id, cursor, limit = 20 }) {
      typeOf(typeId);
      const before = cursor ? revisionCursor.decode(cursor) : undefined;
      await existing(typeId, id);
      const rows = await store.listRevisions({ typeId, entryId: id, limit: limit + 1, before });
      const items = rows.slice(0, limit);
      const last = items[items.length - 1];
      return { items, next: rows.length > limit && last ? revisionCursor.encode(last.revision) : null };
    },

    revision: ({ typeId, id, revision }) => found(typeId, id, revision),

    async restore({ typeId, id, revision, ownerId, expectModified, signal, requestId }) {
      const r = await found(typeId, id, revision);
      // revisions kept before derived tags were apart (backfilled, derivedTags []) hold them in `tags`: left as they are
      const patch = {
        name: r.name,
        description: r.description,
        customData: r.customData,
        tags: r.tags.filter((t) => !r.derivedTags.includes(t)),
      };
      return change({ typeId, id, ownerId, patch, expectModified, restoredFrom: revision, signal, requestId });
    },
  };
}
