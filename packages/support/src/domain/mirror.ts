// A local mirror of a conversation whose truth lives elsewhere (a GitHub issue, a Slack thread, a remote SPI).
// Each change seen there becomes a conditional store write that appends the same events the built-in backend
// emits, so replay, `Last-Event-ID` and cross-process delivery work unchanged; concurrent observers of one
// change (webhook and poll, two processes) collapse into one write because every write checks `lastSeq`.
import { type Clock, iso, type Logger } from "@mountkit/core";
import type { PubSub } from "@mountkit/core/jobs";
import type { ConversationPatch, ConversationRecord, EventInput, MessageRecord, SupportStore, WriteFailure } from "../store/types.js";
import type { CustomerScope } from "./backend.js";
import { conversationTopic, ev } from "./events.js";
import type { SupportEvents } from "./outbound.js";
import { type Status, stateOf, statusChangeEffects, wireLabels } from "./status.js";
import { type Comment, type ConversationView, comment, view } from "./views.js";

const MAX_ATTEMPTS = 20;

export interface MirrorMessage {
  /** Stored message id (unique across the store). */
  id: string;
  body: string | null;
  author: string;
  isCustomer: boolean;
  /** Dedup key kept in `clientMessageId`: two observers of one remote message compute the same key. */
  dedupKey: string;
  createdAt: string;
}

/** Conversation fields a remote change may set; absent fields stay as they are. */
export interface MirrorState {
  subject?: string;
  status?: Status;
  /** Agent labels, without the status label. */
  labels?: string[];
  assignee?: string | null;
}

export interface MirrorSnapshot {
  state: MirrorState;
  /** Every message the remote has now, the first one included. */
  messages: MirrorMessage[];
}

export interface Mirror {
  /**
   * Creates the mirror with its baseline (no events: a stream starts after it); the existing one if present,
   * or the live one of this product and customer created with `dedupKey` (the customer's clientMessageId).
   */
  create(input: {
    conversation: Omit<ConversationRecord, "lastSeq" | "deletedAt" | "firstMessageId">;
    messages: MirrorMessage[];
    dedupKey?: string | null;
  }): Promise<ConversationRecord>;
  /** Null when the mirror is missing or deleted. */
  get(id: string): Promise<ConversationRecord | null>;
  /** Appends a message (`new_comment`) unless its dedup key is there; `status` moves with it. */
  addMessage(
    conversationId: string,
    m: MirrorMessage,
    status?: (current: Status) => Status,
  ): Promise<{ message: MessageRecord; added: boolean } | null>;
  editMessage(conversationId: string, messageId: string, body: string | null): Promise<boolean>;
  removeMessage(conversationId: string, messageId: string): Promise<boolean>;
  setState(conversationId: string, state: MirrorState): Promise<ConversationRecord | null>;
  remove(conversationId: string): Promise<boolean>;
  /** Brings the mirror to a full remote snapshot: new, edited and removed messages, then the state. */
  sync(conversationId: string, snapshot: MirrorSnapshot): Promise<void>;
  /** The conversation as its customer sees it; null when missing, deleted, or another product's or customer's. */
  viewFor(scope: CustomerScope, conversationId: string): Promise<ConversationView | null>;
  /** The first answer to a repeated `clientMessageId` on this conversation, if there was one. */
  duplicate(
    conversationId: string,
    clientMessageId: string | null,
  ): Promise<{ id: string; createdAt: string; deduplicated: true } | undefined>;
}

export interface MirrorOptions {
  store: SupportStore;
  bus: PubSub;
  clock: Clock;
  logger: Logger;
  /** The id customers see for a stored conversation id (default: the same). */
  publicConversationId?: (storedId: string) => string;
  /** The id customers see for a stored message id of a stored conversation (default: the same). */
  publicMessageId?: (storedId: string, conversationId: string) => string;
  /** The service's outbound events (BackendContext.events): each write carries those it makes. */
  events?: SupportEvents;
}

const sameLabels = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** What the mirror's operations share: the store, the bus notice, the clock and the public ids. */
interface MirrorCx {
  store: SupportStore;
  bus: PubSub;
  logger: Logger;
  now(): string;
  convId(storedId: string): string;
  msgId(storedId: string, conversationId: string): string;
  events: SupportEvents | undefined;
}

/** The stored form of a mirrored message: its dedup key is kept as the `clientMessageId`. */
const recordOf = (conversationId: string, m: MirrorMessage) => ({
  id: m.id,
  conversationId,
  body: m.body,
  author: m.author,
  isCustomer: m.isCustomer,
  clientMessageId: m.dedupKey,
  createdAt: m.createdAt,
  updatedAt: m.createdAt,
});

