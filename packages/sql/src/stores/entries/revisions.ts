// Entry revisions on SQL: one row per kept state of an entry (its submission, then each change), written in the
// transaction of the change it records, numbered from 1 per entry, deleted with the entry.
import type { Entry, EntryRevision, RevisionNote } from "@mountkit/entries";
import type { Kysely } from "kysely";

export interface RevisionRow {
  type_id: string;
  entry_id: string;
  revision: number;
  author_id: string;
  date: number;
  name: string;
  description: string;
  custom_data: string;
  tags: string;
  derived_tags: string;
  restored_from: number | null;
}

// the entries store's database or one of its transactions (the tables this file reads are its own)
type Db = Kysely<{ entries_revisions: RevisionRow }>;
const revisions = (db: Kysely<any>) => db as Db;

function toRevision(r: RevisionRow): EntryRevision {
  return {
    typeId: r.type_id,
    entryId: r.entry_id,
    revision: Number(r.revision),
    authorId: r.author_id,
    date: Number(r.date),
    name: r.name,
    description: r.description,
    customData: JSON.parse(r.custom_data),
    tags: JSON.parse(r.tags),
    derivedTags: JSON.parse(r.derived_tags),
    restoredFrom: r.restored_from === null ? null : Number(r.restored_from),
  };
}

/**
 * Records `e` as it is now as its next revision. Runs after the change's write in the same transaction: that
 * write holds the entry's row (PostgreSQL) or the database (SQLite), so no other change numbers the same revision.
 */
export async function keepRevision(trx: Kysely<any>, e: Entry, note: RevisionNote): Promise<void> {
  const db = revisions(trx);
  const last = await db
    .selectFrom("entries_revisions")
    .select((eb) => eb.fn.max("revision").as("n"))
    .where("type_id", "=", e.typeId)
    .where("entry_id", "=", e.id)
    .executeTakeFirst();
  await db
    .insertInto("entries_revisions")
    .values({
      type_id: e.typeId,
      entry_id: e.id,
      revision: Number(last?.n ?? 0) + 1,
      author_id: note.authorId,
      date: e.dateModified,
      name: e.name,
      description: e.description,
      custom_data: JSON.stringify(e.customData),
      tags: JSON.stringify(e.tags),
      derived_tags: JSON.stringify(e.derivedTags),
      restored_from: note.restoredFrom ?? null,
    })
    .execute();
}

export async function dropRevisions(trx: Kysely<any>, typeId: string, entryId: string): Promise<void> {
  await revisions(trx).deleteFrom("entries_revisions").where("type_id", "=", typeId).where("entry_id", "=", entryId).execute();
}

/** EntriesStore.listRevisions: newest first, below `before` when given. */
export async function listRevisions(
  db: Kysely<any>,
  { typeId, entryId, limit, before }: { typeId: string; entryId: string; limit: number; before?: number },
): Promise<EntryRevision[]> {
  if (limit <= 0) return [];
  let q = revisions(db).selectFrom("entries_revisions").selectAll().where("type_id", "=", typeId).where("entry_id", "=", entryId);
  if (before !== undefined) q = q.where("revision", "<", before);
  return (await q.orderBy("revision", "desc").limit(limit).execute()).map(toRevision);
}

export async function getRevision(
  db: Kysely<any>,
  { typeId, entryId, revision }: { typeId: string; entryId: string; revision: number },
): Promise<EntryRevision | null> {
  if (!Number.isSafeInteger(revision)) return null;
  const row = await revisions(db)
    .selectFrom("entries_revisions")
    .selectAll()
    .where("type_id", "=", typeId)
    .where("entry_id", "=", entryId)
    .where("revision", "=", revision)
    .executeTakeFirst();
  return row ? toRevision(row) : null;
}
