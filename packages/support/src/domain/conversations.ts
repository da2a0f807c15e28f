// The conversations of the service's own store: the built-in backend (`backends/builtin.ts`) and the agent
// operations (`agent-ops.ts`), assembled over one store, bus, clock and id source.

import { builtinBackend } from "../backends/builtin.js";
import { agentNotes, cannedReplies } from "./agent-notes.js";
import { agentRatings } from "./agent-ratings.js";
import { agentChanges, agentMessages, agentReads } from "./agent-ops.js";
import { type ConversationsDeps, storeCx } from "./conversation-writes.js";
import type { Conversations } from "./conversations-types.js";
import type { AgentSummary } from "./views.js";

export { CUSTOMER_AUTHOR } from "./conversation-writes.js";

export type { AgentListQuery, Conversations } from "./conversations-types.js";
export type { AgentSummary };

export function createConversations(deps: ConversationsDeps): Conversations {
  const x = storeCx(deps);
  return {
    backend: builtinBackend(x),
    ...agentReads(x),
    ...agentMessages(x),
    ...agentChanges(x),
    notes: agentNotes(x),
    cannedReplies: cannedReplies(x),
    ratings: agentRatings(x),
  };
}
