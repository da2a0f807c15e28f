// Agents' private notes on a conversation and each product's canned replies. Notes are kept apart from the messages
// (store/agent-types.ts): they append no event to the conversation's log, change no `updatedAt` a customer could see,
// queue no outbound event and reach no backend; only the agent side's product stream hears of them (`notes_changed`).
import { supportError } from "../errors.js";
import type { CannedReplyRecord, CannedReplyWrite, NoteRecord } from "../store/agent-types.js";
import { live, type StoreCx } from "./conversation-writes.js";
import { productTopic } from "./events.js";

/** A note as the agent API shows it. */
export type Note = Omit<NoteRecord, "conversationId">;
/** A canned reply as the agent API shows it. */
export type CannedReply = Omit<CannedReplyRecord, "productSlug">;

export interface AgentNotes {
  /** The conversation's notes, oldest first; 404 when the conversation is missing. */
  list(conversationId: string): Promise<Note[]>;
  add(conversationId: string, input: { body: string; author: string }): Promise<Note>;
  edit(conversationId: string, noteId: string, body: string): Promise<Note>;
  remove(conversationId: string, noteId: string): Promise<void>;
}

export interface CannedReplies {
  list(productSlug: string): Promise<CannedReply[]>;
  get(productSlug: string, id: string): Promise<CannedReply>;
  create(productSlug: string, input: { shortcut: string; title: string; body: string }): Promise<CannedReply>;
  update(productSlug: string, id: string, patch: Partial<{ shortcut: string; title: string; body: string }>): Promise<CannedReply>;
  remove(productSlug: string, id: string): Promise<void>;
}

export const noteView = ({ conversationId: _, ...n }: NoteRecord): Note => n;
const replyView = ({ productSlug: _, ...r }: CannedReplyRecord): CannedReply => r;

/** Tells the product's inbox streams (never a customer's) that a conversation's notes changed. */
function noticeNotes(x: StoreCx, c: { id: string; productSlug: string; lastSeq: number }) {
  x.bus
    .publish(productTopic(c.productSlug), { conversationId: c.id, seq: c.lastSeq, notes: true })
    .catch((error) => x.logger.warn("support: publish failed", { conversationId: c.id, error }));
}

export function agentNotes(x: StoreCx): AgentNotes {
  const { store } = x;
  return {
    async list(conversationId) {
      await live(x, conversationId);
      return (await store.notes.list({ conversationId })).map(noteView);
    },
    async add(conversationId, { body, author }) {
      const c = await live(x, conversationId);
      const at = x.now();
      const note = await store.notes.add({ id: x.ids("note"), conversationId, body, author, createdAt: at, updatedAt: at });
      noticeNotes(x, c);
      return noteView(note);
    },
    async edit(conversationId, noteId, body) {
      const c = await live(x, conversationId);
      const note = await store.notes.update({ conversationId, id: noteId, body, updatedAt: x.now() });
      if (!note) throw supportError("note_not_found");
      noticeNotes(x, c);
      return noteView(note);
    },
    async remove(conversationId, noteId) {
      const c = await live(x, conversationId);
      if (!(await store.notes.remove({ conversationId, id: noteId }))) throw supportError("note_not_found");
      noticeNotes(x, c);
    },
  };
}

function written(w: CannedReplyWrite, shortcut: string | undefined): CannedReply {
  if (w.ok) return replyView(w.reply);
  if (w.reason === "not_found") throw supportError("canned_reply_not_found");
  throw supportError("shortcut_taken", {
    message: `the shortcut ${JSON.stringify(shortcut)} is taken by another canned reply of this product`,
    details: [{ path: "shortcut", message: "taken by another canned reply of this product" }],
  });
}

export function cannedReplies(x: StoreCx): CannedReplies {
  const { store } = x;
  return {
    async list(productSlug) {
      return (await store.cannedReplies.list({ productSlug })).map(replyView);
    },
    async get(productSlug, id) {
      const r = await store.cannedReplies.get({ productSlug, id });
      if (!r) throw supportError("canned_reply_not_found");
      return replyView(r);
    },
    async create(productSlug, input) {
      const at = x.now();
      const w = await store.cannedReplies.create({ id: x.ids("canned"), productSlug, ...input, createdAt: at, updatedAt: at });
      return written(w, input.shortcut);
    },
    async update(productSlug, id, patch) {
      return written(await store.cannedReplies.update({ productSlug, id, patch, updatedAt: x.now() }), patch.shortcut);
    },
    async remove(productSlug, id) {
      if (!(await store.cannedReplies.remove({ productSlug, id }))) throw supportError("canned_reply_not_found");
    },
  };
}
