// The support store interface: plain JSON records, explicit ordering, atomic operations the domain needs.
// Implemented in memory here (memory.ts) and in SQL elsewhere; every implementation runs `describeSupportStore`.
import type { JobStore, NewJob } from "@mountkit/core/jobs";
import type { WebhookStore } from "@mountkit/core/webhooks";
import type { Status } from "../domain/status.js";
import type { CannedReplyStore, NoteStore } from "./agent-types.js";
import type { RatingStore } from "./rating-types.js";

/** Where a stored body's hidden metadata block starts: search reads a body up to the first one. */
export const METADATA_MARK = "<!-- cs:";

/** Timestamps are ISO-8601 UTC strings as produced by `Date#toISOString` (they sort as text). */
export interface ConversationRecord {
  id: string;
  productSlug: string;
  customerId: string;
  subject: string;
  status: Status;
  /** The agent's labels, without the status label. */
  labels: string[];
  assignee: string | null;
  /** The message shown as `issue.body` in interface A. */
  firstMessageId: string;
  createdAt: string;
  updatedAt: string;
  /** Sequence number of the last event appended to this conversation's log (per-conversation, from 1). */
  lastSeq: number;
  /** Set when deleted: the row stays as a tombstone so the id is never recycled and streams see `issue_deleted`. */
  deletedAt: string | null;
  /** The customer's satisfaction rating of a resolved or closed conversation; absent until rated. */
  rating?: Rating;
}

/** A customer's rating of a conversation: one per conversation, replaced when the customer rates again. */
export interface Rating {
  /** 1 (poor) to 5 (great). */
  score: number;
  comment: string | null;
  ratedAt: string;
}

export interface MessageRecord {
  id: string;
  conversationId: string;
  /** As stored, hidden metadata block included; null is allowed (interface B's schema allows it). */
  body: string | null;
  author: string;
  isCustomer: boolean;
  /** Unique per conversation when not null: the dedup key. */
  clientMessageId: string | null;
  createdAt: string;
  updatedAt: string;
  /** Sequence number of the event that created the message; orders messages in a conversation. */
  seq: number;
}

export interface EventRecord {
  conversationId: string;
  /** Increases by one per event within a conversation. */
  seq: number;
  type: string;
  /** JSON-serialisable; null for events without data. */
  data: unknown;
  createdAt: string;
}

/** An event to append: the store assigns `seq` (lastSeq + 1, + 2, ... in array order) and `conversationId`. */
export interface EventInput {
  type: string;
  data: unknown;
  createdAt: string;
}

export type ConversationPatch = Partial<Pick<ConversationRecord, "subject" | "status" | "labels" | "assignee" | "updatedAt" | "rating">>;

/**
 * Jobs (a change's outbound events) a write queues on `SupportStore.jobs` in its own transaction, made from what it
 * wrote: the conversation as it is after the write and, for a write that adds one, the message. Not called when the
 * write does nothing (a conflict, a missing conversation, a duplicate).
 */
export type Enqueue = (written: { conversation: ConversationRecord; message?: MessageRecord }) => readonly NewJob[];

/** Why a conditional write did nothing: the conversation is missing or deleted, or `expectedSeq` is stale. */
export type WriteFailure = { ok: false; reason: "not_found" | "conflict" };
export type WriteResult = { ok: true; conversation: ConversationRecord; seqs: number[] } | WriteFailure;

export type AppendMessageResult =
  | { ok: true; conversation: ConversationRecord; message: MessageRecord; seqs: number[] }
  /** A message with this (conversationId, clientMessageId) exists: nothing was written. */
  | { ok: false; reason: "duplicate"; message: MessageRecord }
  | WriteFailure;

export type CreateConversationResult =
  | { duplicate?: false; conversation: ConversationRecord; message: MessageRecord; seqs: number[] }
  /** The conversation created earlier with the same dedup key: nothing was written. */
  | { duplicate: true; conversation: ConversationRecord; message?: undefined; seqs: [] };

export interface ListConversationsQuery {
  productSlug: string;
  customerId?: string;
  /** Any of these statuses. */
  statuses?: Status[];
  /** Conversations whose agent labels contain this one. */
  label?: string;
  /** Exact assignee; `null` means unassigned. */
  assignee?: string | null;
  /**
   * Search text: conversations whose subject, customer id or any message's text contains it, ASCII letters
   * compared case-insensitively (`%` and `_` are plain characters). A message's text is its body before the
   * hidden metadata block (`<!-- cs:`), so the block's keys never match.
   */
  q?: string;
  /** Keyset position: rows strictly after it in the order (updatedAt desc, id desc). */
  after?: { updatedAt: string; id: string };
  /** Maximum rows; all when absent. */
  limit?: number;
}

/**
 * Every write that changes a conversation is conditional on `expectedSeq` (the `lastSeq` the caller read)
 * and appends its events in the same atomic step, so the event log and the data never disagree and
 * concurrent writers retry instead of overwriting each other's decisions.
 */
