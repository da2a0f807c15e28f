// The support client: interface A calls, message retry with a stable clientMessageId, and live streams
// that reconnect (full jitter under 1 s doubling to 30 s, then a detail refetch) or use the platform's EventSource.
import { jitteredDelay, sleep } from "./backoff.js";
import { defaultStorage, type KeyValueStorage, newClientMessageId, persistentCustomerId } from "./ids.js";
import { readSse } from "./sse.js";

export interface Summary {
  id: string;
  subject: string;
  status: string;
  isOpen: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface Comment {
  id: string;
  body: string | null;
  author: string;
  createdAt: string;
  isCustomer: boolean;
}

export interface Issue {
  id: string;
  title: string;
  body: string;
  state: "open" | "closed";
  status?: string;
  labels: string[];
  createdAt: string;
  updatedAt: string;
}

/** A conversation's status as the server reports it. */
export type ConversationStatus = "new" | "waiting-for-agent" | "waiting-for-customer" | "resolved" | "closed";

/** One stream event of type `T` with its `data` (events without data have none). */
type Event<T extends string, D = undefined> = {
  type: T;
  createdAt: string;
  /** The frame's `id:` (absent on `connected` and `resync`). */
  id?: string;
} & (D extends undefined ? { data?: undefined } : { data: D });

/** What a conversation stream carries (CONTRACT §3), discriminated by `type`. */
export type StreamEvent =
  | Event<"connected">
  | Event<"new_comment", Comment>
  | Event<"comment_edited", Comment & { updatedAt: string }>
  | Event<"comment_deleted", { id: string }>
  | Event<"state_update", { state: "open" | "closed"; status: ConversationStatus }>
  | Event<"labels_changed", { labels: string[]; status: ConversationStatus }>
  | Event<"assignee_changed", { assignee: string | null }>
  | Event<"issue_deleted", { id: string }>
  | Event<"resync">;

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

export interface SupportClientOptions {
  /** Where interface A is served (the host's origin plus any mount prefix). */
  baseUrl: string;
  productSlug: string;
  /** Default: a persistent `cust_<UUID>` from `storage`. */
  customerId?: string;
  storage?: KeyValueStorage;
  fetch?: typeof fetch;
  /** Use the platform's EventSource for streams (it reconnects by itself). Default: the fetch reader. */
  EventSource?: EventSourceLike;
  /** Attempts for a message POST, a read or a close on network errors, 5xx and 429. Default 5. */
  postAttempts?: number;
  /** Cap of the first retry delay of those calls (full jitter), doubling. Default 500 ms. */
  postRetryMs?: number;
  /** Stream reconnection delays: full jitter under a cap of 1 s doubling to 30 s by default. */
  reconnect?: { initialMs: number; maxMs: number };
  /** The backoff jitter's random source, numbers in [0, 1) (tests inject one). Default Math.random. */
  random?: () => number;
}

export class SupportApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly requestId: string | undefined,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
    this.name = "SupportApiError";
  }
  /** 5xx, 429 and network failures may be retried; other 4xx need a fixed request. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

export interface StreamHandlers {
  onEvent(event: StreamEvent): void;
  /** After a reconnection (fetch reader) or a `resync`: refetch the detail to catch up. */
  onCatchUp?(): void | Promise<void>;
  /** The stream cannot continue (404: the conversation is gone or not this customer's). */
  onEnd?(reason: "deleted" | "not_found" | "closed"): void;
}

export interface Subscription {
  close(): void;
}

export interface SupportClient {
  readonly customerId: string;
  readonly productSlug: string;
  create(input: { message: string; subject?: string; clientMessageId?: string }): Promise<{ conversationId: string; createdAt: string }>;
  list(): Promise<Summary[]>;
  find(): Promise<string | undefined>;
  get(conversationId: string): Promise<{ issue: Issue; comments: Comment[] }>;
  /** Posts with a `clientMessageId` (generated when absent), retrying retryable failures with the same id. */
  send(
    conversationId: string,
    message: string,
    clientMessageId?: string,
  ): Promise<{ id: string; createdAt: string; clientMessageId: string }>;
  /** Resolves or closes; retried like a send (a close repeated on a conversation in that state changes nothing). */
  close(conversationId: string, action: "resolve" | "close"): Promise<{ success: true; message: string }>;
  subscribe(conversationId: string, handlers: StreamHandlers): Subscription;
}

