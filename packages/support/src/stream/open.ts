// Opens one SSE stream of a conversation: per-customer stream cap, `connected` first, then replay
// after `Last-Event-ID` (or `resync` when those events are gone) and live events.
import { type SseResult, sse } from "@mountkit/core";
import type { Product } from "../domain/products.js";
import { supportError } from "../errors.js";
import type { SupportContext } from "../http/context.js";
import type { ConversationRecord } from "../store/types.js";

const LAST_EVENT_ID = /^\d{1,15}$/;

export function parseLastEventId(header: string | undefined, query: unknown): number | undefined {
  const raw = header ?? (typeof query === "string" ? query : undefined);
  if (raw === undefined) return undefined;
  const s = raw.trim();
  return LAST_EVENT_ID.test(s) ? Number(s) : undefined;
}

export function openStream(
  cx: SupportContext,
  input: {
    product: Product;
    conversation: ConversationRecord;
    customerId: string;
    lastEventId: number | undefined;
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
  // a Last-Event-ID ahead of the log (another conversation's id, a forged value) means "from now"
  const fromSeq = input.lastEventId === undefined ? c.lastSeq : Math.min(input.lastEventId, c.lastSeq);
  const connected = { data: JSON.stringify({ type: "connected", createdAt: new Date(cx.clock.now()).toISOString() }) };
  const events = cx.hub.open({
    conversationId: c.id,
    fromSeq,
    currentSeq: c.lastSeq,
    first: [connected],
    signal: input.signal,
    onClose: release,
  });
  return sse(events, { retryMs: 1000, heartbeatMs: cx.heartbeatMs });
}
