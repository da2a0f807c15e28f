// The support client: interface A calls, message retry with a stable clientMessageId, and live streams
// that reconnect (1 s doubling to 30 s, each wait in [d/2, d], then a detail refetch) or use the platform's EventSource.
import type { Attachment, Comment, Issue, Rating, Status, StreamEvent, Summary } from "@mountkit/support/wire";
import { defaultStorage, type KeyValueStorage, newClientMessageId, persistentCustomerId } from "./ids.js";
import { type EventSourceLike, type StreamHandlers, type Subscription, subscribeWithEventSource, subscribeWithFetch } from "./subscribe.js";
import { type ClientContext, call, conversationPath as conv, read, readPage, retrying, SupportApiError } from "./transport.js";
import { attachmentUrl, type UploadOptions, uploadFile } from "./upload.js";

export type { Attachment, UploadOptions };
export type { Comment, EventSourceLike, Issue, Rating, StreamEvent, StreamHandlers, Subscription, Summary };
export { SupportApiError };

/** A conversation's status as the server reports it. */
export type ConversationStatus = Status;

export interface SupportClientOptions {
  /** Where interface A is served (the host's origin plus any mount prefix). */
  baseUrl: string;
  productSlug: string;
  /** Default: a persistent `cust_<UUID>` from `storage`. */
  customerId?: string;
  /**
   * The customerId's signature, for a product that verifies customers (docs/support.md#verified-customers): hex
   * HMAC-SHA256 of the id with the product's secret, computed by the host's server. Sent as `X-Customer-Signature`
   * on every call, and as the `customerSignature` query parameter on EventSource streams (which cannot send headers).
   */
  customerSignature?: string;
  storage?: KeyValueStorage;
  fetch?: typeof fetch;
  /** Use the platform's EventSource for streams (it reconnects by itself). Default: the fetch reader. */
  EventSource?: EventSourceLike;
  /** Attempts for a message POST, a read or a close on network errors, 5xx and 429. Default 5. */
  postAttempts?: number;
  /** First retry delay of those calls, doubling; each wait within [d/2, d] of the doubled delay d. Default 500 ms. */
  postRetryMs?: number;
  /** Stream reconnection delays: 1 s doubling to 30 s by default; each wait within [d/2, d] of the doubled delay d. */
  reconnect?: { initialMs: number; maxMs: number };
  /** The backoff jitter's random source, numbers in [0, 1) (tests inject one). Default Math.random. */
  random?: () => number;
}

export interface SupportClient {
  readonly customerId: string;
  readonly productSlug: string;
  /**
   * Starts a conversation. With a `clientMessageId` it is retried like a send (a retry after a lost answer returns the
   * first conversation); `attachments` are ids from {@link SupportClient.upload}.
   */
  create(input: {
    message: string;
    subject?: string;
    clientMessageId?: string;
    attachments?: string[];
  }): Promise<{ conversationId: string; createdAt: string }>;
  /** Every conversation, most recent activity first: the pages interface A answers, followed to the end. */
  list(): Promise<Summary[]>;
  /**
   * One page of the customer's conversations (`limit` per page, the server's default 50) and, when more follow,
   * the URL of the next (`Link: rel="next"`): pass it back as `next` for that page.
   */
  listPage(input?: { limit?: number; next?: string }): Promise<{ conversations: Summary[]; next?: string }>;
  find(): Promise<string | undefined>;
  /** The detail: the issue (first message) and later comments. */
  get(conversationId: string): Promise<{ issue: Issue; comments: Comment[] }>;
  /** The customer's rating, `null` until rated; rejects with 501 when the product's backend keeps no ratings. */
  rating(conversationId: string): Promise<{ rating: Rating | null }>;
  /**
   * Posts with a `clientMessageId` (generated when absent), retrying retryable failures with the same id; `attachments`
   * are ids from {@link SupportClient.upload}.
   */
  send(
    conversationId: string,
    message: string,
    clientMessageId?: string,
    options?: { attachments?: string[] },
  ): Promise<{ id: string; createdAt: string; clientMessageId: string }>;
  /**
   * Uploads a file (PNG, JPEG, GIF, WebP, PDF or plain text, sniffed by the server) to name in a message's
   * `attachments`. In a browser (no `fetch` option) it reports progress. A refusal rejects with the server's message:
   * 413 too large, 415 not an allowed type, 429 past the customer's daily uploads (docs/support.md#attachments).
   */
  upload(file: Blob, options?: UploadOptions): Promise<Attachment>;
  /** Where a file of this customer's messages downloads from, identity in the query (usable as an `<img src>`). */
  attachmentUrl(attachmentId: string): string;
  /** Resolves or closes; retried like a send (a close repeated on a conversation in that state changes nothing). */
  close(conversationId: string, action: "resolve" | "close"): Promise<{ success: true; message: string }>;
  /**
   * Rates a resolved or closed conversation 1 (poor) to 5 (great), with an optional comment (up to 2,000 characters);
   * rating again replaces the rating. Retried like a send (the same rating twice keeps one). Rejects with 409 while the
   * conversation is open, 501 when the product's backend keeps no ratings (docs/support.md#ratings).
   */
  rate(conversationId: string, rating: { score: number; comment?: string | null }): Promise<{ rating: Rating }>;
  subscribe(conversationId: string, handlers: StreamHandlers): Subscription;
}

