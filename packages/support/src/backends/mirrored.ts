// What the backends that keep conversations elsewhere (GitHub, Slack) share: the customer's reads come from
// the local mirror, limited to this backend's own ids and to the customer's own conversations.
import type { BackendContext, CustomerBackend, CustomerScope } from "../domain/backend.js";
import { storePage } from "../domain/cursor.js";
import { parseMetadata, withMetadata } from "../domain/metadata.js";
import type { Mirror } from "../domain/mirror.js";
import { summary } from "../domain/views.js";
import type { SupportStore } from "../store/types.js";

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

/**
 * A conversation create runs once per (customer, clientMessageId): a retry after a lost answer finds the
 * conversation the first attempt mirrored, and concurrent retries in this process wait for the first.
 */
export async function onceByClientId(
  s: { lock<T>(key: string, fn: () => Promise<T>): Promise<T>; at?: { cx: { store: SupportStore } } },
  scope: CustomerScope,
  clientMessageId: string | null,
  create: () => Promise<{ conversationId: string; createdAt: string }>,
): Promise<{ conversationId: string; createdAt: string }> {
  if (clientMessageId === null) return create();
  return s.lock(`create\n${scope.productSlug}\n${scope.customerId}\n${clientMessageId}`, async () => {
    const store = s.at?.cx.store;
    const earlier = await store?.findCreatedConversation({ ...scope, dedupKey: clientMessageId });
    return earlier ? { conversationId: earlier.id, createdAt: earlier.createdAt } : create();
  });
}

/**
 * A customer's body as the kit posts it: with the hidden block naming the customer, which is how a later read
 * tells the kit's own post of a customer message from an agent's. Interface A's bodies carry it already; a
 * caller of interface B may send a body without one (or `null`, read as empty).
 */
export const customerBody = (body: string | null, customerId: string): string =>
  parseMetadata(body)?.customerId === customerId ? body! : withMetadata(body ?? "", { customerId });
