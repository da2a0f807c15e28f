// Writes of the SQL support store. Every write is one transaction whose first statement is the conditional
// update of the conversation row (`last_seq = expectedSeq`, `advance`): it locks the row on PostgreSQL, so
// concurrent writers serialise there and the loser sees a conflict; SQLite's BEGIN IMMEDIATE serialises
// them anyway. The events a write appends take the seqs it claimed.
import type {
  AppendMessageResult,
  ConversationRecord,
  Enqueue,
  EventInput,
  MessageRecord,
  SupportStore,
  WriteResult,
} from "@mountkit/support";
import { type Kysely, sql, type Transaction } from "kysely";
import { isUniqueViolation, Rollback } from "../kit/errors.js";
import { insertJob } from "../kit/jobs.js";
import { type ConversationRow, type Db, messageRow, patchColumns, type SupportDb, toConversation, toMessage } from "./rows.js";

type ConversationWrites = Pick<
  SupportStore,
  | "createConversation"
  | "findCreatedConversation"
  | "appendMessage"
  | "updateConversation"
  | "updateMessage"
  | "deleteMessage"
  | "deleteConversation"
  | "pruneEvents"
>;

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

/** The jobs of a write (its outbound events), inserted in the write's transaction. */
async function insertJobs(trx: Transaction<SupportDb>, enqueue: Enqueue | undefined, written: Parameters<Enqueue>[0]) {
  for (const j of enqueue?.(written) ?? []) await insertJob(trx, j);
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

async function findByClientId(q: Kysely<SupportDb>, conversationId: string, clientMessageId: string): Promise<MessageRecord | null> {
  const row = await q
    .selectFrom("support_messages")
    .selectAll()
    .where("conversation_id", "=", conversationId)
    .where("client_message_id", "=", clientMessageId)
    .executeTakeFirst();
  return row ? toMessage(row) : null;
}

/** Runs a conditional write; a `Rollback` thrown inside undoes it and becomes the answer. */
async function write<T>(db: Db, fn: (trx: Transaction<SupportDb>) => Promise<T>): Promise<T> {
  try {
    return await db.transaction().execute(fn);
  } catch (e) {
    if (e instanceof Rollback) return e.value as T;
    throw e;
  }
}

/** The live conversation of a product and customer created with `dedupKey`. */
async function findCreated(q: Kysely<SupportDb>, productSlug: string, customerId: string, dedupKey: string) {
  const row = await q
    .selectFrom("support_conversations")
    .selectAll()
    .where("product_slug", "=", productSlug)
    .where("customer_id", "=", customerId)
    .where("dedup_key", "=", dedupKey)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
  return row ? toConversation(row) : null;
}

/**
 * SupportStore.createConversation: the conversation, its first message and its events in one transaction;
 * with a dedup key, the live conversation created with it answers instead. Concurrent retries meet at the
 * partial unique index: the loser's insert fails (on PostgreSQL after the winner commits) and reads the winner.
 */
async function createConversation(
  db: Db,
  input: Parameters<SupportStore["createConversation"]>[0],
): ReturnType<SupportStore["createConversation"]> {
  const { conversation, dedupKey } = input;
  if (dedupKey == null) return insertConversation(db, input);
  const earlier = async () => {
    const c = await findCreated(db, conversation.productSlug, conversation.customerId, dedupKey);
    return c && { duplicate: true as const, conversation: c, seqs: [] as [] };
  };
  const found = await earlier();
  if (found) return found;
  try {
    return await insertConversation(db, input);
  } catch (e) {
    const raced = isUniqueViolation(e) ? await earlier() : null;
    if (raced) return raced;
    throw e;
  }
}

async function insertConversation(
  db: Db,
  { conversation, message, events, dedupKey, enqueue }: Parameters<SupportStore["createConversation"]>[0],
): Promise<{ conversation: ConversationRecord; message: MessageRecord; seqs: number[] }> {
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
    dedup_key: dedupKey ?? null,
  };
  const m = messageRow(message, conversation.id, seqs[0] ?? 0);
  const written = { conversation: toConversation(row), message: toMessage(m) };
  await db.transaction().execute(async (trx) => {
    await trx.insertInto("support_conversations").values(row).execute();
    await trx.insertInto("support_messages").values(m).execute();
    await insertEvents(trx, conversation.id, seqs, events);
    await insertJobs(trx, enqueue, written);
  });
  return { ...written, seqs };
}

