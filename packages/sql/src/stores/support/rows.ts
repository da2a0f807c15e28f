// Rows of the SQL support store: the tables' row shapes and their mapping to and from the store's records.
import type { ConversationPatch, ConversationRecord, EventRecord, MessageRecord } from "@mountkit/support";
import type { Kysely } from "kysely";

export interface ConversationRow {
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
  /** The creation's dedup key (`SupportStore.createConversation`); null without one. */
  dedup_key?: string | null;
  /** The customer's rating (migration 4): all three null until rated. */
  rating_score?: number | null;
  rating_comment?: string | null;
  rated_at?: string | null;
}

export interface MessageRow {
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

export interface EventRow {
  conversation_id: string;
  seq: number;
  type: string;
  data: string | null;
  created_at: string;
}

export interface DeliveryRow {
  source: string;
  delivery_id: string;
  received_at: string;
}

/** A private note (migration 5). */
export interface NoteRow {
  id: string;
  conversation_id: string;
  body: string;
  author: string;
  created_at: string;
  updated_at: string;
}

/** A canned reply (migration 5); `(product_slug, shortcut)` is unique. */
export interface CannedReplyRow {
  id: string;
  product_slug: string;
  shortcut: string;
  title: string;
  body: string;
  created_at: string;
  updated_at: string;
}

export interface SupportDb {
  support_conversations: ConversationRow;
  support_messages: MessageRow;
  support_events: EventRow;
  support_deliveries: DeliveryRow;
  support_notes: NoteRow;
  support_canned_replies: CannedReplyRow;
}

export type Db = Kysely<SupportDb>;

export function toConversation(r: ConversationRow): ConversationRecord {
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
    ...(r.rating_score == null
      ? {}
      : { rating: { score: Number(r.rating_score), comment: r.rating_comment ?? null, ratedAt: r.rated_at! } }),
  };
}

export function toMessage(r: MessageRow): MessageRecord {
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

export function toEvent(r: EventRow): EventRecord {
  return {
    conversationId: r.conversation_id,
    seq: Number(r.seq),
    type: r.type,
    data: r.data === null ? null : JSON.parse(r.data),
    createdAt: r.created_at,
  };
}

export function messageRow(m: Omit<MessageRecord, "seq">, conversationId: string, seq: number): MessageRow {
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

export function patchColumns(patch: ConversationPatch): Partial<ConversationRow> {
  const out: Partial<ConversationRow> = {};
  if (patch.subject !== undefined) out.subject = patch.subject;
  if (patch.status !== undefined) out.status = patch.status;
  if (patch.labels !== undefined) out.labels = JSON.stringify(patch.labels);
  if (patch.assignee !== undefined) out.assignee = patch.assignee;
  if (patch.updatedAt !== undefined) out.updated_at = patch.updatedAt;
  if (patch.rating !== undefined) {
    out.rating_score = patch.rating.score;
    out.rating_comment = patch.rating.comment;
    out.rated_at = patch.rating.ratedAt;
  }
  return out;
}
