// The SQL NoteStore and CannedReplyStore (`@mountkit/support`'s store/agent-types.ts): private notes in their own table,
// apart from messages and events, and canned replies whose `(product_slug, shortcut)` index keeps shortcuts unique.
import type { CannedReplyRecord, CannedReplyStore, CannedReplyWrite, NoteRecord, NoteStore } from "@mountkit/support";
import { isUniqueViolation } from "../kit/errors.js";
import type { CannedReplyRow, Db, NoteRow } from "./rows.js";

const toNote = (r: NoteRow): NoteRecord => ({
  id: r.id,
  conversationId: r.conversation_id,
  body: r.body,
  author: r.author,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toReply = (r: CannedReplyRow): CannedReplyRecord => ({
  id: r.id,
  productSlug: r.product_slug,
  shortcut: r.shortcut,
  title: r.title,
  body: r.body,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export function sqlNoteStore(db: Db): NoteStore {
  return {
    async add(n) {
      await db
        .insertInto("support_notes")
        .values({
          id: n.id,
          conversation_id: n.conversationId,
          body: n.body,
          author: n.author,
          created_at: n.createdAt,
          updated_at: n.updatedAt,
        })
        .execute();
      return { ...n };
    },
    async list({ conversationId }) {
      const rows = await db
        .selectFrom("support_notes")
        .selectAll()
        .where("conversation_id", "=", conversationId)
        .orderBy("created_at")
        .orderBy("id")
        .execute();
      return rows.map(toNote);
    },
    async get({ conversationId, id }) {
      const row = await db
        .selectFrom("support_notes")
        .selectAll()
        .where("conversation_id", "=", conversationId)
        .where("id", "=", id)
        .executeTakeFirst();
      return row ? toNote(row) : null;
    },
    async update({ conversationId, id, body, updatedAt }) {
      const row = await db
        .updateTable("support_notes")
        .set({ body, updated_at: updatedAt })
        .where("conversation_id", "=", conversationId)
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirst();
      return row ? toNote(row) : null;
    },
    async remove({ conversationId, id }) {
      const r = await db.deleteFrom("support_notes").where("conversation_id", "=", conversationId).where("id", "=", id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
  };
}

/** Runs a write that the shortcut index may refuse: a unique violation is `shortcut_taken`. */
async function guarded(run: () => Promise<CannedReplyWrite>): Promise<CannedReplyWrite> {
  try {
    return await run();
  } catch (e) {
    if (isUniqueViolation(e)) return { ok: false, reason: "shortcut_taken" };
    throw e;
  }
}

export function sqlCannedReplyStore(db: Db): CannedReplyStore {
  return {
    async create(r) {
      return guarded(async () => {
        await db
          .insertInto("support_canned_replies")
          .values({
            id: r.id,
            product_slug: r.productSlug,
            shortcut: r.shortcut,
            title: r.title,
            body: r.body,
            created_at: r.createdAt,
            updated_at: r.updatedAt,
          })
          .execute();
        return { ok: true, reply: { ...r } };
      });
    },
    async list({ productSlug }) {
      const rows = await db
        .selectFrom("support_canned_replies")
        .selectAll()
        .where("product_slug", "=", productSlug)
        .orderBy("shortcut")
        .execute();
      return rows.map(toReply);
    },
    async get({ productSlug, id }) {
      const row = await db
        .selectFrom("support_canned_replies")
        .selectAll()
        .where("product_slug", "=", productSlug)
        .where("id", "=", id)
        .executeTakeFirst();
      return row ? toReply(row) : null;
    },
    async update({ productSlug, id, patch, updatedAt }) {
      return guarded(async () => {
        const row = await db
          .updateTable("support_canned_replies")
          .set({
            updated_at: updatedAt,
            ...(patch.shortcut !== undefined ? { shortcut: patch.shortcut } : {}),
            ...(patch.title !== undefined ? { title: patch.title } : {}),
            ...(patch.body !== undefined ? { body: patch.body } : {}),
          })
          .where("product_slug", "=", productSlug)
          .where("id", "=", id)
          .returningAll()
          .executeTakeFirst();
        return row ? { ok: true, reply: toReply(row) } : { ok: false, reason: "not_found" };
      });
    },
    async remove({ productSlug, id }) {
      const r = await db
        .deleteFrom("support_canned_replies")
        .where("product_slug", "=", productSlug)
        .where("id", "=", id)
        .executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
  };
}
