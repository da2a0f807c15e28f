// What a product's backend must do for the customer-facing interfaces (A and B). The built-in backend
// is the service's own store; `spiBackend` speaks interface B to a remote support system.
import type { CloseAction } from "./status.js";
import type { ConversationView, Summary } from "./wire.js";

export interface CustomerScope {
  productSlug: string;
  customerId: string;
}

export interface CustomerBackend {
  /** `builtin`, `spi`, ...: shown in logs and used to pick what the agent side can reach. */
  readonly kind: string;
  createConversation(
    input: CustomerScope & { subject: string; body: string; clientMessageId: string | null },
  ): Promise<{ conversationId: string; createdAt: string }>;
  /** Open and closed, most recent activity first. */
  listConversations(input: CustomerScope): Promise<Summary[]>;
  /** Null when missing or not this customer's (callers answer 404 either way). */
  getConversation(input: CustomerScope & { conversationId: string }): Promise<ConversationView | null>;
  /**
   * A customer message; `body` carries the hidden metadata block. Throws `conversation_not_found` or
   * `conversation_closed`. A repeated `clientMessageId` answers the original with `deduplicated: true`.
   */
  postMessage(
    input: CustomerScope & { conversationId: string; body: string | null; clientMessageId: string | null },
  ): Promise<{ id: string; createdAt: string; deduplicated: boolean }>;
  /** Throws `conversation_not_found`; closing a closed conversation is a no-op. */
  closeConversation(input: CustomerScope & { conversationId: string; action: CloseAction }): Promise<void>;
  dispose?(): Promise<void>;
}
