// The built-in backend and the agent operations over the service's own store. Every change is a
// conditional store write that appends its events, then an ids-only notice on the bus.
import { type Clock, type IdGenerator, iso, type Logger, type PubSub } from "@mountkit/core";
import { supportError } from "../errors.js";
import type { ConversationPatch, ConversationRecord, EventInput, ListConversationsQuery, SupportStore } from "../store/types.js";
import type { CustomerBackend } from "./backend.js";
import { storePage } from "./cursor.js";
import { conversationTopic, ev, productTopic } from "./events.js";
import { parseMetadata, withMetadata } from "./metadata.js";
import {
  type CloseAction,
  isStatus,
  onAgentReply,
  onClose,
  onCustomerMessage,
  openedConversation,
  type Status,
  stateOf,
  statusChangeEffects,
  wireLabels,
} from "./status.js";
import { type Comment, type ConversationView, comment, type Summary, summary, view } from "./wire.js";

export const CUSTOMER_AUTHOR = "Customer";
const MAX_ATTEMPTS = 20;

export interface AgentSummary extends Summary {
  customerId: string;
  productSlug: string;
  assignee: string | null;
  labels: string[];
}

export interface AgentListQuery {
  productSlug: string;
  statuses?: Status[];
  assignee?: string | null;
  label?: string;
  /** Search text (see `ListConversationsQuery.q`). */
  q?: string;
  after?: { updatedAt: string; id: string };
  limit: number;
}

export interface Conversations {
  backend: CustomerBackend;
  /** Conversation as the agent side sees it, or null (missing or deleted). */
  get(id: string): Promise<ConversationRecord | null>;
  agentList(q: AgentListQuery): Promise<AgentSummary[]>;
  agentDetail(id: string): Promise<(ConversationView & { customerId: string; productSlug: string; assignee: string | null }) | null>;
  reply(id: string, input: { body: string; author: string }): Promise<Comment>;
  editMessage(id: string, messageId: string, body: string): Promise<Comment & { updatedAt: string }>;
  deleteMessage(id: string, messageId: string): Promise<void>;
  setLabels(id: string, labels: string[]): Promise<string[]>;
  setAssignee(id: string, assignee: string | null): Promise<string | null>;
  setStatus(id: string, status: Status): Promise<Summary>;
  remove(id: string): Promise<void>;
}

/** Events and patch that follow from moving `from` -> `to`. */
function statusEvents(c: ConversationRecord, to: Status, at: string): { patch: ConversationPatch; events: EventInput[] } {
  const fx = statusChangeEffects(c.status, to);
  const events: EventInput[] = [];
  if (fx.stateFlipped) events.push(ev.stateUpdate(stateOf(to), to, at));
  if (fx.labelsChanged) events.push(ev.labelsChanged(wireLabels(to, c.labels), to, at));
  return { patch: fx.labelsChanged ? { status: to, updatedAt: at } : {}, events };
}