const wire = (x: MirrorCx, m: Omit<MessageRecord, "seq">): Comment => ({
  ...comment({ ...m, seq: 0 }),
  id: x.msgId(m.id, m.conversationId),
});

function notify(x: MirrorCx, conversationId: string, seqs: number[]) {
  const seq = seqs[seqs.length - 1];
  if (seq === undefined) return;
  x.bus
    .publish(conversationTopic(conversationId), { conversationId, seq })
    .catch((error) => x.logger.warn("support: publish failed", { conversationId, error }));
}

async function live(x: MirrorCx, id: string): Promise<ConversationRecord | null> {
  const c = await x.store.getConversation({ id });
  return c && !c.deletedAt ? c : null;
}

/** Decide-and-write with a retry on a concurrent change; null when the mirror is gone or nothing changes. */
async function mutate<R extends { ok: true; seqs: number[] }>(
  x: MirrorCx,
  id: string,
  write: (c: ConversationRecord) => Promise<R | WriteFailure | null>,
): Promise<R | null> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const c = await live(x, id);
    if (!c) return null;
    const r = await write(c);
    if (r === null) return null;
    if (r.ok) {
      notify(x, id, r.seqs);
      x.events?.committed();
      return r;
    }
    if (r.reason === "not_found") return null;
  }
  throw new Error("support: too many concurrent writes on one mirrored conversation");
}

/** Patch and events that take `c` to `state`. */
function stateChange(c: ConversationRecord, state: MirrorState, at: string): { patch: ConversationPatch; events: EventInput[] } {
  const patch: ConversationPatch = {};
  const events: EventInput[] = [];
  const status = state.status ?? c.status;
  const labels = state.labels ?? c.labels;
  const fx = statusChangeEffects(c.status, status);
  if (fx.stateFlipped) events.push(ev.stateUpdate(stateOf(status), status, at));
  if (fx.labelsChanged) patch.status = status;
  if (!sameLabels(labels, c.labels)) patch.labels = labels;
  if (fx.labelsChanged || patch.labels) events.push(ev.labelsChanged(wireLabels(status, labels), status, at));
  if (state.assignee !== undefined && state.assignee !== c.assignee) {
    patch.assignee = state.assignee;
    events.push(ev.assigneeChanged(state.assignee, at));
  }
  if (state.subject !== undefined && state.subject !== c.subject) patch.subject = state.subject;
  if (Object.keys(patch).length) patch.updatedAt = at;
  return { patch, events };
}

/** The baseline: the conversation and its messages as the remote has them, with no events. */
async function createMirrored(
  x: MirrorCx,
  { conversation, messages, dedupKey }: Parameters<Mirror["create"]>[0],
): Promise<ConversationRecord> {
  const { store } = x;
  const existing = await store.getConversation({ id: conversation.id });
  if (existing) return existing;
  const [first, ...rest] = messages;
  if (!first) throw new Error("a mirrored conversation needs its first message");
  try {
    const r = await store.createConversation({
      conversation: { ...conversation, firstMessageId: first.id },
      message: recordOf(conversation.id, first),
      events: [],
      dedupKey,
      enqueue: await x.events?.prepare(conversation.productSlug, null, {}, x),
    });
    if (r.duplicate) return r.conversation;
    x.events?.committed();
  } catch (error) {
    // another observer created it first: theirs is as good as ours
    const raced = await store.getConversation({ id: conversation.id });
    if (raced) return raced;
    throw error;
  }
  for (const m of rest) {
    const c = await store.getConversation({ id: conversation.id });
    if (!c) break;
    const enqueue = await x.events?.prepare(c.productSlug, c, {}, x);
    await store.appendMessage({ conversationId: c.id, expectedSeq: c.lastSeq, message: recordOf(c.id, m), patch: {}, events: [], enqueue });
  }
  return (await store.getConversation({ id: conversation.id }))!;
}