export function createSupportClient(options: SupportClientOptions): SupportClient {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const customerId = options.customerId ?? persistentCustomerId(options.storage ?? defaultStorage());
  const productSlug = options.productSlug;
  const scope = `productSlug=${encodeURIComponent(productSlug)}&customerId=${encodeURIComponent(customerId)}`;
  const postAttempts = options.postAttempts ?? 5;
  const postRetry = { initialMs: options.postRetryMs ?? 500, maxMs: 30_000 };
  const reconnect = options.reconnect ?? { initialMs: 1000, maxMs: 30_000 };
  const random = options.random ?? Math.random;

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await doFetch(`${base}${path}`, {
        method,
        headers: body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (e) {
      throw new SupportApiError(0, `network error: ${(e as Error).message}`, undefined, undefined);
    }
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const ra = Number(res.headers.get("retry-after"));
      throw new SupportApiError(
        res.status,
        json?.error ?? `HTTP ${res.status}`,
        json?.requestId,
        Number.isFinite(ra) && ra > 0 ? ra * 1000 : undefined,
      );
    }
    return json as T;
  }

  /**
   * Runs `attempt` again on 429, 5xx and network failures (waiting full jitter, at least Retry-After), up to
   * `postAttempts` times. Only for calls that are safe to repeat: reads, a send with its fixed clientMessageId,
   * and close (on a conversation already in that state it changes nothing).
   */
  async function retrying<T>(attempt: () => Promise<T>): Promise<T> {
    for (let n = 0; ; n++) {
      try {
        return await attempt();
      } catch (e) {
        const err = e as SupportApiError;
        if (!(e instanceof SupportApiError) || !err.retryable || n + 1 >= postAttempts) throw e;
        await sleep(Math.max(err.retryAfterMs ?? 0, jitteredDelay(n, postRetry, random)));
      }
    }
  }
  const read = <T>(path: string) => retrying(() => call<T>("GET", path));

  const conv = (id: string) => `/api/conversations/${encodeURIComponent(id)}`;

  function subscribeWithEventSource(ES: EventSourceLike, conversationId: string, h: StreamHandlers): Subscription {
    const es = new ES(`${base}${conv(conversationId)}/stream?${scope}`);
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

  function subscribeWithFetch(conversationId: string, h: StreamHandlers): Subscription {
    const abort = new AbortController();
    let lastEventId: string | undefined;
    void (async () => {
      let attempt = 0;
      let reconnecting = false;
      while (!abort.signal.aborted) {
        let ended: "deleted" | "not_found" | undefined;
        try {
          const res = await doFetch(`${base}${conv(conversationId)}/stream?${scope}`, {
            headers: { accept: "text/event-stream", ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
            signal: abort.signal,
          });
          if (res.status === 404 || res.status === 400) {
            await res.body?.cancel().catch(() => {});
            ended = "not_found";
          } else if (res.ok && res.body) {
            for await (const m of readSse(res.body)) {
              if (m.id !== undefined) lastEventId = m.id;
              let ev: StreamEvent;
              try {
                ev = JSON.parse(m.data);
              } catch {
                continue;
              }
              if (m.id) ev.id = m.id;
              if (ev.type === "connected") {
                attempt = 0;
                h.onEvent(ev);
                if (reconnecting) {
                  reconnecting = false;
                  await h.onCatchUp?.();
                }
                continue;
              }
              h.onEvent(ev);
              if (ev.type === "resync") await h.onCatchUp?.();
              if (ev.type === "issue_deleted") {
                ended = "deleted";
                break;
              }
            }
          } else {
            await res.body?.cancel().catch(() => {});
          }
        } catch {
          // network failure or abort: retry below unless closed
        }
        if (ended) {
          h.onEnd?.(ended);
          return;
        }
        if (abort.signal.aborted) break;
        await sleep(jitteredDelay(attempt++, reconnect, random), abort.signal);
        reconnecting = true;
      }
      h.onEnd?.("closed");
    })();
    return { close: () => abort.abort() };
  }

  return {
    customerId,
    productSlug,
    create: ({ message, subject, clientMessageId }) =>
      call("POST", "/api/conversations", {
        productSlug,
        customerId,
        message,
        ...(subject ? { subject } : {}),
        ...(clientMessageId ? { clientMessageId } : {}),
      }),
    list: async () => (await read<{ conversations: Summary[] }>(`/api/conversations/list?${scope}`)).conversations,
    find: async () => {
      const r = await read<{ found: boolean; conversationId?: string }>(`/api/conversations/find?${scope}`);
      return r.found ? r.conversationId : undefined;
    },
    get: (id) => read(`${conv(id)}?${scope}`),
    async send(conversationId, message, clientMessageId = newClientMessageId()) {
      const r = await retrying(() =>
        call<{ id: string; createdAt: string }>("POST", `${conv(conversationId)}/messages`, {
          productSlug,
          customerId,
          message,
          clientMessageId,
        }),
      );
      return { ...r, clientMessageId };
    },
    close: (id, action) => retrying(() => call("POST", `${conv(id)}/close`, { productSlug, customerId, action })),
    subscribe: (id, handlers) =>
      options.EventSource ? subscribeWithEventSource(options.EventSource, id, handlers) : subscribeWithFetch(id, handlers),
  };
}
