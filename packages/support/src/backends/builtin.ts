// The built-in backend: customer conversations kept in the service's own store. Every change is a
// conditional store write that appends its events, then an ids-only notice on the bus.

import type { CustomerBackend, CustomerScope } from "../domain/backend.js";
import {
  appendWithStatus,
  CUSTOMER_AUTHOR,
  mutate,
  newMessage,
  notify,
  type StoreCx,
  statusEvents,
} from "../domain/conversation-writes.js";
import { storePage } from "../domain/cursor.js";
import { ev } from "../domain/events.js";
import { type CloseAction, isOpen, onClose, onCustomerMessage, openedConversation, type Status } from "../domain/status.js";
import { comment, summary, view } from "../domain/views.js";
import { supportError } from "../errors.js";
import type { ConversationRecord, Rating } from "../store/types.js";

/** The conversation when it is this customer's and not deleted, else null. */
async function ownedOrNull(x: StoreCx, scope: CustomerScope, id: string): Promise<ConversationRecord | null> {
  const c = await x.store.getConversation({ id });
  return c && !c.deletedAt && c.productSlug === scope.productSlug && c.customerId === scope.customerId ? c : null;
}

/** The conversation when it is this customer's and not deleted, else `conversation_not_found`. */
async function owned(x: StoreCx, scope: CustomerScope, id: string): Promise<ConversationRecord> {
  const c = await ownedOrNull(x, scope, id);
  if (!c) throw supportError("conversation_not_found");
  return c;
}

const createConversation =
  (x: StoreCx): CustomerBackend["createConversation"] =>
  async ({ productSlug, customerId, subject, body, clientMessageId }) => {
    const at = x.now();
    const id = x.ids("conv");
    const message = newMessage(x, id, { body, author: CUSTOMER_AUTHOR, isCustomer: true, clientMessageId }, at);
    const enqueue = await x.events?.prepare(productSlug, null);
    const { conversation, seqs, duplicate } = await x.store.createConversation({
      conversation: { ...openedConversation({ id, productSlug, customerId, subject, at }), firstMessageId: message.id },
      message,
      events: [ev.newComment(comment({ ...message, seq: 0 }), at)],
      // a retry after a lost answer gets the conversation its first attempt created (nothing written)
      dedupKey: clientMessageId,
      enqueue,
    });
    // no stream of it exists yet, but an inbox lists it (a duplicate has no new seqs: no notice)
    notify(x, conversation, seqs);
    if (enqueue && !duplicate) x.events?.committed();
    return { conversationId: conversation.id, createdAt: conversation.createdAt };
  };

const postMessage =
  (x: StoreCx): CustomerBackend["postMessage"] =>
  async ({ conversationId, body, clientMessageId, ...scope }) => {
    let duplicate: { id: string; createdAt: string } | undefined;
    const r = await mutate(
      x,
      () => owned(x, scope, conversationId),
      async (c) => {
        const t = onCustomerMessage(c.status);
        if (!t.ok) {
          // a retry of a message that got in before the close still answers the original
          if (clientMessageId !== null) {
            const dup = (await x.store.listMessages({ conversationId })).find((m) => m.clientMessageId === clientMessageId);
            if (dup) {
              duplicate = dup;
              return null;
            }
          }
          throw supportError("conversation_closed");
        }
        const at = x.now();
        const message = newMessage(x, conversationId, { body, author: CUSTOMER_AUTHOR, isCustomer: true, clientMessageId }, at);
        const w = await appendWithStatus(x, c, message, t.next, at);
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
  };

const closeConversation =
  (x: StoreCx): CustomerBackend["closeConversation"] =>
  async ({ conversationId, action, ...scope }) => {
    let status: Status | undefined;
    await mutate(
      x,
      () => owned(x, scope, conversationId),
      async (c) => {
        const t = onClose(c.status, action as CloseAction);
        status = t.ok ? t.next : c.status;
        if (!t.ok || t.next === c.status) return null;
        const s = statusEvents(c, t.next, x.now());
        const enqueue = await x.events?.prepare(c.productSlug, c, s.patch);
        return x.store.updateConversation({ conversationId, expectedSeq: c.lastSeq, patch: s.patch, events: s.events, enqueue });
      },
    );
    return { status: status! };
  };

/** The customer rates a resolved or closed conversation; rating again replaces the rating (docs/support.md#ratings). */
const rateConversation =
  (x: StoreCx): NonNullable<CustomerBackend["rateConversation"]> =>
  async ({ conversationId, score, comment: text, ...scope }) => {
    let rating: Rating | undefined;
    await mutate(
      x,
      () => owned(x, scope, conversationId),
      async (c) => {
        if (isOpen(c.status)) throw supportError("conversation_open");
        rating = { score, comment: text, ratedAt: x.now() };
        const patch = { rating };
        // no stream event: a rating changes nothing a conversation's stream shows
        const enqueue = await x.events?.prepare(c.productSlug, c, patch);
        return x.store.updateConversation({ conversationId, expectedSeq: c.lastSeq, patch, events: [], enqueue });
      },
    );
    return rating!;
  };

export function builtinBackend(x: StoreCx): CustomerBackend {
  return {
    kind: "builtin",
    createConversation: createConversation(x),

    async listConversations(scope) {
      return (await x.store.listConversations(storePage(scope))).map(summary);
    },

    async getConversation({ conversationId, ...scope }) {
      const c = await ownedOrNull(x, scope, conversationId);
      return c && view(c, await x.store.listMessages({ conversationId }));
    },

    postMessage: postMessage(x),
    closeConversation: closeConversation(x),
    rateConversation: rateConversation(x),

    async openStream({ conversationId, ...scope }) {
      const c = await ownedOrNull(x, scope, conversationId);
      return c && { conversation: c };
    },
  };
}
