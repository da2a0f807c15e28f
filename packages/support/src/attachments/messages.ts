// Messages that carry attachments: the typed api's create, post and agent reply, wrapped so a message naming uploads
// has them checked first, listed in its hidden block, settled on it once written, and deleted when it is refused.
// Messages without attachments go to the api unchanged.
import type { Logger } from "@mountkit/core";
import type { SupportApi } from "../api.js";
import { checked } from "../domain/checked.js";
import type { Conversations } from "../domain/conversations.js";
import { type Metadata, withMetadata } from "../domain/metadata.js";
import type { ProductRegistry } from "../domain/products.js";
import { subjectOr } from "../domain/subject.js";
import type { ConversationView } from "../domain/views.js";
import { supportError } from "../errors.js";
import { AgentReplyBody, CreateBody, PostBody } from "../routes/schemas.js";
import type { Attachments } from "./attachments.js";
import { withAttachmentDeletion } from "./deletion.js";
import { attachmentMeta, attachmentsOf } from "./meta.js";
import type { AttachmentRef } from "./types.js";

/** The verified agent's id in a reply's hidden block (domain/agent-identity.ts), kept beside the attachments. */
const AGENT_ID_KEY = "agentId";

export interface AttachmentMessageDeps {
  attachments: Attachments;
  products: ProductRegistry;
  conversations: Conversations;
  logger: Logger;
}

/** What a written message carries, read back from the conversation (a deduplicated write answers the original). */
function carriedBy(view: ConversationView | null, messageId: string | undefined): { messageId: string; refs: AttachmentRef[] } | undefined {
  if (!view) return undefined;
  const m = view.messages.find((x) => x.id === (messageId ?? view.firstMessageId ?? view.messages[0]?.id));
  return m ? { messageId: m.id, refs: attachmentsOf(m.body) } : undefined;
}

/**
 * Writes a message with its attachments: `write` gets the block entries to store; `placed` says where the message
 * landed and what it carries. A refused write deletes the uploads it named; settling failures are only logged (the
 * message is written; the sweep never deletes what a message carries, since settled records are not pending).
 */
async function carrying<R>(
  deps: AttachmentMessageDeps,
  refs: AttachmentRef[],
  write: (meta: Metadata) => Promise<R>,
  placed: (r: R) => Promise<{ conversationId: string; messageId: string; customerId: string; refs: readonly AttachmentRef[] } | undefined>,
): Promise<R> {
  let r: R;
  try {
    r = await write(attachmentMeta(refs));
  } catch (error) {
    await deps.attachments
      .abandon(refs, error)
      .catch((e) => deps.logger.warn("support: dropping a failed message's attachments failed", { error: e }));
    throw error;
  }
  try {
    const at = await placed(r);
    if (at) await deps.attachments.settle(refs, at);
  } catch (error) {
    deps.logger.warn("support: settling a message's attachments failed", { error });
  }
  return r;
}

/** The api with attachments on `createConversation`, `postMessage` and `agent.reply`. */
export function withAttachments(api: SupportApi, deps: AttachmentMessageDeps): SupportApi {
  const { attachments, products, conversations } = deps;
  const customerBody = (message: string, customerId: string, clientMessageId: string | undefined, meta: Metadata) =>
    withMetadata(message, { customerId, ...(clientMessageId ? { clientMessageId } : {}), ...meta });
  return {
    ...api,
    async createConversation(input) {
      if (!input.attachments?.length) return api.createConversation(input);
      checked(CreateBody, input);
      const p = products.require(input.productSlug);
      const { customerId } = input;
      const refs = await attachments.claim({ productSlug: p.slug, by: { customerId }, ids: input.attachments });
      return carrying(
        deps,
        refs,
        async (meta) => {
          const r = await p.backend.createConversation({
            productSlug: p.slug,
            customerId,
            subject: subjectOr(input.subject, input.message),
            body: customerBody(input.message, customerId, input.clientMessageId, meta),
            clientMessageId: input.clientMessageId ?? null,
          });
          return { conversationId: r.conversationId, createdAt: r.createdAt };
        },
        async (r) => {
          const at = carriedBy(
            await p.backend.getConversation({ productSlug: p.slug, customerId, conversationId: r.conversationId }),
            undefined,
          );
          return at && { conversationId: r.conversationId, customerId, ...at };
        },
      );
    },
    async postMessage(input) {
      if (!input.attachments?.length) return api.postMessage(input);
      checked(PostBody, input);
      const p = products.require(input.productSlug);
      const { customerId, conversationId } = input;
      const refs = await attachments.claim({ productSlug: p.slug, by: { customerId }, ids: input.attachments, conversationId });
      let deduplicated = false;
      return carrying(
        deps,
        refs,
        async (meta) => {
          const r = await p.backend.postMessage({
            productSlug: p.slug,
            customerId,
            conversationId,
            body: customerBody(input.message, customerId, input.clientMessageId, meta),
            clientMessageId: input.clientMessageId ?? null,
          });
          deduplicated = r.deduplicated;
          return { id: r.id, createdAt: r.createdAt };
        },
        async (r) => {
          if (!deduplicated) return { conversationId, messageId: r.id, customerId, refs };
          const at = carriedBy(await p.backend.getConversation({ productSlug: p.slug, customerId, conversationId }), r.id);
          return at && { conversationId, customerId, ...at };
        },
      );
    },
    agent: {
      // deleting a message or a conversation deletes the files it carried (deletion.ts)
      ...withAttachmentDeletion(api.agent, deps),
      async reply(id, input) {
        const ids = (input as { attachments?: string[] }).attachments;
        if (!ids?.length) return api.agent.reply(id, input);
        checked(AgentReplyBody, input);
        const c = await conversations.get(id);
        if (!c || c.deletedAt) throw supportError("conversation_not_found");
        const refs = await attachments.claim({ productSlug: c.productSlug, by: { agent: true }, ids, conversationId: id });
        // one hidden block: the agent's id (see domain/agent-identity.ts where present) beside the attachments
        const authorId = (input as { authorId?: string }).authorId;
        const who: Metadata = authorId === undefined ? {} : { [AGENT_ID_KEY]: authorId };
        return carrying(
          deps,
          refs,
          (meta) => api.agent.reply(id, { body: withMetadata(input.body, { ...meta, ...who }), author: input.author }),
          async (m) => ({ conversationId: id, messageId: m.id, customerId: c.customerId, refs }),
        );
      },
    },
  };
}
