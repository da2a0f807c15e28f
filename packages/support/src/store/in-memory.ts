// In-memory SupportStore: every operation runs synchronously inside one call, so each is atomic.
import { inMemoryJobStore, type JobStore } from "@mountkit/core/jobs";
import { inMemoryWebhookStore } from "@mountkit/core/webhooks";
import { inMemoryCannedReplyStore, inMemoryNoteStore } from "./in-memory-agent.js";
import { inMemoryRatingStore } from "./in-memory-ratings.js";
import {
  type AppendMessageResult,
  type ConversationPatch,
  type ConversationRecord,
  type Enqueue,
  type EventInput,
  type EventRecord,
  type ListConversationsQuery,
  METADATA_MARK,
  type MessageRecord,
  type SupportStore,
  type WriteResult,
} from "./types.js";

interface Row {
  conversation: ConversationRecord;
  messages: MessageRecord[];
  byClientId: Map<string, MessageRecord>;
  events: EventRecord[];
  prunedThrough: number;
}

// Records cross the interface as copies, as they would from a database.
const copy = <T>(v: T): T => structuredClone(v);

const before = (a: ConversationRecord, b: { updatedAt: string; id: string }) =>
  a.updatedAt < b.updatedAt || (a.updatedAt === b.updatedAt && a.id < b.id);

/** ASCII-only case folding, as SQLite's LIKE and the SQL stores' search compare. */
const fold = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** The search of `ListConversationsQuery.q`: subject, customer id or a message's text before its metadata block. */
function matches(c: ConversationRecord, messages: MessageRecord[], q: string): boolean {
  const needle = fold(q);
  if (fold(c.subject).includes(needle) || fold(c.customerId).includes(needle)) return true;
  return messages.some((m) => m.body !== null && fold(m.body.split(METADATA_MARK)[0]!).includes(needle));
}

type Rows = Map<string, Row>;

/** Queues a write's jobs right after it (`SupportStore.jobs`): nothing else runs between the two. */
async function queue(jobs: JobStore, enqueue: Enqueue | undefined, written: Parameters<Enqueue>[0]) {
  for (const j of enqueue?.(copy(written)) ?? []) await jobs.enqueue(j);
}

function append(row: Row, events: EventInput[]): number[] {
  const seqs: number[] = [];
  for (const e of events) {
    const seq = ++row.conversation.lastSeq;
    row.events.push({ conversationId: row.conversation.id, seq, type: e.type, data: copy(e.data ?? null), createdAt: e.createdAt });
    seqs.push(seq);
  }
  return seqs;
}

function apply(row: Row, patch: ConversationPatch) {
  for (const [k, v] of Object.entries(patch)) {
    if (v !== undefined) (row.conversation as unknown as Record<string, unknown>)[k] = copy(v);
  }
}

/** The live row when the write may go ahead, else why not. */
function writable(rows: Rows, conversationId: string, expectedSeq: number): Row | { ok: false; reason: "not_found" | "conflict" } {
  const row = rows.get(conversationId);
  if (!row || row.conversation.deletedAt) return { ok: false, reason: "not_found" };
  if (row.conversation.lastSeq !== expectedSeq) return { ok: false, reason: "conflict" };
  return row;
}

/** Creating a conversation and reading conversations and messages. */
function conversationReads(
  rows: Rows,
  jobs: JobStore,
): Pick<
  SupportStore,
  "createConversation" | "findCreatedConversation" | "getConversation" | "listConversations" | "listMessages" | "getMessage"
