// Interface A's wire types, shared by the server and @mountkit/support-client: types and constants only, with
// no imports, so the client's build inlines it (its .d.ts too) and the browser client depends on no package.
export const STATUSES = ["new", "waiting-for-agent", "waiting-for-customer", "resolved", "closed"] as const;
export type Status = (typeof STATUSES)[number];
export type State = "open" | "closed";

export interface Summary {
  id: string;
  subject: string;
  status: Status;
  isOpen: boolean;
  createdAt: string;
  updatedAt: string;
}

/** A file a message carries (docs/support.md#attachments); download it from `/api/conversations/attachments/:id`. */
export interface Attachment {
  id: string;
  name: string;
  /** Sniffed from the bytes: image/png, image/jpeg, image/gif, image/webp, application/pdf or text/plain. */
  contentType: string;
  size: number;
}

export interface Comment {
  id: string;
  body: string | null;
  author: string;
  createdAt: string;
  isCustomer: boolean;
  /** Present when the message carries files. */
  attachments?: Attachment[];
}

/** The customer's rating of a resolved or closed conversation (docs/support.md#ratings); rating again replaces it. */
export interface Rating {
  /** 1 (poor) to 5 (great). */
  score: number;
  comment: string | null;
  ratedAt: string;
}

export interface Issue {
  id: string;
  title: string;
  body: string;
  state: State;
  status: Status;
  labels: string[];
  createdAt: string;
  updatedAt: string;
  /** The first message's files, when it carries any. */
  attachments?: Attachment[];
}

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

/** The `data` of each event type on the wire; `connected` and `resync` carry none. */
export interface EventDataMap {
  connected: undefined;
  new_comment: Comment;
  comment_edited: Comment & { updatedAt: string };
  comment_deleted: { id: string };
  state_update: { state: State; status: Status };
  labels_changed: { labels: string[]; status: Status };
  assignee_changed: { assignee: string | null };
  issue_deleted: { id: string };
  resync: undefined;
}

/** One stream event of type `T` with its `data` (events without data have none). */
export type StreamEventOf<T extends EventType> = {
  type: T;
  createdAt: string;
  /** The frame's `id:` (absent on `connected` and `resync`). */
  id?: string;
} & (EventDataMap[T] extends undefined ? { data?: undefined } : { data: EventDataMap[T] });

/** What a conversation stream carries (docs/support.md#streams), discriminated by `type`. */
export type StreamEvent = { [T in EventType]: StreamEventOf<T> }[EventType];