export interface SupportStore {
  /**
   * Inserts a conversation, its first message and its events (`message.seq` = the first event's seq).
   * With a `dedupKey` (the customer's `clientMessageId` of the first message), atomically, also under
   * concurrent calls: when a live conversation of the same product and customer was created with that key,
   * nothing is written and that conversation answers with `duplicate: true` (a retry after a lost answer).
   */
  createConversation(input: {
    conversation: Omit<ConversationRecord, "lastSeq" | "deletedAt">;
    message: Omit<MessageRecord, "seq">;
    events: EventInput[];
    dedupKey?: string | null;
    enqueue?: Enqueue;
  }): Promise<CreateConversationResult>;

  /** The live conversation of this product and customer created with `dedupKey`, else null. */
  findCreatedConversation(input: { productSlug: string; customerId: string; dedupKey: string }): Promise<ConversationRecord | null>;

  /** The conversation, tombstones included (`deletedAt` set); null when the id never existed. */
  getConversation(input: { id: string }): Promise<ConversationRecord | null>;

  /** Non-deleted conversations of a product, ordered by updatedAt desc then id desc. */
  listConversations(query: ListConversationsQuery): Promise<ConversationRecord[]>;

  /** Messages of a conversation ordered by seq ascending. */
  listMessages(input: { conversationId: string }): Promise<MessageRecord[]>;

  getMessage(input: { conversationId: string; id: string }): Promise<MessageRecord | null>;

  /**
   * Atomically: when `message.clientMessageId` is set and already used in this conversation, answers
   * `duplicate` with the original and writes nothing (whatever `expectedSeq` is); otherwise, when
   * `lastSeq === expectedSeq`, inserts the message (seq = first event's seq), applies `patch`, appends `events`.
   */
  appendMessage(input: {
    conversationId: string;
    expectedSeq: number;
    message: Omit<MessageRecord, "seq">;
    patch: ConversationPatch;
    events: EventInput[];
    enqueue?: Enqueue;
  }): Promise<AppendMessageResult>;

  /** Applies `patch` and appends `events` when `lastSeq === expectedSeq`. */
  updateConversation(input: {
    conversationId: string;
    expectedSeq: number;
    patch: ConversationPatch;
    events: EventInput[];
    enqueue?: Enqueue;
  }): Promise<WriteResult>;

  /** Replaces a message's body; `not_found` also when the message is missing. */
  updateMessage(input: {
    conversationId: string;
    expectedSeq: number;
    messageId: string;
    body: string | null;
    updatedAt: string;
    patch: ConversationPatch;
    events: EventInput[];
  }): Promise<WriteResult & { message?: MessageRecord }>;

  /** Removes a message; `not_found` also when the message is missing. */
  deleteMessage(input: {
    conversationId: string;
    expectedSeq: number;
    messageId: string;
    patch: ConversationPatch;
    events: EventInput[];
  }): Promise<WriteResult>;

  /** Marks the conversation deleted, drops its messages and notes, appends `events` (kept for open streams). */
  deleteConversation(input: { conversationId: string; expectedSeq: number; deletedAt: string; events: EventInput[] }): Promise<WriteResult>;

  /**
   * Events with seq > afterSeq in seq order, at most `limit`. `prunedThrough` is the highest seq already
   * pruned from this conversation's log (0 when none): a reader behind it has lost events.
   */
  readEvents(input: { conversationId: string; afterSeq: number; limit: number }): Promise<{ events: EventRecord[]; prunedThrough: number }>;

  /** Deletes events created before `before`; answers how many. */
  pruneEvents(input: { before: string }): Promise<number>;

  /**
   * Records an inbound webhook delivery (GitHub's `X-GitHub-Delivery`, Slack's `event_id`) unless one with
   * the same `(source, deliveryId)` is recorded: true for the first claimer, false for every repeat,
   * also under concurrent claims.
   */
  claimDelivery(input: { source: string; deliveryId: string; receivedAt: string }): Promise<boolean>;

  /** Forgets a claimed delivery (its processing failed, so a redelivery must be processed). */
  releaseDelivery(input: { source: string; deliveryId: string }): Promise<void>;

  /** Forgets deliveries received before `before`; answers how many. */
  pruneDeliveries(input: { before: string }): Promise<number>;

  /**
   * Durable work kept where the conversations are, so a restarted process resumes it: the outbound events
   * (`enqueue`, written with the change they report) and the backends' work (Slack events acknowledged before they
   * are processed).
   */
  readonly jobs: JobStore;
  /** Outbound-event (webhook) subscriptions and their deliveries (docs/support.md#webhooks). */
  readonly webhooks: WebhookStore;
  /** Agents' private notes on conversations (docs/support.md#private-notes). */
  readonly notes: NoteStore;
  /** Each product's canned replies (docs/support.md#canned-replies). */
  readonly cannedReplies: CannedReplyStore;
  /** The customers' ratings of live conversations, listed for agents (docs/support.md#ratings). */
  readonly ratings: RatingStore;
}
