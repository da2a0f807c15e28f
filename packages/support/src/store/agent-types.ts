// What the agent side keeps beside the conversations (docs/support.md#private-notes, #canned-replies): private notes,
// which never enter a conversation's messages, event log or outbound events, and each product's canned replies.

/** A note agents leave on a conversation for each other; never shown to the customer or sent to a backend. */
export interface NoteRecord {
  id: string;
  conversationId: string;
  body: string;
  /** The agent who wrote it. */
  author: string;
  createdAt: string;
  updatedAt: string;
}

/** A product's saved answer an agent inserts into a reply, found by its shortcut (`/refund`). */
export interface CannedReplyRecord {
  id: string;
  productSlug: string;
  /** Unique within the product, lower case: `[a-z0-9][a-z0-9_-]*`. */
  shortcut: string;
  title: string;
  body: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * Private notes, apart from the messages so no path that reads messages or events (interface A, its stream, interface
 * B, a backend, an outbound event) can carry one. `SupportStore.deleteConversation` drops a conversation's notes.
 */
export interface NoteStore {
  add(note: NoteRecord): Promise<NoteRecord>;
  /** A conversation's notes, oldest first (createdAt, then id). */
  list(input: { conversationId: string }): Promise<NoteRecord[]>;
  get(input: { conversationId: string; id: string }): Promise<NoteRecord | null>;
  /** Replaces a note's body; null when the note is not in this conversation. */
  update(input: { conversationId: string; id: string; body: string; updatedAt: string }): Promise<NoteRecord | null>;
  /** False when the note is not in this conversation. */
  remove(input: { conversationId: string; id: string }): Promise<boolean>;
}

export type CannedReplyWrite =
  | { ok: true; reply: CannedReplyRecord }
  /** Another reply of the product has the shortcut (also under concurrent writes), or the reply is not the product's. */
  | { ok: false; reason: "shortcut_taken" | "not_found" };

/** Canned replies, each product's apart: a reply read, changed or removed through another product is not found. */
export interface CannedReplyStore {
  create(reply: CannedReplyRecord): Promise<CannedReplyWrite>;
  /** A product's replies ordered by shortcut. */
  list(input: { productSlug: string }): Promise<CannedReplyRecord[]>;
  get(input: { productSlug: string; id: string }): Promise<CannedReplyRecord | null>;
  update(input: {
    productSlug: string;
    id: string;
    patch: Partial<Pick<CannedReplyRecord, "shortcut" | "title" | "body">>;
    updatedAt: string;
  }): Promise<CannedReplyWrite>;
  remove(input: { productSlug: string; id: string }): Promise<boolean>;
}
