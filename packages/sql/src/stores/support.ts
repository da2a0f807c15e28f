// SupportStore on SQL. Every write is one transaction whose first statement is the conditional update of
// the conversation row (`last_seq = expectedSeq`): it locks the row on PostgreSQL, so concurrent writers
// serialise there and the loser sees a conflict; SQLite's BEGIN IMMEDIATE serialises them anyway.
import type {
  AppendMessageResult,
  ConversationPatch,
  ConversationRecord,
  EventInput,
  EventRecord,
  ListConversationsQuery,
  MessageRecord,
  SupportStore,
  WriteResult,
} from "@mountkit/support";
import { METADATA_MARK } from "@mountkit/support";
import { type Kysely, sql, type Transaction } from "kysely";
import { sqlJobStore } from "../core/jobs.js";
import type { SqlDatabase } from "../db.js";
import { isUniqueViolation, Rollback } from "./errors.js";

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

interface ConversationRow {
  id: string;
  product_slug: string;
  customer_id: string;
  subject: string;
  status: string;
  labels: string;
  assignee: string | null;
  first_message_id: string;
  created_at: string;
  updated_at: string;
  last_seq: number;
  pruned_through: number;
  deleted_at: string | null;
}

interface MessageRow {
  id: string;
  conversation_id: string;
  body: string | null;
  author: string;
  is_customer: number;
  client_message_id: string | null;
  created_at: string;
  updated_at: string;
  seq: number;
}

interface EventRow {
  conversation_id: string;
  seq: number;
  type: string;
  data: string | null;
  created_at: string;
}

interface DeliveryRow {
  source: string;
  delivery_id: string;
  received_at: string;
}

interface SupportDb {
  support_conversations: ConversationRow;
  support_messages: MessageRow;
  support_events: EventRow;
  support_deliveries: DeliveryRow;
}

type Db = Kysely<SupportDb>;

function toConversation(r: ConversationRow): ConversationRecord {
  return {
    id: r.id,
    productSlug: r.product_slug,
    customerId: r.customer_id,
    subject: r.subject,
    status: r.status as ConversationRecord["status"],
    labels: JSON.parse(r.labels),
    assignee: r.assignee,
    firstMessageId: r.first_message_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    lastSeq: Number(r.last_seq),
    deletedAt: r.deleted_at,
  };
}

function toMessage(r: MessageRow): MessageRecord {
  return {
    id: r.id,
    conversationId: r.conversation_id,
    body: r.body,
    author: r.author,
    isCustomer: Number(r.is_customer) === 1,
    clientMessageId: r.client_message_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    seq: Number(r.seq),
  };
}

function toEvent(r: EventRow): EventRecord {
  return {
    conversationId: r.conversation_id,
    seq: Number(r.seq),
    type: r.type,
    data: r.data === null ? null : JSON.parse(r.data),
    createdAt: r.created_at,
  };
}

function messageRow(m: Omit<MessageRecord, "seq">, conversationId: string, seq: number): MessageRow {
  return {
    id: m.id,
    conversation_id: conversationId,
    body: m.body,
    author: m.author,
    is_customer: m.isCustomer ? 1 : 0,
    client_message_id: m.clientMessageId,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
    seq,
  };
}

function patchColumns(patch: ConversationPatch): Partial<ConversationRow> {
  const out: Partial<ConversationRow> = {};
  if (patch.subject !== undefined) out.subject = patch.subject;
  if (patch.status !== undefined) out.status = patch.status;
  if (patch.labels !== undefined) out.labels = JSON.stringify(patch.labels);
  if (patch.assignee !== undefined) out.assignee = patch.assignee;
  if (patch.updatedAt !== undefined) out.updated_at = patch.updatedAt;
  return out;
}

/** The seqs `events` take after `lastSeq`. */
const seqsAfter = (lastSeq: number, n: number) => Array.from({ length: n }, (_, i) => lastSeq + 1 + i);

