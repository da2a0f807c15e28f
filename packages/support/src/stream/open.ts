// Opens one SSE stream of a conversation: per-customer stream cap, `connected` first, then replay
// after `Last-Event-ID` (or `resync` when those events are gone or the id was never issued) and live events.
import { type SseResult, sse } from "@mountkit/core";
import type { Product } from "../domain/products.js";
import { supportError } from "../errors.js";
import type { SupportContext } from "../http/context.js";
import type { ConversationRecord } from "../store/types.js";
import { resyncEvent } from "./hub.js";

const LAST_EVENT_ID = /^\d{1,15}$/;

/** The client's `Last-Event-ID` (header, else query): absent, a number, or `"invalid"` (not an id this server writes). */
export function parseLastEventId(header: string | undefined, query: unknown): number | "invalid" | undefined {
  const raw = header ?? (typeof query === "string" ? query : undefined);
  const s = raw?.trim();
  if (!s) return undefined;
  return LAST_EVENT_ID.test(s) ? Number(s) : "invalid";
}

export function openStream(
  cx: SupportContext,
  input: {
    product: Product;
    conversation: ConversationRecord;
    customerId: string;
    lastEventId: number | "invalid" | undefined;
    signal: AbortSignal;
    /** Runs once when the stream ends (a backend's poller reference). */
    release?: () => void;
  },
): SseResult {
  const { product, conversation: c, customerId } = input;
  const open = cx.streamsByCustomer.get(customerId) ?? 0;
  if (open >= product.limits.maxStreamsPerCustomer) {
    input.release?.();
    throw supportError("too_many_streams", { headers: { "retry-after": "1" } });
  }
  cx.streamsByCustomer.set(customerId, open + 1);
  const release = () => {
    const n = (cx.streamsByCustomer.get(customerId) ?? 1) - 1;
    if (n <= 0) cx.streamsByCustomer.delete(customerId);
    else cx.streamsByCustomer.set(customerId, n);
    input.release?.();
  };
  return conversationEvents(cx, { conversation: c, lastEventId: input.lastEventId, signal: input.signal, onClose: release });
}

/**
 * The SSE stream of one conversation, shared by interface A and the agent side: `connected` first, then
 * replay after `lastEventId` (or `resync` when the id was never issued here) and live events.
 */
export function conversationEvents(
  cx: SupportContext,
  input: { conversation: ConversationRecord; lastEventId: number | "invalid" | undefined; signal: AbortSignal; onClose?: () => void },
): SseResult {
  const c = input.conversation;
  // an id this conversation never issued (ahead of its log: another conversation's, a forged one; not a
  // number) says nothing of what the client has seen: it refetches the detail, and goes on from now
  const last = input.lastEventId;
  const unknown = last === "invalid" || (last !== undefined && last > c.lastSeq);
  const fromSeq = last === undefined || unknown ? c.lastSeq : last;
  const now = cx.clock.now();
  const connected = { data: JSON.stringify({ type: "connected", createdAt: new Date(now).toISOString() }) };
  const events = cx.hub.open({
    conversationId: c.id,
    fromSeq,
    currentSeq: c.lastSeq,
    first: unknown ? [connected, resyncEvent(c.lastSeq, now)] : [connected],
    signal: input.signal,
    ...(input.onClose ? { onClose: input.onClose } : {}),
  });
  return sse(events, { retryMs: 1000, heartbeatMs: cx.heartbeatMs });
}
