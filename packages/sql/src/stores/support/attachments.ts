// The SQL AttachmentStore and BlobStore (`@mountkit/support`'s attachments/types.ts, migrations 6 and 7): attachment
// records in `support_attachments`, the customers' daily byte usage in `support_attachment_usage` (charged under a
// per-customer lock), their bytes in `support_blobs`, so every process of a PostgreSQL deployment serves every
// upload. A host that keeps the bytes in an object store uses `sqlAttachmentStore` with its own BlobStore.
import type { AttachmentRecord, AttachmentStore, BlobStore } from "@mountkit/support";
import { type Kysely, sql } from "kysely";
import type { SqlDatabase } from "../../db-types.js";

interface AttachmentRow {
  id: string;
  product_slug: string;
  customer_id: string | null;
  uploaded_by: string;
  conversation_id: string | null;
  message_id: string | null;
  name: string;
  content_type: string;
  size: number;
  created_at: string;
}

interface BlobRow {
  key: string;
  data: Uint8Array;
}

interface UsageRow {
  id: string;
  product_slug: string;
  customer_id: string;
  bytes: number;
  at: number;
}

interface AttachmentDb {
  support_attachments: AttachmentRow;
  support_attachment_usage: UsageRow;
  support_blobs: BlobRow;
}

const toRecord = (r: AttachmentRow): AttachmentRecord => ({
  id: r.id,
  productSlug: r.product_slug,
  customerId: r.customer_id,
  uploadedBy: r.uploaded_by === "agent" ? "agent" : "customer",
  conversationId: r.conversation_id,
  messageId: r.message_id,
  name: r.name,
  contentType: r.content_type,
  size: Number(r.size),
  createdAt: r.created_at,
});

/** Arbitrary constant naming the usage locks among the database's advisory locks (the customer is the second key). */
const USAGE_LOCK_KEY = 0x6d6b_6175;

export function sqlAttachmentStore(database: SqlDatabase): AttachmentStore {
  const db = database.kysely as Kysely<AttachmentDb>;
  const pg = database.dialect === "postgres";
  return {
    async insert(r) {
      await db
        .insertInto("support_attachments")
        .values({
          id: r.id,
          product_slug: r.productSlug,
          customer_id: r.customerId,
          uploaded_by: r.uploadedBy,
          conversation_id: r.conversationId,
          message_id: r.messageId,
          name: r.name,
          content_type: r.contentType,
          size: r.size,
          created_at: r.createdAt,
        })
        .execute();
    },
    async getMany(ids) {
      if (!ids.length) return [];
      const rows = await db
        .selectFrom("support_attachments")
        .selectAll()
        .where("id", "in", [...ids])
        .execute();
      return rows.map(toRecord);
    },
    async settle({ ids, conversationId, messageId, customerId }) {
      if (!ids.length) return [];
      // one conditional update: only pending rows change, so two messages never take the same upload
      const rows = await db
        .updateTable("support_attachments")
        .set({ conversation_id: conversationId, message_id: messageId, customer_id: customerId })
        .where("id", "in", [...ids])
        .where("conversation_id", "is", null)
        .returning("id")
        .execute();
      return rows.map((r) => r.id);
    },
    async remove(ids) {
      if (!ids.length) return [];
      const rows = await db
        .deleteFrom("support_attachments")
        .where("id", "in", [...ids])
        .returning("id")
        .execute();
      return rows.map((r) => r.id);
    },
    async listPending({ before, limit }) {
      const rows = await db
        .selectFrom("support_attachments")
        .selectAll()
        .where("conversation_id", "is", null)
        .where("created_at", "<", before)
        .orderBy("created_at")
        .orderBy("id")
        .limit(limit)
        .execute();
      return rows.map(toRecord);
    },
    async chargeUsage({ id, productSlug, customerId, bytes, at, since, limit }) {
      // the sum and the insert under one lock per customer (PostgreSQL's advisory lock, SQLite's write lock taken by
      // BEGIN IMMEDIATE): two processes charging at once see each other's row, so they never both pass the limit
      return db.transaction().execute(async (trx) => {
        if (pg) await sql`select pg_advisory_xact_lock(${USAGE_LOCK_KEY}, hashtext(${`${productSlug}\n${customerId}`}))`.execute(trx);
        const row = await trx
          .selectFrom("support_attachment_usage")
          .select((eb) => [eb.fn.sum<number | string | null>("bytes").as("used"), eb.fn.min<number | string | null>("at").as("oldest")])
          .where("product_slug", "=", productSlug)
          .where("customer_id", "=", customerId)
          .where("at", ">", since)
          .executeTakeFirst();
        const used = Number(row?.used ?? 0);
        const oldestAt = row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest);
        const allowed = used + bytes <= limit;
        if (allowed)
          await trx
            .insertInto("support_attachment_usage")
            .values({ id, product_slug: productSlug, customer_id: customerId, bytes, at })
            .execute();
        return { allowed, used, oldestAt };
      });
    },
    async refundUsage(id) {
      await db.deleteFrom("support_attachment_usage").where("id", "=", id).execute();
    },
    async pruneUsage(before) {
      const r = await db.deleteFrom("support_attachment_usage").where("at", "<", before).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}

/** Attachment bytes in the database: for deployments of several processes without an object store. */
export function sqlBlobStore(database: SqlDatabase): BlobStore {
  const db = database.kysely as Kysely<AttachmentDb>;
  const pg = database.dialect === "postgres";
  return {
    async put(key, data) {
      await db
        .insertInto("support_blobs")
        .values({ key, data })
        .onConflict((oc) => oc.column("key").doUpdateSet({ data }))
        .execute();
    },
    async get(key) {
      const row = await db.selectFrom("support_blobs").select("data").where("key", "=", key).executeTakeFirst();
      if (!row) return null;
      // drivers answer Buffer (node-postgres, better-sqlite3) or Uint8Array (node:sqlite, a worker's copy)
      const d = row.data as Uint8Array;
      return pg || d instanceof Uint8Array ? new Uint8Array(d.buffer, d.byteOffset, d.byteLength) : new Uint8Array(d);
    },
    async delete(key) {
      await db.deleteFrom("support_blobs").where("key", "=", key).execute();
    },
  };
}
