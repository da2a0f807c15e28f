// Which agent wrote a reply (docs/support.md#agent-identities): a verified agent's id travels in the reply's hidden
// metadata block (`agentId`), as a customer message's identity does, so every store and engine keeps it as it is;
// the agent views read it back as `authorId`, and the reply's `author` is the agent's name.
import { parseMetadata, withMetadata } from "./metadata.js";

/** The key of the agent's id in a reply's hidden block. */
export const AGENT_ID_KEY = "agentId";

/** The stored body of a reply: with the agent's id in its hidden block when the agent is known by id. */
export const replyBody = (body: string, authorId: string | undefined): string =>
  authorId === undefined ? body : withMetadata(body, { [AGENT_ID_KEY]: authorId });

/** The id of the agent who wrote a message; null for a customer's, or a reply sent with the shared token. */
export function authorIdOf(m: { body: string | null; isCustomer: boolean }): string | null {
  if (m.isCustomer) return null;
  return parseMetadata(m.body)?.[AGENT_ID_KEY] ?? null;
}
