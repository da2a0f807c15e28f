// The streams the typed api opens: a conversation's events (`connected` first, then replay after `Last-Event-ID`,
// or `resync` when those events are gone or the id was never issued, and live events), the per-customer cap on
// a customer's streams, and a product's change notices for an inbox.
import { type Channel, type Clock, channel, type SseEvent } from "@mountkit/core";
import type { PubSub } from "@mountkit/core/jobs";
import type { LocalStream } from "../domain/backend.js";
import { isNotice, productTopic } from "../domain/events.js";
import type { Product } from "../domain/products.js";
import { supportError } from "../errors.js";
import type { ConversationRecord } from "../store/types.js";
import { resyncEvent, type StreamHub } from "./hub.js";

/** What the streams are opened from: the hub's feeds, the bus's product notices, and the per-customer count. */
export interface StreamDeps {
  hub: StreamHub;
  bus: PubSub;
  clock: Clock;
  /** Open streams per customer, in this process. */
  streamsByCustomer: Map<string, number>;
}

/** The last event a client saw: absent, a number, or `"invalid"` (not an id this server writes). */
export type LastEventId = number | "invalid" | undefined;

const LAST_EVENT_ID = /^\d{1,15}$/;

/** The client's `Last-Event-ID` (header, else query). */
export function parseLastEventId(header: string | undefined, query: unknown): LastEventId {
  const raw = header ?? (typeof query === "string" ? query : undefined);
  const s = raw?.trim();
  if (!s) return undefined;
  return LAST_EVENT_ID.test(s) ? Number(s) : "invalid";
}

const connected = (now: number): SseEvent => ({ data: JSON.stringify({ type: "connected", createdAt: new Date(now).toISOString() }) });

/**
 * The events of one conversation, shared by interface A and the agent side: `connected` first, then replay after
 * `lastEventId` (or `resync` when the id was never issued here) and live events.
 */
export function conversationEvents(
  s: StreamDeps,
  input: { conversation: ConversationRecord; lastEventId: LastEventId; signal?: AbortSignal; onClose?: () => void },
): Channel<SseEvent> {
  const c = input.conversation;
  // an id this conversation never issued (ahead of its log: another conversation's, a forged one; not a
  // number) says nothing of what the client has seen: it refetches the detail, and goes on from now
  const last = input.lastEventId;
  const unknown = last === "invalid" || (last !== undefined && last > c.lastSeq);
  const fromSeq = last === undefined || unknown ? c.lastSeq : last;
  const now = s.clock.now();
  return s.hub.open({
    conversationId: c.id,
    fromSeq,
    currentSeq: c.lastSeq,
    first: unknown ? [connected(now), resyncEvent(c.lastSeq, now)] : [connected(now)],
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.onClose ? { onClose: input.onClose } : {}),
  });
}

/**
 * A customer's stream of the local conversation their product's backend opened, counted against the product's
 * `maxStreamsPerCustomer` in this process (429 past it); the count and the backend's `release` end with the stream.
 */
export function customerEvents(
  s: StreamDeps,
  input: { product: Product; local: LocalStream; customerId: string; lastEventId: LastEventId; signal?: AbortSignal },
): Channel<SseEvent> {
  const { product, local, customerId } = input;
  const open = s.streamsByCustomer.get(customerId) ?? 0;
  if (open >= product.limits.maxStreamsPerCustomer) {
    local.release?.();
    throw supportError("too_many_streams", { headers: { "retry-after": "1" } });
  }
  s.streamsByCustomer.set(customerId, open + 1);
  const onClose = () => {
    const n = (s.streamsByCustomer.get(customerId) ?? 1) - 1;
    if (n <= 0) s.streamsByCustomer.delete(customerId);
    else s.streamsByCustomer.set(customerId, n);
    local.release?.();
  };
  return conversationEvents(s, { conversation: local.conversation, lastEventId: input.lastEventId, signal: input.signal, onClose });
}

/**
 * A product's change notices: `connected`, then `conversation_changed` per notice on the bus, `notes_changed` per change
 * of a conversation's private notes (not replayed).
 */
export function productNotices(s: StreamDeps, productSlug: string, signal?: AbortSignal): Channel<SseEvent> {
  const stamp = () => new Date(s.clock.now()).toISOString();
  let unsubscribe = () => {};
  // overflowing (a client that stopped reading) closes the stream: the client reconnects and relists
  const events = channel<SseEvent>({ signal, maxBuffered: 1000, onClose: () => unsubscribe() });
  events.push(connected(s.clock.now()));
  if (!events.closed)
    unsubscribe = s.bus.subscribe(productTopic(productSlug), (m) => {
      if (!isNotice(m)) return;
      // a private note changed: agents only hear of it here, never on a conversation's stream (domain/agent-notes.ts)
      if ((m as { notes?: unknown }).notes === true) {
        const data = { conversationId: m.conversationId };
        return void events.push({ data: JSON.stringify({ type: "notes_changed", data, createdAt: stamp() }) });
      }
      const data = { conversationId: m.conversationId, seq: m.seq };
      events.push({ data: JSON.stringify({ type: "conversation_changed", data, createdAt: stamp() }) });
    });
  return events;
}
