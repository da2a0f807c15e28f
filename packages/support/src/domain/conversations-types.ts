// The agent side's view of the service's own conversations: the interface `createConversations` (conversations.ts)
// returns, which the operations in agent-ops.ts implement piece by piece.
import type { ConversationRecord } from "../store/types.js";
import type { AgentNotes, CannedReplies, Note } from "./agent-notes.js";
import type { AgentRatings } from "./agent-ratings.js";
import type { CustomerBackend } from "./backend.js";
import type { Status } from "./status.js";
import type { AgentSummary, Comment, ConversationView, Summary } from "./views.js";

export interface AgentListQuery {
  productSlug: string;
  statuses?: Status[];
  assignee?: string | null;
  label?: string;
  /** Search text (see `ListConversationsQuery.q`). */
  q?: string;
  after?: { updatedAt: string; id: string };
  limit: number;
}

export interface Conversations {
  backend: CustomerBackend;
  /** Conversation as the agent side sees it, or null (missing or deleted). */
  get(id: string): Promise<ConversationRecord | null>;
  agentList(q: AgentListQuery): Promise<AgentSummary[]>;
  /** With the conversation's private notes, oldest first (agents only: no other view has them). */
  agentDetail(
    id: string,
  ): Promise<(ConversationView & { customerId: string; productSlug: string; assignee: string | null; notes: Note[] }) | null>;
  /** `authorId`: the verified agent's id, kept in the reply's hidden block (docs/support.md#agent-identities). */
  reply(id: string, input: { body: string; author: string; authorId?: string }): Promise<Comment>;
  editMessage(id: string, messageId: string, body: string): Promise<Comment & { updatedAt: string }>;
  deleteMessage(id: string, messageId: string): Promise<void>;
  setLabels(id: string, labels: string[]): Promise<string[]>;
  setAssignee(id: string, assignee: string | null): Promise<string | null>;
  setStatus(id: string, status: Status): Promise<Summary>;
  remove(id: string): Promise<void>;
  /** Agents' private notes (docs/support.md#private-notes). */
  notes: AgentNotes;
  /** Each product's canned replies (docs/support.md#canned-replies). */
  cannedReplies: CannedReplies;
  /** The customers' ratings of a product's conversations, newest first, with a summary (docs/support.md#ratings). */
  ratings: AgentRatings;
}