> {
  /** `product \u0000 customer \u0000 dedupKey` -> the conversation created with it (live or not: checked on read). */
  const created = new Map<string, string>();
  const createdKey = (productSlug: string, customerId: string, key: string) => `${productSlug}\u0000${customerId}\u0000${key}`;
  const liveCreated = (key: string): Row | undefined => {
    const id = created.get(key);
    const row = id === undefined ? undefined : rows.get(id);
    return row && !row.conversation.deletedAt ? row : undefined;
  };
  return {
    async createConversation({ conversation, message, events, dedupKey, enqueue }) {
      const key = dedupKey == null ? undefined : createdKey(conversation.productSlug, conversation.customerId, dedupKey);
      const earlier = key === undefined ? undefined : liveCreated(key);
      if (earlier) return { duplicate: true, conversation: copy(earlier.conversation), seqs: [] };
      if (rows.has(conversation.id)) throw new Error(`conversation ${conversation.id} exists`);
      const row: Row = {
        conversation: { ...copy(conversation), lastSeq: 0, deletedAt: null },
        messages: [],
        byClientId: new Map(),
        events: [],
        prunedThrough: 0,
      };
      const seqs = append(row, events);
      const m: MessageRecord = { ...copy(message), conversationId: conversation.id, seq: seqs[0] ?? 0 };
      row.messages.push(m);
      if (m.clientMessageId !== null) row.byClientId.set(m.clientMessageId, m);
      rows.set(conversation.id, row);
      if (key !== undefined) created.set(key, conversation.id);
      await queue(jobs, enqueue, { conversation: row.conversation, message: m });
      return { conversation: copy(row.conversation), message: copy(m), seqs };
    },

    async findCreatedConversation({ productSlug, customerId, dedupKey }) {
      const row = liveCreated(createdKey(productSlug, customerId, dedupKey));
      return row ? copy(row.conversation) : null;
    },

    async getConversation({ id }) {
      const row = rows.get(id);
      return row ? copy(row.conversation) : null;
    },

    async listConversations(q: ListConversationsQuery) {
      const out: ConversationRecord[] = [];
      for (const { conversation: c } of rows.values()) {
        if (c.deletedAt || c.productSlug !== q.productSlug) continue;
        if (q.customerId !== undefined && c.customerId !== q.customerId) continue;
        if (q.statuses && !q.statuses.includes(c.status)) continue;
        if (q.label !== undefined && !c.labels.includes(q.label)) continue;
        if (q.assignee !== undefined && c.assignee !== q.assignee) continue;
        if (q.after && !before(c, q.after)) continue;
        if (q.q !== undefined && !matches(c, rows.get(c.id)!.messages, q.q)) continue;
        out.push(c);
      }
      out.sort((a, b) => (before(a, b) ? 1 : before(b, a) ? -1 : 0));
      return copy(q.limit === undefined ? out : out.slice(0, q.limit));
    },

    async listMessages({ conversationId }) {
      const row = rows.get(conversationId);
      if (!row || row.conversation.deletedAt) return [];
      return copy(row.messages);
    },

    async getMessage({ conversationId, id }) {
      const row = rows.get(conversationId);
      if (!row || row.conversation.deletedAt) return null;
      const m = row.messages.find((x) => x.id === id);
      return m ? copy(m) : null;
    },
  };
}

/** The conditional writes: each checks `expectedSeq` and appends its events in the same call. */
function conditionalWrites(
  rows: Rows,
  jobs: JobStore,
): Pick<SupportStore, "appendMessage" | "updateConversation" | "updateMessage" | "deleteMessage" | "deleteConversation"> {
  return {
    async appendMessage({ conversationId, expectedSeq, message, patch, events, enqueue }): Promise<AppendMessageResult> {
      const existing = rows.get(conversationId);
      if (existing && !existing.conversation.deletedAt && message.clientMessageId !== null) {
        const dup = existing.byClientId.get(message.clientMessageId);
        if (dup) return { ok: false, reason: "duplicate", message: copy(dup) };
      }
      const row = writable(rows, conversationId, expectedSeq);
      if ("ok" in row) return row;
      const seqs = append(row, events);
      apply(row, patch);
      const m: MessageRecord = { ...copy(message), conversationId, seq: seqs[0] ?? row.conversation.lastSeq };
      row.messages.push(m);
      if (m.clientMessageId !== null) row.byClientId.set(m.clientMessageId, m);
      await queue(jobs, enqueue, { conversation: row.conversation, message: m });
      return { ok: true, conversation: copy(row.conversation), message: copy(m), seqs };
    },

    async updateConversation({ conversationId, expectedSeq, patch, events, enqueue }): Promise<WriteResult> {
      const row = writable(rows, conversationId, expectedSeq);
      if ("ok" in row) return row;
      apply(row, patch);
      const seqs = append(row, events);
      await queue(jobs, enqueue, { conversation: row.conversation });
      return { ok: true, conversation: copy(row.conversation), seqs };
    },

    async updateMessage({ conversationId, expectedSeq, messageId, body, updatedAt, patch, events }) {
      const row = writable(rows, conversationId, expectedSeq);
      if ("ok" in row) return row;
      const m = row.messages.find((x) => x.id === messageId);
      if (!m) return { ok: false, reason: "not_found" };
      m.body = body;
      m.updatedAt = updatedAt;
      apply(row, patch);
      const seqs = append(row, events);
      return { ok: true, conversation: copy(row.conversation), message: copy(m), seqs };
    },

    async deleteMessage({ conversationId, expectedSeq, messageId, patch, events }) {
      const row = writable(rows, conversationId, expectedSeq);
      if ("ok" in row) return row;
      const i = row.messages.findIndex((x) => x.id === messageId);
      if (i === -1) return { ok: false, reason: "not_found" };
      const [m] = row.messages.splice(i, 1);
      if (m?.clientMessageId !== null && m?.clientMessageId !== undefined) row.byClientId.delete(m.clientMessageId);
      apply(row, patch);
      const seqs = append(row, events);
      return { ok: true, conversation: copy(row.conversation), seqs };
    },

    async deleteConversation({ conversationId, expectedSeq, deletedAt, events }) {
      const row = writable(rows, conversationId, expectedSeq);
      if ("ok" in row) return row;
      const seqs = append(row, events);
      row.conversation.deletedAt = deletedAt;
      row.messages = [];
      row.byClientId.clear();
      return { ok: true, conversation: copy(row.conversation), seqs };
    },
  };
}

