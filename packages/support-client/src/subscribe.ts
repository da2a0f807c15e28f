// Live streams of one conversation: the platform's EventSource (it reconnects by itself), or a fetch reader
// that reconnects after 1 s doubling to 30 s (each wait in [d/2, d]) and asks for a detail refetch after each return.
import type { StreamEvent } from "@mountkit/support/wire";
import { jitteredDelay, sleep } from "./backoff.js";
import { readSse } from "./sse.js";
import { type ClientContext, conversationPath } from "./transport.js";

/** Anything shaped like the browser's EventSource constructor. */
export type EventSourceLike = new (
  url: string,
) => {
  onmessage: ((ev: { data: string; lastEventId: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onopen?: ((ev: unknown) => void) | null;
  close(): void;
  readonly readyState: number;
};

export interface StreamHandlers {
  onEvent(event: StreamEvent): void;
  /** After a reconnection (fetch reader) or a `resync`: refetch the detail to catch up. */
  onCatchUp?(): void | Promise<void>;
  /**
   * The stream cannot continue: 404 (the conversation is gone or not this customer's), or 401 (the product verifies
   * customers and the signature is missing or wrong: retrying does not mend it).
   */
  onEnd?(reason: "deleted" | "not_found" | "unauthorized" | "closed"): void;
}

export interface Subscription {
  close(): void;
}

const streamUrl = (cx: ClientContext, conversationId: string) => `${cx.base}${conversationPath(conversationId)}/stream?${cx.scope}`;

export function subscribeWithEventSource(cx: ClientContext, ES: EventSourceLike, conversationId: string, h: StreamHandlers): Subscription {
  // the signature rides in the query: an EventSource sends no headers of ours
  const es = new ES(`${streamUrl(cx, conversationId)}${cx.signatureParam}`);
  es.onmessage = (m) => {
    let ev: StreamEvent;
    try {
      ev = JSON.parse(m.data);
    } catch {
      return;
    }
    if (m.lastEventId) ev.id = m.lastEventId;
    h.onEvent(ev);
    if (ev.type === "resync") void h.onCatchUp?.();
    if (ev.type === "issue_deleted") {
      es.close();
      h.onEnd?.("deleted");
    }
  };
  return { close: () => es.close() };
}

/** Where one fetch connection left the stream: its last event id, and whether a reconnection is owed a catch-up. */
interface FetchStreamState {
  lastEventId: string | undefined;
  attempt: number;
  reconnecting: boolean;
}

/** Reads one connection's frames; answers how the stream ended, or undefined when it should reconnect. */
async function readConnection(body: ReadableStream<Uint8Array>, s: FetchStreamState, h: StreamHandlers): Promise<"deleted" | undefined> {
  for await (const m of readSse(body)) {
    if (m.id !== undefined) s.lastEventId = m.id;
    let ev: StreamEvent;
    try {
      ev = JSON.parse(m.data);
    } catch {
      continue;
    }
    if (m.id) ev.id = m.id;
    if (ev.type === "connected") {
      s.attempt = 0;
      h.onEvent(ev);
      if (s.reconnecting) {
        s.reconnecting = false;
        await h.onCatchUp?.();
      }
      continue;
    }
    h.onEvent(ev);
    if (ev.type === "resync") await h.onCatchUp?.();
    if (ev.type === "issue_deleted") return "deleted";
  }
  return undefined;
}

/** One connection: its end reason when the stream cannot continue, else undefined (reconnect). */
async function connectOnce(
  cx: ClientContext,
  conversationId: string,
  s: FetchStreamState,
  h: StreamHandlers,
  signal: AbortSignal,
): Promise<"deleted" | "not_found" | "unauthorized" | undefined> {
  try {
    const res = await cx.doFetch(streamUrl(cx, conversationId), {
      headers: { ...cx.headers, accept: "text/event-stream", ...(s.lastEventId ? { "last-event-id": s.lastEventId } : {}) },
      signal,
    });
    if (res.status === 401) {
      await res.body?.cancel().catch(() => {});
      return "unauthorized";
    }
    if (res.status === 404 || res.status === 400) {
      await res.body?.cancel().catch(() => {});
      return "not_found";
    }
    if (res.ok && res.body) return await readConnection(res.body, s, h);
    await res.body?.cancel().catch(() => {});
  } catch {
    // network failure or abort: retry unless closed
  }
  return undefined;
}

export function subscribeWithFetch(cx: ClientContext, conversationId: string, h: StreamHandlers): Subscription {
  const abort = new AbortController();
  const s: FetchStreamState = { lastEventId: undefined, attempt: 0, reconnecting: false };
  void (async () => {
    while (!abort.signal.aborted) {
      const ended = await connectOnce(cx, conversationId, s, h, abort.signal);
      if (ended) {
        h.onEnd?.(ended);
        return;
      }
      if (abort.signal.aborted) break;
      await sleep(jitteredDelay(s.attempt++, cx.reconnect, cx.random), abort.signal);
      s.reconnecting = true;
    }
    h.onEnd?.("closed");
  })();
  return { close: () => abort.abort() };
}