async function insertEvents(trx: Transaction<SupportDb>, conversationId: string, seqs: number[], events: EventInput[]) {
  if (!events.length) return;
  await trx
    .insertInto("support_events")
    .values(
      events.map((e, i) => ({
        conversation_id: conversationId,
        seq: seqs[i]!,
        type: e.type,
        data: e.data === undefined || e.data === null ? null : JSON.stringify(e.data),
        created_at: e.createdAt,
      })),
    )
    .execute();
}

/**
 * Claims the next `n` seqs of a live conversation whose lastSeq is `expectedSeq`, applying `extra`
 * columns in the same statement; null with the reason when the conversation is gone or moved on.
 */
async function advance(
  trx: Transaction<SupportDb>,
  conversationId: string,
  expectedSeq: number,
  n: number,
  extra: Partial<ConversationRow>,
): Promise<{ row: ConversationRow } | { ok: false; reason: "not_found" | "conflict" }> {
  const row = await trx
    .updateTable("support_conversations")
    .set((eb) => ({ ...extra, last_seq: eb("last_seq", "+", n) }))
    .where("id", "=", conversationId)
    .where("deleted_at", "is", null)
    .where("last_seq", "=", expectedSeq)
    .returningAll()
    .executeTakeFirst();
  if (row) return { row };
  const current = await trx.selectFrom("support_conversations").select("deleted_at").where("id", "=", conversationId).executeTakeFirst();
  return { ok: false, reason: !current || current.deleted_at !== null ? "not_found" : "conflict" };
}

