// What a customer does on a Slack-backed product: each write posts to the conversation's thread first, then
// lands in the mirror; reads come from the mirror. Customer text is shown on Slack, never interpreted there.
import { iso } from "@mountkit/core";
import type { CustomerBackend, CustomerScope } from "../../domain/backend.js";
import { parseMetadata, stripMetadata } from "../../domain/metadata.js";
import { isOpen, openedConversation } from "../../domain/status.js";
import { supportError } from "../../errors.js";
import { escapeSlack } from "../display.js";
import { mirroredReads, onceByClientId } from "../mirrored.js";
import { queueUploads } from "./files.js";
import { attached, convId, META_EVENT, me, msgId, post, postParts, replies, rootOf, type SlackState, tsTime } from "./client.js";

type CustomerOps = Omit<CustomerBackend, "kind" | "attach" | "webhook" | "dispose">;

async function owned(s: SlackState, scope: CustomerScope, id: string) {
  const root = rootOf(s, id);
  const c = root === undefined ? null : await attached(s).mirror.get(id);
  if (!c || root === undefined || c.productSlug !== scope.productSlug || c.customerId !== scope.customerId)
    throw supportError("conversation_not_found");
  return { ...c, root };
}

/**
 * The ts of what an earlier attempt of this message posted, when it did: as on GitHub, the first attempt marks
 * the message before posting; a repeat looks in the thread for what an attempt that failed after its post left
 * there (the metadata names the message).
 */
async function postedEarlier(
  s: SlackState,
  conversationId: string,
  root: string,
  customerId: string,
  clientMessageId: string,
): Promise<Map<number, string>> {
  const { cx } = attached(s);
  const parts = new Map<number, string>();
  const deliveryId = `${conversationId}\n${customerId}\n${clientMessageId}`;
  const first = await cx.store.claimDelivery({ source: `slack-post:${s.tag}`, deliveryId, receivedAt: iso(cx.clock.now()) });
  if (first) return parts;
  const own = await me(s);
  for (const m of (await replies(s, root)) ?? []) {
    const p = m.metadata?.event_type === META_EVENT ? m.metadata.event_payload : undefined;
    if (m.ts && m.user === own && p?.clientMessageId === clientMessageId && p.customerId === customerId)
      parts.set(typeof p.part === "string" ? Number.parseInt(p.part, 10) : 1, m.ts);
  }
  return parts;
}

const postMessage =
  (s: SlackState): CustomerBackend["postMessage"] =>
  async ({ conversationId, body, clientMessageId, ...scope }) => {
    const { mirror, cx } = attached(s);
    return s.lock(conversationId, async () => {
      const c = await owned(s, scope, conversationId);
      const dup = await mirror.duplicate(conversationId, clientMessageId);
      if (dup) return dup;
      if (c.status === "closed") throw supportError("conversation_closed");
      const meta = parseMetadata(body) ?? { customerId: scope.customerId };
      const earlier =
        clientMessageId !== null ? await postedEarlier(s, conversationId, c.root, scope.customerId, clientMessageId) : new Map();
      const again = earlier.has(1);
      // a retry posts only the parts the earlier attempt did not
      const { ts } = await postParts(s, "*Customer:* ", escapeSlack(stripMetadata(body ?? "")), meta, c.root, earlier);
      const added = await mirror.addMessage(
        conversationId,
        {
          id: msgId(s, ts),
          body,
          author: "Customer",
          isCustomer: true,
          dedupKey: clientMessageId ?? `#slack/${ts}`,
          createdAt: again ? tsTime(ts) : iso(cx.clock.now()),
        },
        (st) => (st === "closed" ? st : "waiting-for-agent"),
      );
      if (!added) throw supportError("conversation_not_found");
      // the text is posted and mirrored first: the files follow as jobs, so a failed upload never loses the message
      await queueUploads(s, c.root, added.message.id, body);
      return { id: added.message.id, createdAt: added.message.createdAt, deduplicated: again };
    });
  };

export function slackCustomerOps(s: SlackState): CustomerOps {
  return {
    createConversation: ({ productSlug, customerId, subject, body, clientMessageId }) =>
      onceByClientId(s, { productSlug, customerId }, clientMessageId, async () => {
        const { mirror, cx } = attached(s);
        const meta = { customerId, ...(clientMessageId ? { clientMessageId } : {}) };
        // customer text is shown, never interpreted: `<!channel>`, `<@U…>` and `<url|label>` arrive as typed
        const { ts } = await postParts(s, `*${escapeSlack(subject)}*\n`, escapeSlack(stripMetadata(body)), meta);
        const now = iso(cx.clock.now());
        const c = await mirror.create({
          conversation: openedConversation({ id: convId(s, ts), productSlug, customerId, subject, at: now }),
          messages: [
            { id: msgId(s, ts), body, author: "Customer", isCustomer: true, dedupKey: clientMessageId ?? `#slack/${ts}`, createdAt: now },
          ],
          dedupKey: clientMessageId,
        });
        if (c.id === convId(s, ts)) await queueUploads(s, ts, msgId(s, ts), body);
        return { conversationId: c.id, createdAt: c.createdAt };
      }),

    postMessage: postMessage(s),

    async closeConversation({ conversationId, action, ...scope }) {
      const { mirror } = attached(s);
      return s.lock(conversationId, async () => {
        const c = await owned(s, scope, conversationId);
        if (!isOpen(c.status)) return { status: c.status };
        const status = action === "resolve" ? "resolved" : "closed";
        await post(
          s,
          action === "resolve" ? "_The customer marked this conversation as resolved._" : "_The customer closed this conversation._",
          { customerId: scope.customerId },
          c.root,
        );
        await mirror.setState(conversationId, { status });
        return { status };
      });
    },

    ...mirroredReads(
      () => attached(s),
      (id) => rootOf(s, id) !== undefined,
    ),
  };
}
