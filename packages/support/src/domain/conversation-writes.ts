// What the built-in backend and the agent operations share over the service's own store: the read, decide,
// conditional-write loop that retries on a concurrent change, the bus notice after each write, new messages.
import { type Clock, type IdGenerator, iso, type Logger } from "@mountkit/core";
import type { PubSub } from "@mountkit/core/jobs";
import { supportError } from "../errors.js";
import type { ConversationPatch, ConversationRecord, EventInput, MessageRecord, SupportStore } from "../store/types.js";
import { conversationTopic, ev, productTopic } from "./events.js";
import type { SupportEvents } from "./outbound.js";
import { type Status, stateOf, statusChangeEffects, wireLabels } from "./status.js";
import { comment } from "./views.js";

export const CUSTOMER_AUTHOR = "Customer";
const MAX_ATTEMPTS = 20;

export interface ConversationsDeps {
  store: SupportStore;
  bus: PubSub;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  /** Outbound events (webhooks) of the changes; none when absent. */
  events?: SupportEvents;
}

export interface StoreCx extends ConversationsDeps {
  now(): string;
}

export const storeCx = (deps: ConversationsDeps): StoreCx => ({ ...deps, now: () => iso(deps.clock.now()) });

/** Events and patch that follow from moving `from` -> `to`. */
export function statusEvents(c: ConversationRecord, to: Status, at: string): { patch: ConversationPatch; events: EventInput[] } {
  const fx = statusChangeEffects(c.status, to);
  const events: EventInput[] = [];
  if (fx.stateFlipped) events.push(ev.stateUpdate(stateOf(to), to, at));
  if (fx.labelsChanged) events.push(ev.labelsChanged(wireLabels(to, c.labels), to, at));
  return { patch: fx.labelsChanged ? { status: to, updatedAt: at } : {}, events };
}

export function notify(x: StoreCx, c: { id: string; productSlug: string }, seqs: number[]) {
  const seq = seqs[seqs.length - 1];
  if (seq === undefined) return;
  const conversationId = c.id;
  // A lost notice only delays delivery until the next one; the log is the source of truth.
  x.bus
    .publish(conversationTopic(conversationId), { conversationId, seq })
    .catch((error) => x.logger.warn("support: publish failed", { conversationId, error }));
  x.bus
    .publish(productTopic(c.productSlug), { conversationId, seq })
    .catch((error) => x.logger.warn("support: publish failed", { conversationId, error }));
}

/** The conversation, unless missing or deleted (`conversation_not_found`). */
export async function live(x: StoreCx, id: string): Promise<ConversationRecord> {
  const c = await x.store.getConversation({ id });
  if (!c || c.deletedAt) throw supportError("conversation_not_found");
  return c;
}

/** Reads, decides, writes conditionally; on a concurrent change, decides again on fresh data. */
export async function mutate<R extends { ok: true; seqs: number[] } | { ok: false; reason: string }>(
  x: StoreCx,
  load: () => Promise<ConversationRecord>,
  write: (c: ConversationRecord) => Promise<R | null> | R | null,
): Promise<Extract<R, { ok: true }> | null> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const c = await load();
    const r = await write(c);
    if (r === null) return null;
    if (r.ok) {
      notify(x, c, r.seqs);
      x.events?.committed();
      return r as Extract<R, { ok: true }>;
    }
    if (r.reason === "not_found") throw supportError("conversation_not_found");
  }
  throw new Error("support: too many concurrent writes on one conversation");
}

/** A message of `conversationId` written at `at`, with a fresh id. */
export function newMessage(
  x: StoreCx,
  conversationId: string,
  m: { body: string | null; author: string; isCustomer: boolean; clientMessageId: string | null },
  at: string,
): Omit<MessageRecord, "seq"> {
  return { id: x.ids("cmt"), conversationId, ...m, createdAt: at, updatedAt: at };
}

/** Appends `message` as a `new_comment` and moves the conversation to `next` in the same conditional write. */
export async function appendWithStatus(x: StoreCx, c: ConversationRecord, message: Omit<MessageRecord, "seq">, next: Status, at: string) {
  const s = statusEvents(c, next, at);
  const patch = { ...s.patch, updatedAt: at };
  return x.store.appendMessage({
    conversationId: message.conversationId,
    expectedSeq: c.lastSeq,
    message,
    patch,
    events: [ev.newComment(comment({ ...message, seq: 0 }), at), ...s.events],
    enqueue: await x.events?.prepare(c.productSlug, c, patch),
  });
}