export function sqlSupportStore(database: SqlDatabase): SupportStore {
  const db = database.kysely as Db;
  const pg = database.dialect === "postgres";

  async function findByClientId(conversationId: string, clientMessageId: string, q: Kysely<SupportDb> = db): Promise<MessageRecord | null> {
    const row = await q
      .selectFrom("support_messages")
      .selectAll()
      .where("conversation_id", "=", conversationId)
      .where("client_message_id", "=", clientMessageId)
      .executeTakeFirst();
    return row ? toMessage(row) : null;
  }

  /** Runs a conditional write; a `Rollback` thrown inside undoes it and becomes the answer. */
  async function write<T>(fn: (trx: Transaction<SupportDb>) => Promise<T>): Promise<T> {
    try {
      return await db.transaction().execute(fn);
    } catch (e) {
      if (e instanceof Rollback) return e.value as T;
      throw e;
    }
  }

  return {
    async createConversation({ conversation, message, events }) {
      const seqs = seqsAfter(0, events.length);
      const row: ConversationRow = {
        id: conversation.id,
        product_slug: conversation.productSlug,
        customer_id: conversation.customerId,
        subject: conversation.subject,
        status: conversation.status,
        labels: JSON.stringify(conversation.labels),
        assignee: conversation.assignee,
        first_message_id: conversation.firstMessageId,
        created_at: conversation.createdAt,
        updated_at: conversation.updatedAt,
        last_seq: events.length,
        pruned_through: 0,
        deleted_at: null,
      };
      const m = messageRow(message, conversation.id, seqs[0] ?? 0);
      await db.transaction().execute(async (trx) => {
        await trx.insertInto("support_conversations").values(row).execute();
        await trx.insertInto("support_messages").values(m).execute();
        await insertEvents(trx, conversation.id, seqs, events);
      });
      return { conversation: toConversation(row), message: toMessage(m), seqs };
    },

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

    async appendMessage({ conversationId, expectedSeq, message, patch, events }): Promise<AppendMessageResult> {
      const clientId = message.clientMessageId;
      try {
        return await write(async (trx): Promise<AppendMessageResult> => {
          if (clientId !== null) {
            const dup = await findByClientId(conversationId, clientId, trx);
            if (dup) return { ok: false, reason: "duplicate", message: dup };
          }
          const r = await advance(trx, conversationId, expectedSeq, events.length, patchColumns(patch));
          if ("ok" in r) return r;
          const seqs = seqsAfter(expectedSeq, events.length);
          const m = messageRow(message, conversationId, seqs[0] ?? Number(r.row.last_seq));
          await trx.insertInto("support_messages").values(m).execute();
          await insertEvents(trx, conversationId, seqs, events);
          return { ok: true, conversation: toConversation(r.row), message: toMessage(m), seqs };
        });
      } catch (e) {
        // a concurrent retry with the same clientMessageId committed first (only reachable with no events,
        // where the seq condition does not separate the two writers): answer with its message
        if (clientId !== null && isUniqueViolation(e)) {
          const dup = await findByClientId(conversationId, clientId);
          if (dup) return { ok: false, reason: "duplicate", message: dup };
        }
        throw e;
      }
    },

    async updateConversation({ conversationId, expectedSeq, patch, events }): Promise<WriteResult> {
      return write(async (trx): Promise<WriteResult> => {
        const r = await advance(trx, conversationId, expectedSeq, events.length, patchColumns(patch));
        if ("ok" in r) return r;
        const seqs = seqsAfter(expectedSeq, events.length);
        await insertEvents(trx, conversationId, seqs, events);
        return { ok: true, conversation: toConversation(r.row), seqs };
      });
    },

    async updateMessage({ conversationId, expectedSeq, messageId, body, updatedAt, patch, events }) {
      return write(async (trx): Promise<WriteResult & { message?: MessageRecord }> => {
        const r = await advance(trx, conversationId, expectedSeq, events.length, patchColumns(patch));
        if ("ok" in r) return r;
        const m = await trx
          .updateTable("support_messages")
          .set({ body, updated_at: updatedAt })
          .where("conversation_id", "=", conversationId)
          .where("id", "=", messageId)
          .returningAll()
          .executeTakeFirst();
        if (!m) throw new Rollback({ ok: false, reason: "not_found" });
        const seqs = seqsAfter(expectedSeq, events.length);
        await insertEvents(trx, conversationId, seqs, events);
        return { ok: true, conversation: toConversation(r.row), message: toMessage(m), seqs };
      });
    },

    async deleteMessage({ conversationId, expectedSeq, messageId, patch, events }) {
      return write(async (trx): Promise<WriteResult> => {
        const r = await advance(trx, conversationId, expectedSeq, events.length, patchColumns(patch));
        if ("ok" in r) return r;
        const gone = await trx
          .deleteFrom("support_messages")
          .where("conversation_id", "=", conversationId)
          .where("id", "=", messageId)
          .executeTakeFirst();
        if (Number(gone.numDeletedRows) === 0) throw new Rollback({ ok: false, reason: "not_found" });
        const seqs = seqsAfter(expectedSeq, events.length);
        await insertEvents(trx, conversationId, seqs, events);
        return { ok: true, conversation: toConversation(r.row), seqs };
      });
    },

    async deleteConversation({ conversationId, expectedSeq, deletedAt, events }) {
      return write(async (trx): Promise<WriteResult> => {
        const r = await advance(trx, conversationId, expectedSeq, events.length, { deleted_at: deletedAt });
        if ("ok" in r) return r;
        await trx.deleteFrom("support_messages").where("conversation_id", "=", conversationId).execute();
        const seqs = seqsAfter(expectedSeq, events.length);
        await insertEvents(trx, conversationId, seqs, events);
        return { ok: true, conversation: toConversation(r.row), seqs };
      });
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

    async pruneEvents({ before }) {
      return db.transaction().execute(async (trx) => {
        // record how far each log is cut before cutting it, so readers behind it learn they missed events
        await trx
          .updateTable("support_conversations")
          .set({
            pruned_through: sql`(select max(e.seq) from support_events e where e.conversation_id = support_conversations.id and e.created_at < ${before})`,
          })
          .where(
            sql<boolean>`exists (select 1 from support_events e where e.conversation_id = support_conversations.id and e.created_at < ${before})`,
          )
          .execute();
        const r = await trx.deleteFrom("support_events").where("created_at", "<", before).executeTakeFirst();
        return Number(r.numDeletedRows);
      });
    },

    // the backends' durable work (Slack events) shares the `jobs` table of the core migrations
    jobs: sqlJobStore(database),

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
