// EntriesStore on SQL: entries keyed by (type, id), their revisions (revisions.ts), an inventory summary per
// catalogued entry and its operations one row each (so `listOperations` pages in the database, not in memory).

import type { EntriesStore, Entry, EntryPosition, InventoryInput, InventorySummary, Operation } from "@mountkit/entries";
import { type Kysely, sql, type Transaction } from "kysely";
import type { SqlDatabase } from "../../db.js";
import { insertJob, sqlJobStore } from "../kit/jobs.js";
import { sqlWebhookStore } from "../kit/webhooks.js";
import { dropRevisions, getRevision, keepRevision, listRevisions } from "./revisions.js";

interface EntryRow {
  type_id: string;
  id: string;
  owner_id: string;
  name: string;
  description: string;
  custom_data: string;
  tags: string;
  derived_tags: string;
  date_created: number;
  date_modified: number;
}

interface InventoryRow {
  type_id: string;
  entry_id: string;
  spec_version: string;
  title: string;
  version: string;
  endpoints: number;
  paths: number;
  tags: string;
}

interface OperationRow {
  type_id: string;
  entry_id: string;
  position: number;
  method: string;
  path: string;
  operation_id: string | null;
  summary: string | null;
}

interface EntriesDb {
  entries: EntryRow;
  entries_inventories: InventoryRow;
  entries_operations: OperationRow;
}

const ASCII_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ASCII_LOWER = "abcdefghijklmnopqrstuvwxyz";
// the same fold as the in-memory store's; kept here because @mountkit/entries is an optional peer (types only)
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));

/** Rows per INSERT: 7 parameters each stays far below both engines' parameter limits. */
const BATCH = 500;

function toEntry(r: EntryRow): Entry {
  return {
    id: r.id,
    typeId: r.type_id,
    ownerId: r.owner_id,
    name: r.name,
    description: r.description,
    customData: JSON.parse(r.custom_data),
    tags: JSON.parse(r.tags),
    derivedTags: JSON.parse(r.derived_tags),
    dateCreated: Number(r.date_created),
    dateModified: Number(r.date_modified),
  };
}

function toOperation(r: OperationRow): Operation {
  const op: Operation = { method: r.method, path: r.path };
  if (r.operation_id !== null) op.operationId = r.operation_id;
  if (r.summary !== null) op.summary = r.summary;
  return op;
}

function toInventorySummary(r: InventoryRow): InventorySummary {
  return {
    specVersion: r.spec_version,
    title: r.title,
    version: r.version,
    endpoints: Number(r.endpoints),
    paths: Number(r.paths),
    tags: JSON.parse(r.tags),
  };
}

async function putInventory(trx: Transaction<EntriesDb>, typeId: string, entryId: string, inv: InventoryInput) {
  await trx
    .insertInto("entries_inventories")
    .values({
      type_id: typeId,
      entry_id: entryId,
      spec_version: inv.specVersion,
      title: inv.title,
      version: inv.version,
      endpoints: inv.endpoints,
      paths: inv.paths,
      tags: JSON.stringify(inv.tags),
    })
    .execute();
  for (let i = 0; i < inv.operations.length; i += BATCH) {
    await trx
      .insertInto("entries_operations")
      .values(
        inv.operations.slice(i, i + BATCH).map((o, k) => ({
          type_id: typeId,
          entry_id: entryId,
          position: i + k,
          method: o.method,
          path: o.path,
          operation_id: o.operationId ?? null,
          summary: o.summary ?? null,
        })),
      )
      .execute();
  }
}

async function dropInventory(trx: Transaction<EntriesDb>, typeId: string, entryId: string) {
  await trx.deleteFrom("entries_operations").where("type_id", "=", typeId).where("entry_id", "=", entryId).execute();
  await trx.deleteFrom("entries_inventories").where("type_id", "=", typeId).where("entry_id", "=", entryId).execute();
}

/** EntriesStore.list: newest first, filtered by owner, tag and text, after a position. */
async function listEntries(
  db: Kysely<EntriesDb>,
  pg: boolean,
  { typeId, limit, after, tag, ownerId, q: text }: Parameters<EntriesStore["list"]>[0],
): Promise<Entry[]> {
  if (limit <= 0) return [];
  let q = db.selectFrom("entries").selectAll().where("type_id", "=", typeId);
  if (ownerId !== undefined) q = q.where("owner_id", "=", ownerId);
  if (tag !== undefined) {
    q = pg
      ? q.where(
          sql<boolean>`((tags::jsonb) @> jsonb_build_array(${tag}::text) or (derived_tags::jsonb) @> jsonb_build_array(${tag}::text))`,
        )
      : q.where(
          sql<boolean>`(exists (select 1 from json_each(entries.tags) where value = ${tag}) or exists (select 1 from json_each(entries.derived_tags) where value = ${tag}))`,
        );
  }
  if (text !== undefined) {
    // a substring test (no LIKE, so % and _ are plain characters) on text lower-cased for A-Z only:
    // SQLite's lower() does exactly that; PostgreSQL's follows the locale, so translate() spells it out
    const needle = asciiLower(text);
    const fold = (column: "name" | "description") =>
      pg ? sql`translate(${sql.ref(column)}, ${ASCII_UPPER}, ${ASCII_LOWER})` : sql`lower(${sql.ref(column)})`;
    const find = pg ? "strpos" : "instr";
    q = q.where(
      sql<boolean>`(${sql.raw(find)}(${fold("name")}, ${needle}) > 0 or ${sql.raw(find)}(${fold("description")}, ${needle}) > 0)`,
    );
  }
  if (after) {
    const a: EntryPosition = after;
    q = q.where((eb) =>
      eb.or([eb("date_created", "<", a.dateCreated), eb.and([eb("date_created", "=", a.dateCreated), eb("id", "<", a.id)])]),
    );
  }
  const rows = await q.orderBy("date_created", "desc").orderBy("id", "desc").limit(limit).execute();
  return rows.map(toEntry);
}