export function createConversations(deps: {
  store: SupportStore;
  bus: PubSub;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
}): Conversations {
  const { store, bus, clock, ids, logger } = deps;
  const now = () => iso(clock.now());

  function notify(c: { id: string; productSlug: string }, seqs: number[]) {
    const seq = seqs[seqs.length - 1];
    if (seq === undefined) return;
    const conversationId = c.id;
    // A lost notice only delays delivery until the next one; the log is the source of truth.
    bus
      .publish(conversationTopic(conversationId), { conversationId, seq })
      .catch((error) => logger.warn("support: publish failed", { conversationId, error }));
    bus
      .publish(productTopic(c.productSlug), { conversationId, seq })
      .catch((error) => logger.warn("support: publish failed", { conversationId, error }));
  }

  async function live(id: string): Promise<ConversationRecord> {
    const c = await store.getConversation({ id });
    if (!c || c.deletedAt) throw supportError("conversation_not_found");
    return c;
  }

  async function owned(scope: { productSlug: string; customerId: string }, id: string): Promise<ConversationRecord> {
    const c = await store.getConversation({ id });
    if (!c || c.deletedAt || c.productSlug !== scope.productSlug || c.customerId !== scope.customerId)
      throw supportError("conversation_not_found");
    return c;
  }

  /** Reads, decides, writes conditionally; on a concurrent change, decides again on fresh data. */
  async function mutate<R extends { ok: true; seqs: number[] } | { ok: false; reason: string }>(
    load: () => Promise<ConversationRecord>,
    write: (c: ConversationRecord) => Promise<R | null> | R | null,
  ): Promise<Extract<R, { ok: true }> | null> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const c = await load();
      const r = await write(c);
      if (r === null) return null;
      if (r.ok) {
        notify(c, r.seqs);
        return r as Extract<R, { ok: true }>;
      }
      if (r.reason === "not_found") throw supportError("conversation_not_found");
    }
    throw new Error("support: too many concurrent writes on one conversation");
  }

  const backend: CustomerBackend = {
    kind: "builtin",

    async createConversation({ productSlug, customerId, subject, body, clientMessageId }) {
      const at = now();
      const id = ids("conv");
      const message = {
        id: ids("cmt"),
        conversationId: id,
        body,
        author: CUSTOMER_AUTHOR,
        isCustomer: true,
        clientMessageId,
        createdAt: at,
        updatedAt: at,
      };
      const { conversation, seqs } = await store.createConversation({
        conversation: { ...openedConversation({ id, productSlug, customerId, subject, at }), firstMessageId: message.id },
        message,
        events: [ev.newComment(comment({ ...message, seq: 0 }), at)],
      });
      // no stream of it exists yet, but an inbox lists it
      notify(conversation, seqs);
      return { conversationId: conversation.id, createdAt: conversation.createdAt };
    },

    async listConversations(scope) {
      return (await store.listConversations(storePage(scope))).map(summary);
    },

    async getConversation({ conversationId, ...scope }) {
      const c = await store.getConversation({ id: conversationId });
      if (!c || c.deletedAt || c.productSlug !== scope.productSlug || c.customerId !== scope.customerId) return null;
      return view(c, await store.listMessages({ conversationId }));
    },

    async postMessage({ conversationId, body, clientMessageId, ...scope }) {
      let duplicate: { id: string; createdAt: string } | undefined;
      const r = await mutate(
        () => owned(scope, conversationId),
        async (c) => {
          const t = onCustomerMessage(c.status);
          if (!t.ok) {
            // a retry of a message that got in before the close still answers the original
            if (clientMessageId !== null) {
              const dup = (await store.listMessages({ conversationId })).find((m) => m.clientMessageId === clientMessageId);
              if (dup) {
                duplicate = dup;
                return null;
              }
            }
            throw supportError("conversation_closed");
          }
          const at = now();
          const message = {
            id: ids("cmt"),
            conversationId,
            body,
            author: CUSTOMER_AUTHOR,
            isCustomer: true,
            clientMessageId,
            createdAt: at,
            updatedAt: at,
          };
          const s = statusEvents(c, t.next, at);
          const w = await store.appendMessage({
            conversationId,
            expectedSeq: c.lastSeq,
            message,
            patch: { ...s.patch, updatedAt: at },
            events: [ev.newComment(comment({ ...message, seq: 0 }), at), ...s.events],
          });
          if (!w.ok && w.reason === "duplicate") {
            duplicate = w.message;
            return null;
          }
          return w;
        },
      );
      if (duplicate) return { id: duplicate.id, createdAt: duplicate.createdAt, deduplicated: true };
      if (!r) throw new Error("unreachable");
      return { id: r.message.id, createdAt: r.message.createdAt, deduplicated: false };
    },

    async closeConversation({ conversationId, action, ...scope }) {
      let status: Status | undefined;
      await mutate(
        () => owned(scope, conversationId),
        (c) => {
          const t = onClose(c.status, action as CloseAction);
          status = t.ok ? t.next : c.status;
          if (!t.ok || t.next === c.status) return null;
          const s = statusEvents(c, t.next, now());
          return store.updateConversation({ conversationId, expectedSeq: c.lastSeq, patch: s.patch, events: s.events });
        },
      );
      return { status: status! };
    },
  };

  const agentSummary = (c: ConversationRecord): AgentSummary => ({
    ...summary(c),
    customerId: c.customerId,
    productSlug: c.productSlug,
    assignee: c.assignee,
    labels: wireLabels(c.status, c.labels),
  });

  return {
    backend,
    async get(id) {
      const c = await store.getConversation({ id });
      return c && !c.deletedAt ? c : null;
    },

    async agentList(q) {
      const query: ListConversationsQuery = { productSlug: q.productSlug, limit: q.limit };
      let statuses = q.statuses;
      let label = q.label;
      // the status label is a label on the wire: filtering by it is filtering by status
      if (label !== undefined && isStatus(label)) {
        statuses = statuses ? statuses.filter((s) => s === label) : [label];
        label = undefined;
      }
      if (statuses) {
        if (!statuses.length) return [];
        query.statuses = statuses;
      }
      if (label !== undefined) query.label = label;
      if (q.assignee !== undefined) query.assignee = q.assignee;
      if (q.q !== undefined) query.q = q.q;
      if (q.after) query.after = q.after;
      return (await store.listConversations(query)).map(agentSummary);
    },

    async agentDetail(id) {
      const c = await store.getConversation({ id });
      if (!c || c.deletedAt) return null;
      return {
        ...view(c, await store.listMessages({ conversationId: id })),
        customerId: c.customerId,
        productSlug: c.productSlug,
        assignee: c.assignee,
      };
    },

    async reply(id, { body, author }) {
      const r = await mutate(
        () => live(id),
        (c) => {
          const at = now();
          const t = onAgentReply(c.status);
          const next = t.ok ? t.next : c.status;
          const message = {
            id: ids("cmt"),
            conversationId: id,
            body,
            author,
            isCustomer: false,
            clientMessageId: null,
            createdAt: at,
            updatedAt: at,
          };
          const s = statusEvents(c, next, at);
          return store.appendMessage({
            conversationId: id,
            expectedSeq: c.lastSeq,
            message,
            patch: { ...s.patch, updatedAt: at },
            events: [ev.newComment(comment({ ...message, seq: 0 }), at), ...s.events],
          });
        },
      );
      return comment(r!.message);
    },

    async editMessage(id, messageId, body) {
      let edited: (Comment & { updatedAt: string }) | undefined;
      await mutate(
        () => live(id),
        async (c) => {
          const m = await store.getMessage({ conversationId: id, id: messageId });
          if (!m) throw supportError("message_not_found");
          // a customer message keeps its hidden block: identity and dedup must survive an edit
          const meta = m.body !== null ? parseMetadata(m.body) : undefined;
          const at = now();
          const nextBody = meta && parseMetadata(body) === undefined ? withMetadata(body, meta) : body;
          edited = { ...comment({ ...m, body: nextBody }), updatedAt: at };
          const w = await store.updateMessage({
            conversationId: id,
            expectedSeq: c.lastSeq,
            messageId,
            body: nextBody,
            updatedAt: at,
            patch: { updatedAt: at },
            events: [ev.commentEdited(edited, at)],
          });
          if (!w.ok && w.reason === "not_found" && !(await store.getMessage({ conversationId: id, id: messageId })))
            throw supportError("message_not_found");
          return w;
        },
      );
      return edited!;
    },

    async deleteMessage(id, messageId) {
      await mutate(
        () => live(id),
        async (c) => {
          const at = now();
          const w = await store.deleteMessage({
            conversationId: id,
            expectedSeq: c.lastSeq,
            messageId,
            patch: { updatedAt: at },
            events: [ev.commentDeleted(messageId, at)],
          });
          if (!w.ok && w.reason === "not_found" && (await store.getConversation({ id }))?.deletedAt === null)
            throw supportError("message_not_found");
          return w;
        },
      );
    },

    async setLabels(id, labels) {
      const clean = [...new Set(labels.filter((l) => !isStatus(l)))];
      const r = await mutate(
        () => live(id),
        (c) => {
          const at = now();
          return store.updateConversation({
            conversationId: id,
            expectedSeq: c.lastSeq,
            patch: { labels: clean },
            events: [ev.labelsChanged(wireLabels(c.status, clean), c.status, at)],
          });
        },
      );
      return wireLabels(r!.conversation.status, r!.conversation.labels);
    },

    async setAssignee(id, assignee) {
      const r = await mutate(
        () => live(id),
        (c) =>
          store.updateConversation({
            conversationId: id,
            expectedSeq: c.lastSeq,
            patch: { assignee },
            events: [ev.assigneeChanged(assignee, now())],
          }),
      );
      return r!.conversation.assignee;
    },

    async setStatus(id, status) {
      let current: ConversationRecord | undefined;
      const r = await mutate(
        async () => (current = await live(id)),
        (c) => {
          if (c.status === status) return null;
          const s = statusEvents(c, status, now());
          return store.updateConversation({ conversationId: id, expectedSeq: c.lastSeq, patch: s.patch, events: s.events });
        },
      );
      return summary(r ? r.conversation : current!);
    },

    async remove(id) {
      await mutate(
        () => live(id),
        (c) => {
          const at = now();
          return store.deleteConversation({ conversationId: id, expectedSeq: c.lastSeq, deletedAt: at, events: [ev.issueDeleted(id, at)] });
        },
      );
    },
  };
}
