// Conversation events: the types the stream carries, their data, and the ids-only bus notification.
import type { EventInput } from "../store/types.js";
import type { State, Status } from "./status.js";
import type { Comment } from "./wire.js";

export const EVENT_TYPES = [
  "connected",
  "new_comment",
  "comment_edited",
  "comment_deleted",
  "state_update",
  "labels_changed",
  "assignee_changed",
  "issue_deleted",
  "resync",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The bus carries ids only; subscribers read the event itself back from the store's log. */
export interface EventNotice {
  conversationId: string;
  seq: number;
}

export const conversationTopic = (conversationId: string) => `support:conversation:${conversationId}`;

/** Every change of a product's conversations (created ones too), for inbox-wide listeners: same notice. */
export const productTopic = (productSlug: string) => `support:product:${productSlug}`;

export const isNotice = (m: unknown): m is EventNotice =>
  typeof m === "object" &&
  m !== null &&
  typeof (m as EventNotice).conversationId === "string" &&
  typeof (m as EventNotice).seq === "number";

export const ev = {
  newComment: (c: Comment, at: string): EventInput => ({ type: "new_comment", data: c, createdAt: at }),
  commentEdited: (c: Comment & { updatedAt: string }, at: string): EventInput => ({ type: "comment_edited", data: c, createdAt: at }),
  commentDeleted: (id: string, at: string): EventInput => ({ type: "comment_deleted", data: { id }, createdAt: at }),
  stateUpdate: (state: State, status: Status, at: string): EventInput => ({ type: "state_update", data: { state, status }, createdAt: at }),
  labelsChanged: (labels: string[], status: Status, at: string): EventInput => ({
    type: "labels_changed",
    data: { labels, status },
    createdAt: at,
  }),
  assigneeChanged: (assignee: string | null, at: string): EventInput => ({ type: "assignee_changed", data: { assignee }, createdAt: at }),
  issueDeleted: (id: string, at: string): EventInput => ({ type: "issue_deleted", data: { id }, createdAt: at }),
};
