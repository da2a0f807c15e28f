// What the backends that keep conversations elsewhere (GitHub, Slack) share: the customer's reads come from
// the local mirror, limited to this backend's own ids and to the customer's own conversations.
import type { BackendContext, CustomerBackend } from "../domain/backend.js";
import { storePage } from "../domain/cursor.js";
import type { Mirror } from "../domain/mirror.js";
import { summary } from "../domain/wire.js";

export interface Attachment {
  cx: BackendContext;
  mirror: Mirror;
}

export function mirroredReads(
  attached: () => Attachment,
  isOurs: (conversationId: string) => boolean,
): Pick<CustomerBackend, "listConversations" | "getConversation" | "openStream"> {
  return {
    async listConversations(scope) {
      return (await attached().cx.store.listConversations(storePage(scope))).map(summary);
    },

    async getConversation({ conversationId, ...scope }) {
      if (!isOurs(conversationId)) return null;
      return attached().mirror.viewFor(scope, conversationId);
    },

    async openStream({ conversationId, ...scope }) {
      const c = isOurs(conversationId) ? await attached().mirror.get(conversationId) : null;
      if (!c || c.productSlug !== scope.productSlug || c.customerId !== scope.customerId) return null;
      return { conversation: c };
    },
  };
}
