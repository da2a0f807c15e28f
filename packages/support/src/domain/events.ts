// Conversation events: the types the stream carries, their data, and the ids-only bus notification.
import type { EventInput } from "../store/types.js";
import { EVENT_TYPES, type EventDataMap, type EventType } from "../wire.js";
import type { State, Status } from "./status.js";
import type { Comment } from "./views.js";

export { EVENT_TYPES, type EventDataMap, type EventType };

const event = <T extends EventType>(type: T, data: EventDataMap[T], createdAt: string): EventInput => ({ type, data, createdAt });

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
  newComment: (c: Comment, at: string) => event("new_comment", c, at),
  commentEdited: (c: Comment & { updatedAt: string }, at: string) => event("comment_edited", c, at),
  commentDeleted: (id: string, at: string) => event("comment_deleted", { id }, at),
  stateUpdate: (state: State, status: Status, at: string) => event("state_update", { state, status }, at),
  labelsChanged: (labels: string[], status: Status, at: string) => event("labels_changed", { labels, status }, at),
  assigneeChanged: (assignee: string | null, at: string) => event("assignee_changed", { assignee }, at),
  issueDeleted: (id: string, at: string) => event("issue_deleted", { id }, at),
};
