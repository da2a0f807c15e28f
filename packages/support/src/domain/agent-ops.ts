// The agent side's operations over the service's own store: reading the inbox and a conversation, the
// agent's messages (reply, edit, delete), and the conversation's labels, assignee, status and removal.
import { supportError } from "../errors.js";
import type { ConversationRecord, ListConversationsQuery } from "../store/types.js";
import { authorIdOf, replyBody } from "./agent-identity.js";
import { noteView } from "./agent-notes.js";
import { appendWithStatus, live, mutate, newMessage, type StoreCx, statusEvents } from "./conversation-writes.js";
import type { Conversations } from "./conversations-types.js";
import { ev } from "./events.js";
import { parseMetadata, withMetadata } from "./metadata.js";
import { isStatus, onAgentReply, wireLabels } from "./status.js";
import { agentSummary, type Comment, comment, summary, view } from "./views.js";

export function agentReads(x: StoreCx): Pick<Conversations, "get" | "agentList" | "agentDetail"> {
  const { store } = x;
  return {
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
      const v = view(c, await store.listMessages({ conversationId: id }));
      return {
        ...v,
        // agents see who wrote each reply by id as well as by name
        messages: v.messages.map((m) => ({ ...m, authorId: authorIdOf(m) })),
        customerId: c.customerId,
        productSlug: c.productSlug,
        assignee: c.assignee,
        notes: (await store.notes.list({ conversationId: id })).map(noteView),
      };
    },
  };
}

export function agentMessages(x: StoreCx): Pick<Conversations, "reply" | "editMessage" | "deleteMessage"> {
  const { store } = x;
  return {
    async reply(id, { body, author, authorId }) {
      const r = await mutate(
        x,
        () => live(x, id),
        (c) => {
          const at = x.now();
          const t = onAgentReply(c.status);
          const message = newMessage(x, id, { body: replyBody(body, authorId), author, isCustomer: false, clientMessageId: null }, at);
          return appendWithStatus(x, c, message, t.ok ? t.next : c.status, at);
        },
      );
      return comment(r!.message);
    },

    async editMessage(id, messageId, body) {
      let edited: (Comment & { updatedAt: string }) | undefined;
      await mutate(
        x,
        () => live(x, id),
        async (c) => {
          const m = await store.getMessage({ conversationId: id, id: messageId });
          if (!m) throw supportError("message_not_found");
          // a customer message keeps its hidden block: identity and dedup must survive an edit
          const meta = m.body !== null ? parseMetadata(m.body) : undefined;
          const at = x.now();
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
      let product = "";
      await mutate(
        x,
        () => live(x, id),
        async (c) => {
          product = c.productSlug;
          const at = x.now();
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
      await x.events?.forget(product, [messageId]);
    },
  };
}

export function agentChanges(x: StoreCx): Pick<Conversations, "setLabels" | "setAssignee" | "setStatus" | "remove"> {
  const { store } = x;
  return {
    async setLabels(id, labels) {
      const clean = [...new Set(labels.filter((l) => !isStatus(l)))];
      const r = await mutate(
        x,
        () => live(x, id),
        (c) => {
          const at = x.now();
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
        x,
        () => live(x, id),
        async (c) =>
          store.updateConversation({
            conversationId: id,
            expectedSeq: c.lastSeq,
            patch: { assignee },
            events: [ev.assigneeChanged(assignee, x.now())],
            enqueue: await x.events?.prepare(c.productSlug, c, { assignee }),
          }),
      );
      return r!.conversation.assignee;
    },

    async setStatus(id, status) {
      let current: ConversationRecord | undefined;
      const r = await mutate(
        x,
        async () => (current = await live(x, id)),
        async (c) => {
          if (c.status === status) return null;
          const s = statusEvents(c, status, x.now());
          const enqueue = await x.events?.prepare(c.productSlug, c, s.patch);
          return store.updateConversation({ conversationId: id, expectedSeq: c.lastSeq, patch: s.patch, events: s.events, enqueue });
        },
      );
      return summary(r ? r.conversation : current!);
    },

    async remove(id) {
      let product = "";
      await mutate(
        x,
        () => live(x, id),
        (c) => {
          product = c.productSlug;
          const at = x.now();
          return store.deleteConversation({ conversationId: id, expectedSeq: c.lastSeq, deletedAt: at, events: [ev.issueDeleted(id, at)] });
        },
      );
      await x.events?.forget(product, [id]);
    },
  };
}