/** Message changes seen on the remote: added (once per dedup key), edited, removed. */
function messageChanges(x: MirrorCx): Pick<Mirror, "addMessage" | "editMessage" | "removeMessage"> {
  const { store } = x;
  return {
    async addMessage(conversationId, m, status) {
      let duplicate: MessageRecord | undefined;
      const r = await mutate(x, conversationId, async (c) => {
        const known = await store.getMessage({ conversationId, id: m.id });
        if (known) {
          duplicate = known;
          return null;
        }
        const at = x.now();
        const message = recordOf(conversationId, m);
        const s = stateChange(c, { status: status ? status(c.status) : c.status }, at);
        const patch = { ...s.patch, updatedAt: at };
        const w = await store.appendMessage({
          conversationId,
          expectedSeq: c.lastSeq,
          message,
          patch,
          events: [ev.newComment(wire(x, message), at), ...s.events],
          enqueue: await x.events?.prepare(c.productSlug, c, patch, x),
        });
        if (!w.ok && w.reason === "duplicate") {
          duplicate = w.message;
          return null;
        }
        return w;
      });
      if (duplicate) return { message: duplicate, added: false };
      return r ? { message: r.message, added: true } : null;
    },

    async editMessage(conversationId, messageId, body) {
      const r = await mutate(x, conversationId, async (c) => {
        const m = await store.getMessage({ conversationId, id: messageId });
        if (!m || m.body === body) return null;
        const at = x.now();
        return store.updateMessage({
          conversationId,
          expectedSeq: c.lastSeq,
          messageId,
          body,
          updatedAt: at,
          patch: { updatedAt: at },
          events: [ev.commentEdited({ ...wire(x, { ...m, body }), updatedAt: at }, at)],
        });
      });
      return r !== null;
    },

    async removeMessage(conversationId, messageId) {
      let product = "";
      const r = await mutate(x, conversationId, async (c) => {
        product = c.productSlug;
        if (messageId === c.firstMessageId || !(await store.getMessage({ conversationId, id: messageId }))) return null;
        const at = x.now();
        return store.deleteMessage({
          conversationId,
          expectedSeq: c.lastSeq,
          messageId,
          patch: { updatedAt: at },
          events: [ev.commentDeleted(x.msgId(messageId, conversationId), at)],
        });
      });
      if (r !== null) await x.events?.forget(product, [x.msgId(messageId, conversationId)]);
      return r !== null;
    },
  };
}

/** Conversation changes seen on the remote: its state, and its removal. */
function conversationChanges(x: MirrorCx): Pick<Mirror, "setState" | "remove"> {
  const { store } = x;
  return {
    async setState(conversationId, state) {
      let unchanged: ConversationRecord | null = null;
      const r = await mutate(x, conversationId, async (c) => {
        const s = stateChange(c, state, x.now());
        if (!Object.keys(s.patch).length) {
          unchanged = c;
          return null;
        }
        const enqueue = await x.events?.prepare(c.productSlug, c, s.patch, x);
        return store.updateConversation({ conversationId, expectedSeq: c.lastSeq, patch: s.patch, events: s.events, enqueue });
      });
      return r ? r.conversation : unchanged;
    },

    async remove(conversationId) {
      let product = "";
      const r = await mutate(x, conversationId, async (c) => {
        product = c.productSlug;
        const at = x.now();
        return store.deleteConversation({
          conversationId,
          expectedSeq: c.lastSeq,
          deletedAt: at,
          events: [ev.issueDeleted(x.convId(conversationId), at)],
        });
      });
      if (r !== null) await x.events?.forget(product, [x.convId(conversationId)]);
      return r !== null;
    },
  };
}

/** Brings the mirror to a full remote snapshot through the mirror's own single changes. */
async function syncTo(mirror: Mirror, stored: MessageRecord[], conversationId: string, snapshot: MirrorSnapshot) {
  const byId = new Map(stored.map((m) => [m.id, m]));
  const seen = new Set<string>();
  for (const m of [...snapshot.messages].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0))) {
    seen.add(m.id);
    const had = byId.get(m.id);
    if (!had) {
      if (!(await mirror.addMessage(conversationId, m))) return;
    } else if (had.body !== m.body) await mirror.editMessage(conversationId, m.id, m.body);
  }
  for (const m of stored) if (!seen.has(m.id)) await mirror.removeMessage(conversationId, m.id);
  await mirror.setState(conversationId, snapshot.state);
}

export function createMirror(o: MirrorOptions): Mirror {
  const { store, clock } = o;
  const x: MirrorCx = {
    store,
    bus: o.bus,
    logger: o.logger,
    now: () => iso(clock.now()),
    convId: o.publicConversationId ?? ((id: string) => id),
    msgId: o.publicMessageId ?? ((id: string) => id),
    events: o.events,
  };
  const mirror: Mirror = {
    create: (input) => createMirrored(x, input),
    get: (id) => live(x, id),
    ...messageChanges(x),
    ...conversationChanges(x),

    async viewFor(scope, conversationId) {
      const c = await live(x, conversationId);
      if (!c || c.productSlug !== scope.productSlug || c.customerId !== scope.customerId) return null;
      return view(c, await store.listMessages({ conversationId }));
    },

    async duplicate(conversationId, clientMessageId) {
      if (clientMessageId === null) return undefined;
      const dup = (await store.listMessages({ conversationId })).find((m) => m.clientMessageId === clientMessageId);
      return dup ? { id: dup.id, createdAt: dup.createdAt, deduplicated: true } : undefined;
    },

    async sync(conversationId, snapshot) {
      await syncTo(mirror, await store.listMessages({ conversationId }), conversationId, snapshot);
    },
  };
  return mirror;
}