function clientContext(options: SupportClientOptions, customerId: string): ClientContext {
  return {
    base: options.baseUrl.replace(/\/+$/, ""),
    doFetch: options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init)),
    scope: `productSlug=${encodeURIComponent(options.productSlug)}&customerId=${encodeURIComponent(customerId)}`,
    headers: options.customerSignature ? { "x-customer-signature": options.customerSignature } : {},
    signatureParam: options.customerSignature ? `&customerSignature=${encodeURIComponent(options.customerSignature)}` : "",
    postAttempts: options.postAttempts ?? 5,
    postRetry: { initialMs: options.postRetryMs ?? 500, maxMs: 30_000 },
    reconnect: options.reconnect ?? { initialMs: 1000, maxMs: 30_000 },
    random: options.random ?? Math.random,
  };
}

/** Interface A's largest list page. */
const LIST_PAGE_MAX = 200;

async function listPage(cx: ClientContext, input: { limit?: number; next?: string }) {
  const url = input.next ?? `/api/conversations/list?${cx.scope}${input.limit ? `&limit=${input.limit}` : ""}`;
  const r = await readPage<{ conversations: Summary[] }>(cx, url);
  return { conversations: r.body.conversations, ...(r.next ? { next: r.next } : {}) };
}

export function createSupportClient(options: SupportClientOptions): SupportClient {
  const customerId = options.customerId ?? persistentCustomerId(options.storage ?? defaultStorage());
  const productSlug = options.productSlug;
  const cx = clientContext(options, customerId);
  const { scope } = cx;
  return {
    customerId,
    productSlug,
    create({ message, subject, clientMessageId, attachments }) {
      const post = () =>
        call<{ conversationId: string; createdAt: string }>(cx, "POST", "/api/conversations", {
          productSlug,
          customerId,
          message,
          ...(subject ? { subject } : {}),
          ...(clientMessageId ? { clientMessageId } : {}),
          ...(attachments?.length ? { attachments } : {}),
        });
      return clientMessageId ? retrying(cx, post) : post();
    },
    listPage: (input = {}) => listPage(cx, input),
    async list() {
      const all: Summary[] = [];
      const seen = new Set<string>();
      let page = await listPage(cx, { limit: LIST_PAGE_MAX });
      for (;;) {
        all.push(...page.conversations);
        if (!page.next || seen.has(page.next)) return all;
        seen.add(page.next);
        page = await listPage(cx, { next: page.next });
      }
    },
    find: async () => {
      const r = await read<{ found: boolean; conversationId?: string }>(cx, `/api/conversations/find?${scope}`);
      return r.found ? r.conversationId : undefined;
    },
    get: (id) => read(cx, `${conv(id)}?${scope}`),
    rating: (id) => read(cx, `${conv(id)}/rating?${scope}`),
    async send(conversationId, message, clientMessageId = newClientMessageId(), options = {}) {
      const attachments = options.attachments?.length ? { attachments: options.attachments } : {};
      const r = await retrying(cx, () =>
        call<{ id: string; createdAt: string }>(cx, "POST", `${conv(conversationId)}/messages`, {
          productSlug,
          customerId,
          message,
          clientMessageId,
          ...attachments,
        }),
      );
      return { ...r, clientMessageId };
    },
    upload: (file, o) => uploadFile(cx, file, o, !options.fetch && typeof XMLHttpRequest !== "undefined"),
    attachmentUrl: (id) => attachmentUrl(cx, id),
    close: (id, action) => retrying(cx, () => call(cx, "POST", `${conv(id)}/close`, { productSlug, customerId, action })),
    rate: (id, { score, comment }) =>
      retrying(cx, () =>
        call<{ rating: Rating }>(cx, "POST", `${conv(id)}/rating`, {
          productSlug,
          customerId,
          score,
          ...(comment === undefined ? {} : { comment }),
        }),
      ),
    subscribe: (id, handlers) =>
      options.EventSource ? subscribeWithEventSource(cx, options.EventSource, id, handlers) : subscribeWithFetch(cx, id, handlers),
  };
}
