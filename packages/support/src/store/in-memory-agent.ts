// In-memory NoteStore and CannedReplyStore (store/agent-types.ts): each operation runs inside one call, so each is atomic.
import type { CannedReplyRecord, CannedReplyStore, NoteRecord, NoteStore } from "./agent-types.js";

const copy = <T>(v: T): T => structuredClone(v);

const byTimeThenId = (a: NoteRecord, b: NoteRecord) =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** The notes, and `drop` for the store's `deleteConversation`. */
export function inMemoryNoteStore(): { store: NoteStore; drop(conversationId: string): void } {
  /** conversationId -> note id -> note. */
  const notes = new Map<string, Map<string, NoteRecord>>();
  const store: NoteStore = {
    async add(note) {
      let of = notes.get(note.conversationId);
      if (!of) notes.set(note.conversationId, (of = new Map()));
      if (of.has(note.id)) throw new Error(`note ${note.id} exists`);
      of.set(note.id, copy(note));
      return copy(note);
    },
    async list({ conversationId }) {
      return copy([...(notes.get(conversationId)?.values() ?? [])].sort(byTimeThenId));
    },
    async get({ conversationId, id }) {
      const n = notes.get(conversationId)?.get(id);
      return n ? copy(n) : null;
    },
    async update({ conversationId, id, body, updatedAt }) {
      const n = notes.get(conversationId)?.get(id);
      if (!n) return null;
      n.body = body;
      n.updatedAt = updatedAt;
      return copy(n);
    },
    async remove({ conversationId, id }) {
      return notes.get(conversationId)?.delete(id) ?? false;
    },
  };
  return { store, drop: (conversationId) => void notes.delete(conversationId) };
}

export function inMemoryCannedReplyStore(): CannedReplyStore {
  const replies = new Map<string, CannedReplyRecord>();
  const mine = (productSlug: string, id: string) => {
    const r = replies.get(id);
    return r && r.productSlug === productSlug ? r : undefined;
  };
  const taken = (productSlug: string, shortcut: string, except?: string) =>
    [...replies.values()].some((r) => r.productSlug === productSlug && r.shortcut === shortcut && r.id !== except);
  return {
    async create(reply) {
      if (replies.has(reply.id)) throw new Error(`canned reply ${reply.id} exists`);
      if (taken(reply.productSlug, reply.shortcut)) return { ok: false, reason: "shortcut_taken" };
      replies.set(reply.id, copy(reply));
      return { ok: true, reply: copy(reply) };
    },
    async list({ productSlug }) {
      const out = [...replies.values()].filter((r) => r.productSlug === productSlug);
      return copy(out.sort((a, b) => (a.shortcut < b.shortcut ? -1 : a.shortcut > b.shortcut ? 1 : 0)));
    },
    async get({ productSlug, id }) {
      const r = mine(productSlug, id);
      return r ? copy(r) : null;
    },
    async update({ productSlug, id, patch, updatedAt }) {
      const r = mine(productSlug, id);
      if (!r) return { ok: false, reason: "not_found" };
      if (patch.shortcut !== undefined && taken(productSlug, patch.shortcut, id)) return { ok: false, reason: "shortcut_taken" };
      for (const k of ["shortcut", "title", "body"] as const) if (patch[k] !== undefined) r[k] = patch[k];
      r.updatedAt = updatedAt;
      return { ok: true, reply: copy(r) };
    },
    async remove({ productSlug, id }) {
      return mine(productSlug, id) ? replies.delete(id) : false;
    },
  };
}