/** SupportStore.appendMessage: a message with a known clientMessageId answers `duplicate` with the first. */
async function appendMessage(
  db: Db,
  { conversationId, expectedSeq, message, patch, events, enqueue }: Parameters<SupportStore["appendMessage"]>[0],
): Promise<AppendMessageResult> {
  const clientId = message.clientMessageId;
  try {
    return await write(db, async (trx): Promise<AppendMessageResult> => {
      if (clientId !== null) {
        const dup = await findByClientId(trx, conversationId, clientId);
        if (dup) return { ok: false, reason: "duplicate", message: dup };
      }
      const r = await advance(trx, conversationId, expectedSeq, events.length, patchColumns(patch));
      if ("ok" in r) return r;
      const seqs = seqsAfter(expectedSeq, events.length);
      const m = messageRow(message, conversationId, seqs[0] ?? Number(r.row.last_seq));
      await trx.insertInto("support_messages").values(m).execute();
      await insertEvents(trx, conversationId, seqs, events);
      const written = { conversation: toConversation(r.row), message: toMessage(m) };
      await insertJobs(trx, enqueue, written);
      return { ok: true, ...written, seqs };
    });
  } catch (e) {
    // a concurrent retry with the same clientMessageId committed first (only reachable with no events,
    // where the seq condition does not separate the two writers): answer with its message
    if (clientId !== null && isUniqueViolation(e)) {
      const dup = await findByClientId(db, conversationId, clientId);
      if (dup) return { ok: false, reason: "duplicate", message: dup };
    }
    throw e;
  }
}

export function conversationWrites(db: Db): ConversationWrites {
  return {
    async createConversation(input) {
      return createConversation(db, input);
    },

    async findCreatedConversation({ productSlug, customerId, dedupKey }) {
      return findCreated(db, productSlug, customerId, dedupKey);
    },

    async appendMessage(input) {
      return appendMessage(db, input);
    },

    async updateConversation({ conversationId, expectedSeq, patch, events, enqueue }): Promise<WriteResult> {
      return write(db, async (trx): Promise<WriteResult> => {
        const r = await advance(trx, conversationId, expectedSeq, events.length, patchColumns(patch));
        if ("ok" in r) return r;
        const seqs = seqsAfter(expectedSeq, events.length);
        await insertEvents(trx, conversationId, seqs, events);
        const conversation = toConversation(r.row);
        await insertJobs(trx, enqueue, { conversation });
        return { ok: true, conversation, seqs };
      });
    },

    async updateMessage({ conversationId, expectedSeq, messageId, body, updatedAt, patch, events }) {
      return write(db, async (trx): Promise<WriteResult & { message?: MessageRecord }> => {
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
      return write(db, async (trx): Promise<WriteResult> => {
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
      return write(db, async (trx): Promise<WriteResult> => {
        const r = await advance(trx, conversationId, expectedSeq, events.length, { deleted_at: deletedAt });
        if ("ok" in r) return r;
        await trx.deleteFrom("support_messages").where("conversation_id", "=", conversationId).execute();
        await trx.deleteFrom("support_notes").where("conversation_id", "=", conversationId).execute();
        const seqs = seqsAfter(expectedSeq, events.length);
        await insertEvents(trx, conversationId, seqs, events);
        return { ok: true, conversation: toConversation(r.row), seqs };
      });
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
  };
}