export function sqlEntriesStore(database: SqlDatabase): EntriesStore {
  const db = database.kysely as Kysely<EntriesDb>;
  const pg = database.dialect === "postgres";
  return {
    jobs: sqlJobStore(database),
    webhooks: sqlWebhookStore(database),
    async create({ entry, inventory, enqueue }) {
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto("entries")
          .values({
            type_id: entry.typeId,
            id: entry.id,
            owner_id: entry.ownerId,
            name: entry.name,
            description: entry.description,
            custom_data: JSON.stringify(entry.customData),
            tags: JSON.stringify(entry.tags),
            derived_tags: JSON.stringify(entry.derivedTags),
            date_created: entry.dateCreated,
            date_modified: entry.dateModified,
          })
          .execute();
        await keepRevision(trx, entry, { authorId: entry.ownerId });
        if (inventory) await putInventory(trx, entry.typeId, entry.id, inventory);
        for (const j of enqueue ?? []) await insertJob(trx, j);
      });
    },

    async get({ typeId, id }) {
      const row = await db.selectFrom("entries").selectAll().where("type_id", "=", typeId).where("id", "=", id).executeTakeFirst();
      return row ? toEntry(row) : null;
    },

    async list(query) {
      return listEntries(db, pg, query);
    },

    async update({ typeId, id, ownerId, changes, inventory, expectModified, note, enqueue }) {
      return db.transaction().execute(async (trx) => {
        const set: Partial<EntryRow> = { date_modified: changes.dateModified };
        if (changes.name !== undefined) set.name = changes.name;
        if (changes.description !== undefined) set.description = changes.description;
        if (changes.customData !== undefined) set.custom_data = JSON.stringify(changes.customData);
        if (changes.tags !== undefined) set.tags = JSON.stringify(changes.tags);
        if (changes.derivedTags !== undefined) set.derived_tags = JSON.stringify(changes.derivedTags);
        let q = trx.updateTable("entries").set(set).where("type_id", "=", typeId).where("id", "=", id).where("owner_id", "=", ownerId);
        // compare-and-set: PostgreSQL re-checks the condition on the row it waited for, SQLite writes one at a time
        if (expectModified !== undefined) q = q.where("date_modified", "=", expectModified);
        const row = await q.returningAll().executeTakeFirst();
        if (!row) return null;
        const updated = toEntry(row);
        await keepRevision(trx, updated, note ?? { authorId: ownerId });
        if (inventory !== undefined) {
          await dropInventory(trx, typeId, id);
          if (inventory !== null) await putInventory(trx, typeId, id, inventory);
        }
        for (const j of enqueue?.(updated) ?? []) await insertJob(trx, j);
        return updated;
      });
    },

    async delete({ typeId, id, ownerId, expectModified, enqueue }) {
      return db.transaction().execute(async (trx) => {
        let q = trx.deleteFrom("entries").where("type_id", "=", typeId).where("id", "=", id).where("owner_id", "=", ownerId);
        if (expectModified !== undefined) q = q.where("date_modified", "=", expectModified);
        const r = await q.executeTakeFirst();
        if (Number(r.numDeletedRows) === 0) return false;
        await dropInventory(trx, typeId, id);
        await dropRevisions(trx, typeId, id);
        for (const j of enqueue ?? []) await insertJob(trx, j);
        return true;
      });
    },

    listRevisions: (query) => listRevisions(db, query),
    getRevision: (query) => getRevision(db, query),

    async getInventory({ typeId, entryId }) {
      const r = await db
        .selectFrom("entries_inventories")
        .selectAll()
        .where("type_id", "=", typeId)
        .where("entry_id", "=", entryId)
        .executeTakeFirst();
      return r ? toInventorySummary(r) : null;
    },

    async listOperations({ typeId, entryId, offset, limit }) {
      if (limit <= 0) return [];
      const rows = await db
        .selectFrom("entries_operations")
        .selectAll()
        .where("type_id", "=", typeId)
        .where("entry_id", "=", entryId)
        .where("position", ">=", Math.max(0, offset))
        .orderBy("position")
        .limit(limit)
        .execute();
      return rows.map(toOperation);
    },
  };
}
