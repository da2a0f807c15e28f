// What a product's backend must do for the customer-facing interfaces (A and B). The built-in backend
// is the service's own store; `spiBackend`, `githubBackend` and `slackBackend` keep the conversation elsewhere
// and mirror it into the store's event log so streams work the same way.

import type { Clock, IdGenerator, Logger } from "@mountkit/core";
import type { AttachmentRef } from "../attachments/types.js";
import type { JobStore, PubSub } from "@mountkit/core/jobs";
import type { ConversationRecord, Rating, SupportStore } from "../store/types.js";
import type { SupportEvents } from "./outbound.js";
import type { CloseAction, Status } from "./status.js";
import type { ConversationView, Summary } from "./views.js";

export interface ConversationPosition {
  updatedAt: string;
  id: string;
}
/** What a backend is asked for: a page of a customer's conversations in (updatedAt desc, id desc) order. */
export interface ConversationPage {
  /** Conversations strictly after this position. */
  after?: ConversationPosition;
  /** At most this many; all when absent. */
  limit?: number;
  /** Only open ones (`new`, `waiting-for-agent`, `waiting-for-customer`). */
  openOnly?: boolean;
}

export interface CustomerScope {
  productSlug: string;
  customerId: string;
}

/** What the service hands a backend when it serves a product with it. */
export interface BackendContext {
  productSlug: string;
  store: SupportStore;
  bus: PubSub;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  /** Durable when the store is (SQL); jobs of a backend use queue names of their own. */
  jobs: JobStore;
  /** The service's outbound events: a mirror's writes carry theirs (docs/support.md#webhooks). */
  events?: SupportEvents;
  /** The attachments of messages, for a backend that shows them elsewhere (GitHub links them, Slack uploads them). */
  files?: BackendFiles;
}

/** What a backend may do with the attachments a message carries (listed in its hidden block, `attachmentsOf`). */
export interface BackendFiles {
  /** The bytes of an attachment of this product; null when gone. */
  read(id: string): Promise<Uint8Array | null>;
  /**
   * A signed, expiring download link that works without the agent token (docs/support.md#attachment-links);
   * undefined when the service has no `attachments.links`.
   */
  link(ref: AttachmentRef): Promise<string | undefined>;
}

/** A request to a backend's webhook route, body as received (signatures cover the raw bytes). */
export interface WebhookRequest {
  headers: Record<string, string | undefined>;
  rawBody: Uint8Array | undefined;
}

export interface WebhookReply {
  status: number;
  body?: unknown;
  /** Signed for this receiver but addressed to another (another repository): the route asks the next one. */
  passed?: boolean;
}

export interface WebhookReceiver {
  /** Path segment under `/agent/webhooks/`: `github`, `slack`. */
  readonly source: string;
  /** Null when the signature is not this receiver's (the route then tries the next one, else answers 401). */
  receive(request: WebhookRequest): Promise<WebhookReply | null>;
}

/** The local conversation a stream follows, and what to do when that stream ends. */
export interface LocalStream {
  conversation: ConversationRecord;
  release?(): void;
}

export interface CustomerBackend {
  /** `builtin`, `spi`, `github`, `slack`: shown in logs. */
  readonly kind: string;
  /** Called once by the service that serves a product with this backend, before any request. */
  attach?(context: BackendContext): void;
  createConversation(
    input: CustomerScope & { subject: string; body: string; clientMessageId: string | null },
  ): Promise<{ conversationId: string; createdAt: string }>;
  /** Open and closed (unless `openOnly`), most recent activity first, then id descending; one page when asked. */
  listConversations(input: CustomerScope & ConversationPage): Promise<Summary[]>;
  /** Null when missing or not this customer's (callers answer 404 either way). */
  getConversation(input: CustomerScope & { conversationId: string }): Promise<ConversationView | null>;
  /**
   * A customer message; `body` carries the hidden metadata block. Throws `conversation_not_found` or
   * `conversation_closed`. A repeated `clientMessageId` answers the original with `deduplicated: true`.
   */
  postMessage(
    input: CustomerScope & { conversationId: string; body: string | null; clientMessageId: string | null },
  ): Promise<{ id: string; createdAt: string; deduplicated: boolean }>;
  /**
   * Throws `conversation_not_found`; closing a resolved or closed conversation is a no-op. Answers the
   * status the conversation is in afterwards, which on a no-op is the one it already had.
   */
  closeConversation(input: CustomerScope & { conversationId: string; action: CloseAction }): Promise<{ status: Status }>;
  /**
   * The customer's rating of a resolved or closed conversation, replacing an earlier one. Throws
   * `conversation_not_found`, or `conversation_open` while it is open. Absent: the backend keeps no ratings (501).
   */
  rateConversation?(input: CustomerScope & { conversationId: string; score: number; comment: string | null }): Promise<Rating>;
  /**
   * The local conversation whose event log the customer's stream follows (the store's own for the built-in
   * backend, the mirror for the others); null when it is not this customer's. Absent: no live events (501).
   */
  openStream?(input: CustomerScope & { conversationId: string }): Promise<LocalStream | null>;
  /** Inbound webhooks this backend accepts under `/agent/webhooks/<source>`. */
  webhook?: WebhookReceiver;
  dispose?(): Promise<void>;
}
