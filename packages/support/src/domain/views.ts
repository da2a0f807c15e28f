// Records to the views every interface renders: summaries, comments, interface A's `{issue, comments}`, interface B and
// agent details. The wire types they fill come from `src/wire.ts` (`@mountkit/support/wire`).
import { attachmentsOf } from "../attachments/meta.js";
import type { ConversationRecord, MessageRecord, Rating } from "../store/types.js";
import type { Comment, Issue, Summary } from "../wire.js";
import { isOpen, stateOf, wireLabels } from "./status.js";

export type { Comment, Issue, Summary };

/** The backend-neutral view of one conversation that every interface renders from. */
export interface ConversationView extends Summary {
  labels: string[];
  messages: Comment[];
  /** Id of the message shown as `issue.body`; the first message when absent. */
  firstMessageId?: string;
  /** The customer's rating; null or absent when not rated (or the backend keeps none). */
  rating?: Rating | null;
}

/** A conversation as the agent side lists it: the summary plus customer, product, assignee and labels. */
export interface AgentSummary extends Summary {
  customerId: string;
  productSlug: string;
  assignee: string | null;
  labels: string[];
}

export const summary = (c: ConversationRecord): Summary => ({
  id: c.id,
  subject: c.subject,
  status: c.status,
  isOpen: isOpen(c.status),
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});

export const agentSummary = (c: ConversationRecord): AgentSummary => ({
  ...summary(c),
  customerId: c.customerId,
  productSlug: c.productSlug,
  assignee: c.assignee,
  labels: wireLabels(c.status, c.labels),
});

export const comment = (m: MessageRecord): Comment =>
  withFiles(m.body, {
    id: m.id,
    body: m.body,
    author: m.author,
    createdAt: m.createdAt,
    isCustomer: m.isCustomer,
  });

/** Adds `attachments` when the body's hidden block lists files (docs/support.md#attachments). */
function withFiles<T extends object>(body: string | null | undefined, out: T): T & { attachments?: Comment["attachments"] } {
  const files = attachmentsOf(body);
  return files.length ? { ...out, attachments: files } : out;
}

export const view = (c: ConversationRecord, messages: MessageRecord[]): ConversationView => ({
  ...summary(c),
  labels: wireLabels(c.status, c.labels),
  messages: messages.map(comment),
  firstMessageId: c.firstMessageId,
  rating: c.rating ?? null,
});

/** Interface A's detail: the first message is the issue body, later ones are comments. */
export function issueDetail(v: ConversationView): { issue: Issue; comments: Comment[] } {
  const firstId = v.firstMessageId ?? v.messages[0]?.id;
  const first = v.messages.find((m) => m.id === firstId);
  return {
    issue: {
      id: v.id,
      title: v.subject,
      body: first?.body ?? "",
      state: stateOf(v.status),
      status: v.status,
      labels: v.labels,
      createdAt: v.createdAt,
      updatedAt: v.updatedAt,
      ...(first?.attachments?.length ? { attachments: first.attachments } : {}),
    },
    comments: v.messages.filter((m) => m !== first),
  };
}

/** Interface B's detail: summary fields, every message and the customer's rating. */
export function spiDetail(v: ConversationView): Summary & { messages: Comment[]; rating: Rating | null } {
  return {
    id: v.id,
    subject: v.subject,
    status: v.status,
    isOpen: v.isOpen,
    createdAt: v.createdAt,
    updatedAt: v.updatedAt,
    messages: v.messages,
    rating: v.rating ?? null,
  };
}