/** Each conversation's event log: reads after a seq, and pruning by age. */
function eventLog(rows: Rows): Pick<SupportStore, "readEvents" | "pruneEvents"> {
  return {
    async readEvents({ conversationId, afterSeq, limit }) {
      const row = rows.get(conversationId);
      if (!row) return { events: [], prunedThrough: 0 };
      const out: EventRecord[] = [];
      // events are appended in seq order, so scan from the first one past afterSeq
      const first = row.events.length ? row.events[0]!.seq : row.conversation.lastSeq + 1;
      for (let i = Math.max(0, afterSeq + 1 - first); i < row.events.length && out.length < limit; i++) out.push(row.events[i]!);
      return { events: copy(out), prunedThrough: row.prunedThrough };
    },

    async pruneEvents({ before: cutoff }) {
      let n = 0;
      for (const row of rows.values()) {
        let k = 0;
        while (k < row.events.length && row.events[k]!.createdAt < cutoff) k++;
        if (k === 0) continue;
        row.prunedThrough = row.events[k - 1]!.seq;
        row.events.splice(0, k);
        n += k;
      }
      return n;
    },
  };
}

/** Webhook deliveries seen, so each is processed once. */
function deliveryClaims(): Pick<SupportStore, "claimDelivery" | "releaseDelivery" | "pruneDeliveries"> {
  /** `source \u0000 deliveryId` -> receivedAt. */
  const deliveries = new Map<string, string>();
  const deliveryKey = (source: string, id: string) => `${source}\u0000${id}`;
  return {
    async claimDelivery({ source, deliveryId, receivedAt }) {
      const key = deliveryKey(source, deliveryId);
      if (deliveries.has(key)) return false;
      deliveries.set(key, receivedAt);
      return true;
    },

    async releaseDelivery({ source, deliveryId }) {
      deliveries.delete(deliveryKey(source, deliveryId));
    },

    async pruneDeliveries({ before: cutoff }) {
      let n = 0;
      for (const [k, receivedAt] of deliveries) {
        if (receivedAt < cutoff) {
          deliveries.delete(k);
          n++;
        }
      }
      return n;
    },
  };
}

export function inMemorySupportStore(): SupportStore {
  const rows: Rows = new Map();
  const jobs = inMemoryJobStore();
  const notes = inMemoryNoteStore();
  const writes = conditionalWrites(rows, jobs);
  return {
    ...conversationReads(rows, jobs),
    ...writes,
    async deleteConversation(input) {
      const r = await writes.deleteConversation(input);
      if (r.ok) notes.drop(input.conversationId);
      return r;
    },
    ...eventLog(rows),
    jobs,
    webhooks: inMemoryWebhookStore(),
    notes: notes.store,
    cannedReplies: inMemoryCannedReplyStore(),
    ratings: inMemoryRatingStore(() => [...rows.values()].map((r) => r.conversation)),
    ...deliveryClaims(),
  };
}

/** @deprecated Renamed `inMemorySupportStore`: "memory" in a name means the memory service. This alias goes in the next major version. */
export const memorySupportStore = inMemorySupportStore;
