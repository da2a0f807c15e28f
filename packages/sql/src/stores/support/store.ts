// SupportStore on SQL: conversations, their messages and event logs, and the webhook deliveries claimed
// once. Reads and the assembly are here; every write is one conditional transaction (writes.ts).
import type { ListConversationsQuery, SupportStore } from "@mountkit/support";
import { METADATA_MARK } from "@mountkit/support";
import { sql } from "kysely";
import type { SqlDatabase } from "../../db.js";
import { sqlJobStore } from "../kit/jobs.js";
import { sqlWebhookStore } from "../kit/webhooks.js";
import { sqlCannedReplyStore, sqlNoteStore } from "./agent.js";
import { sqlRatingStore } from "./ratings.js";
import { type Db, toConversation, toEvent, toMessage } from "./rows.js";
import { conversationWrites } from "./writes.js";

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";

/**
 * `ListConversationsQuery.q`: subject, customer id or a message's text (its body before the metadata block)
 * contains the text, ASCII letters folded. SQLite's LIKE folds ASCII already; PostgreSQL's LIKE folds
 * nothing and ILIKE folds beyond ASCII, so both sides go through `translate` to compare the same way.
 */
function searchCondition(q: string, pg: boolean) {
  const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  if (pg) {
    const fold = (x: ReturnType<typeof sql>) => sql`translate(${x}, ${UPPER}, ${LOWER})`;
    const p = fold(sql`${pattern}::text`);
    const text = sql`split_part(m.body, ${METADATA_MARK}::text, 1)`;
    return sql<boolean>`(${fold(sql.ref("subject"))} like ${p} escape '\\' or ${fold(sql.ref("customer_id"))} like ${p} escape '\\' or exists (select 1 from support_messages m where m.conversation_id = support_conversations.id and m.body is not null and ${fold(text)} like ${p} escape '\\'))`;
  }
  const text = sql`case when instr(m.body, ${METADATA_MARK}) > 0 then substr(m.body, 1, instr(m.body, ${METADATA_MARK}) - 1) else m.body end`;
  return sql<boolean>`(subject like ${pattern} escape '\\' or customer_id like ${pattern} escape '\\' or exists (select 1 from support_messages m where m.conversation_id = support_conversations.id and m.body is not null and ${text} like ${pattern} escape '\\'))`;
}

export function sqlSupportStore(database: SqlDatabase): SupportStore {
  const db = database.kysely as Db;
  const pg = database.dialect === "postgres";

  return {
    ...conversationWrites(db),

    async getConversation({ id }) {
      const row = await db.selectFrom("support_conversations").selectAll().where("id", "=", id).executeTakeFirst();
      return row ? toConversation(row) : null;
    },

    async listConversations(q: ListConversationsQuery) {
      let query = db
        .selectFrom("support_conversations")
        .selectAll()
        .where("product_slug", "=", q.productSlug)
        .where("deleted_at", "is", null);
      if (q.customerId !== undefined) query = query.where("customer_id", "=", q.customerId);
      if (q.statuses) {
        if (!q.statuses.length) return [];
        query = query.where("status", "in", q.statuses);
      }
      if (q.assignee !== undefined) query = query.where("assignee", q.assignee === null ? "is" : "=", q.assignee);
      if (q.label !== undefined) {
        const label = q.label;
        query = pg
          ? query.where(sql<boolean>`(labels::jsonb) @> jsonb_build_array(${label}::text)`)
          : query.where(sql<boolean>`exists (select 1 from json_each(support_conversations.labels) where value = ${label})`);
      }
      if (q.q !== undefined) query = query.where(searchCondition(q.q, pg));
      if (q.after) {
        const { updatedAt, id } = q.after;
        query = query.where((eb) =>
          eb.or([eb("updated_at", "<", updatedAt), eb.and([eb("updated_at", "=", updatedAt), eb("id", "<", id)])]),
        );
      }
      query = query.orderBy("updated_at", "desc").orderBy("id", "desc");
      if (q.limit !== undefined) query = query.limit(q.limit);
      return (await query.execute()).map(toConversation);
    },

    async listMessages({ conversationId }) {
      const rows = await db
        .selectFrom("support_messages")
        .selectAll()
        .where("conversation_id", "=", conversationId)
        .orderBy("seq")
        .orderBy("id")
        .execute();
      return rows.map(toMessage);
    },

    async getMessage({ conversationId, id }) {
      const row = await db
        .selectFrom("support_messages")
        .selectAll()
        .where("conversation_id", "=", conversationId)
        .where("id", "=", id)
        .executeTakeFirst();
      return row ? toMessage(row) : null;
    },

    async readEvents({ conversationId, afterSeq, limit }) {
      const conv = await db
        .selectFrom("support_conversations")
        .select("pruned_through")
        .where("id", "=", conversationId)
        .executeTakeFirst();
      if (!conv) return { events: [], prunedThrough: 0 };
      const rows = await db
        .selectFrom("support_events")
        .selectAll()
        .where("conversation_id", "=", conversationId)
        .where("seq", ">", afterSeq)
        .orderBy("seq")
        .limit(limit)
        .execute();
      return { events: rows.map(toEvent), prunedThrough: Number(conv.pruned_through) };
    },

    // the outbound events and the backends' durable work (Slack events) share the `jobs` table of the core migrations
    jobs: sqlJobStore(database),
    webhooks: sqlWebhookStore(database),
    notes: sqlNoteStore(db),
    cannedReplies: sqlCannedReplyStore(db),
    ratings: sqlRatingStore(db, pg),

    ...deliveryClaims(db),
  };
}

/** Webhook deliveries: a delivery id is claimed once per source, released when its handling failed. */
function deliveryClaims(db: Db): Pick<SupportStore, "claimDelivery" | "releaseDelivery" | "pruneDeliveries"> {
  return {
    async claimDelivery({ source, deliveryId, receivedAt }) {
      const r = await db
        .insertInto("support_deliveries")
        .values({ source, delivery_id: deliveryId, received_at: receivedAt })
        .onConflict((oc) => oc.columns(["source", "delivery_id"]).doNothing())
        .returning("delivery_id")
        .executeTakeFirst();
      // a conflicting insert returns no row
      return r !== undefined;
    },

    async releaseDelivery({ source, deliveryId }) {
      await db.deleteFrom("support_deliveries").where("source", "=", source).where("delivery_id", "=", deliveryId).execute();
    },

    async pruneDeliveries({ before }) {
      const r = await db.deleteFrom("support_deliveries").where("received_at", "<", before).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
