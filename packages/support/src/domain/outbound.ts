// The support service's outbound events (docs/support.md#webhooks): `conversation.created`, `message.created`,
// `conversation.status_changed`, `conversation.assigned` and `conversation.rated`, in the scope of the conversation's
// product, about the conversation. A write makes its events' jobs from what it wrote, in its own transaction, and
// only when the product has a subscription taking one of them.
import type { Clock } from "@mountkit/core";
import type { NewJob } from "@mountkit/core/jobs";
import { eventJob, subscribedTypes, type WebhookDispatcher, webhookEvent } from "@mountkit/core/webhooks";
import type { ConversationPatch, ConversationRecord, Enqueue } from "../store/types.js";
import { agentSummary, comment } from "./views.js";

export const SUPPORT_EVENTS = [
  "conversation.created",
  "message.created",
  "conversation.status_changed",
  "conversation.assigned",
  "conversation.rated",
] as const;
export type SupportEventType = (typeof SUPPORT_EVENTS)[number];

/** The webhook scope of a product's conversations. */
export const productScope = (productSlug: string) => `support:product:${productSlug}`;

/** The ids customers see for stored ones (a remote SPI's mirrors differ); the same by default. */
export interface PublicIds {
  convId(storedId: string): string;
  msgId(storedId: string, conversationId: string): string;
}

const SAME_IDS: PublicIds = { convId: (id) => id, msgId: (id) => id };

export interface SupportEvents {
  /**
   * The `enqueue` of a write on `before` (null: the conversation's creation) applying `patch`, or none when the
   * product has no enabled subscription taking any of the events. The events follow from what the write wrote: a
   * new conversation, a new message, a status or assignee other than `before`'s, a rating in `patch`.
   */
  prepare(productSlug: string, before: ConversationRecord | null, patch?: ConversationPatch, ids?: PublicIds): Promise<Enqueue | undefined>;
  /** Tells the dispatcher a change with events was committed. */
  committed(): void;
  /**
   * After a deletion: the product's events and webhook deliveries naming a deleted message or conversation (`ids`, as
   * customers see them) are deleted, sent or not, so neither the log nor the queue keeps or sends their text.
   */
  forget(productSlug: string, ids: readonly string[]): Promise<void>;
}

export function supportEvents(hooks: WebhookDispatcher, clock: Clock): SupportEvents {
  return {
    async prepare(productSlug, before, patch = {}, ids = SAME_IDS) {
      const scope = productScope(productSlug);
      const wanted = await subscribedTypes(hooks.store, scope, SUPPORT_EVENTS);
      if (!wanted.size) return undefined;
      return ({ conversation: c, message }) => {
        const out: NewJob[] = [];
        const conversationId = ids.convId(c.id);
        const conversation = { ...agentSummary(c), id: conversationId };
        const shown = message && { ...comment(message), id: ids.msgId(message.id, c.id) };
        const add = (type: SupportEventType, data: Record<string, unknown>) => {
          if (!wanted.has(type)) return;
          const event = webhookEvent({ type, scope, subject: conversationId, data: { conversationId, ...data }, now: clock.now() });
          out.push(eventJob("support", event));
        };
        // in the order they happened: ids are time-ordered, and a subject's deliveries follow them
        if (!before) add("conversation.created", { conversation, ...(shown ? { message: shown } : {}) });
        if (shown) add("message.created", { ...shown });
        if (before && before.status !== c.status) add("conversation.status_changed", { from: before.status, to: c.status, conversation });
        if (before && before.assignee !== c.assignee)
          add("conversation.assigned", { assignee: c.assignee, previous: before.assignee, conversation });
        if (patch.rating && c.rating) add("conversation.rated", { rating: c.rating, conversation });
        return out;
      };
    },
    committed: () => hooks.wake(),
    forget: (productSlug, ids) => hooks.forget(productScope(productSlug), ids),
  };
}
