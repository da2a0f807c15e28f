// Attachments go with what carries them: an agent deleting a message or a conversation deletes the files it carried
// (records and bytes), once the delete is written. Only records settled on that conversation are touched, so an id a
// body names but another conversation owns is never deleted (docs/support.md#attachments).
import type { Logger } from "@mountkit/core";
import type { SupportApi } from "../api.js";
import type { Conversations } from "../domain/conversations.js";
import type { Attachments } from "./attachments.js";

export interface AttachmentDeletionDeps {
  attachments: Attachments;
  conversations: Conversations;
  logger: Logger;
}

type Listed = { id: string; attachments?: ReadonlyArray<{ id: string }> };

/** Deletes the records among `ids` settled on `conversationId`, then their bytes; failures are logged (the delete stands). */
async function dropOwned(deps: AttachmentDeletionDeps, conversationId: string, ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  const { attachments, logger } = deps;
  try {
    const owned = (await attachments.store.getMany([...new Set(ids)])).filter((r) => r.conversationId === conversationId).map((r) => r.id);
    if (!owned.length) return;
    await attachments.store.remove(owned);
    await Promise.all(
      owned.map((id) =>
        attachments.blobs.delete(id).catch((error) => logger.warn("support: deleting an attachment's bytes failed", { id, error })),
      ),
    );
  } catch (error) {
    logger.warn("support: deleting a deleted message's attachments failed", { conversationId, error });
  }
}

const filesOf = (messages: readonly Listed[]) => messages.flatMap((m) => (m.attachments ?? []).map((a) => a.id));

/** The agent api with `deleteMessage` and `remove` taking the files along. */
export function withAttachmentDeletion(agent: SupportApi["agent"], deps: AttachmentDeletionDeps): SupportApi["agent"] {
  return {
    ...agent,
    async deleteMessage(id, messageId) {
      const before = (await deps.conversations.agentDetail(id))?.messages ?? [];
      await agent.deleteMessage(id, messageId);
      const gone = filesOf(before.filter((m) => m.id === messageId));
      // a customer may name its own file on a later message again: what another message still shows stays
      const kept = new Set(filesOf(before.filter((m) => m.id !== messageId)));
      await dropOwned(
        deps,
        id,
        gone.filter((f) => !kept.has(f)),
      );
    },
    async remove(id) {
      const before = (await deps.conversations.agentDetail(id))?.messages ?? [];
      await agent.remove(id);
      await dropOwned(deps, id, filesOf(before));
    },
  };
}
