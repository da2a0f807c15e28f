// The support client: interface A calls, message retry with a stable clientMessageId, and live streams
// that reconnect (full jitter under 1 s doubling to 30 s, then a detail refetch) or use the platform's EventSource.
import type { Comment, Issue, Status, StreamEvent, Summary } from "@mountkit/support/wire";
import { defaultStorage, type KeyValueStorage, newClientMessageId, persistentCustomerId } from "./ids.js";
import { type EventSourceLike, type StreamHandlers, type Subscription, subscribeWithEventSource, subscribeWithFetch } from "./subscribe.js";
import { type ClientContext, call, conversationPath as conv, read, retrying, SupportApiError } from "./transport.js";

export type { Comment, EventSourceLike, Issue, StreamEvent, StreamHandlers, Subscription, Summary };
export { SupportApiError };

/** A conversation's status as the server reports it. */
export type ConversationStatus = Status;

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

function clientContext(options: SupportClientOptions, customerId: string): ClientContext {
  return {
    base: options.baseUrl.replace(/\/+$/, ""),
    doFetch: options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init)),
    scope: `productSlug=${encodeURIComponent(options.productSlug)}&customerId=${encodeURIComponent(customerId)}`,
    postAttempts: options.postAttempts ?? 5,
    postRetry: { initialMs: options.postRetryMs ?? 500, maxMs: 30_000 },
    reconnect: options.reconnect ?? { initialMs: 1000, maxMs: 30_000 },
    random: options.random ?? Math.random,
  };
}

export function createSupportClient(options: SupportClientOptions): SupportClient {
  const customerId = options.customerId ?? persistentCustomerId(options.storage ?? defaultStorage());
  const productSlug = options.productSlug;
  const cx = clientContext(options, customerId);
  const { scope } = cx;
  return {
    customerId,
    productSlug,
    create: ({ message, subject, clientMessageId }) =>
      call(cx, "POST", "/api/conversations", {
        productSlug,
        customerId,
        message,
        ...(subject ? { subject } : {}),
        ...(clientMessageId ? { clientMessageId } : {}),
      }),
    list: async () => (await read<{ conversations: Summary[] }>(cx, `/api/conversations/list?${scope}`)).conversations,
    find: async () => {
      const r = await read<{ found: boolean; conversationId?: string }>(cx, `/api/conversations/find?${scope}`);
      return r.found ? r.conversationId : undefined;
    },
    get: (id) => read(cx, `${conv(id)}?${scope}`),
    async send(conversationId, message, clientMessageId = newClientMessageId()) {
      const r = await retrying(cx, () =>
        call<{ id: string; createdAt: string }>(cx, "POST", `${conv(conversationId)}/messages`, {
          productSlug,
          customerId,
          message,
          clientMessageId,
        }),
      );
      return { ...r, clientMessageId };
    },
    close: (id, action) => retrying(cx, () => call(cx, "POST", `${conv(id)}/close`, { productSlug, customerId, action })),
    subscribe: (id, handlers) =>
      options.EventSource ? subscribeWithEventSource(cx, options.EventSource, id, handlers) : subscribeWithFetch(cx, id, handlers),
  };
}
