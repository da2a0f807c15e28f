// SupportStore conformance: agents' private notes (kept apart from messages and events, dropped with their
// conversation) and canned replies (unique shortcut per product, each product's own).
import { expect } from "vitest";
import type { CannedReplyRecord, NoteRecord } from "../store/agent-types.js";
import { at, conversationInput, type StoreTest, uid } from "./fixtures.js";

const note = (conversationId: string, o: Partial<NoteRecord> = {}): NoteRecord => ({
  id: o.id ?? uid("note"),
  conversationId,
  body: o.body ?? "checked the logs: a refund is due",
  author: o.author ?? "Ana",
  createdAt: o.createdAt ?? at(5),
  updatedAt: o.updatedAt ?? o.createdAt ?? at(5),
});

const reply = (productSlug: string, o: Partial<CannedReplyRecord> = {}): CannedReplyRecord => ({
  id: o.id ?? uid("canned"),
  productSlug,
  shortcut: o.shortcut ?? "refund",
  title: o.title ?? "Refund on its way",
  body: o.body ?? "Your refund is on its way.",
  createdAt: o.createdAt ?? at(1),
  updatedAt: o.updatedAt ?? o.createdAt ?? at(1),
});

/** Notes: added, listed oldest first, edited, removed, never in messages or events, dropped with the conversation. */
export function noteTests(test: StoreTest) {
  test("notes: listed oldest first, apart from the messages and the event log", async (store) => {
    const input = conversationInput();
    const id = input.conversation.id;
    await store.createConversation(input);
    const later = note(id, { createdAt: at(9), body: "second" });
    const first = note(id, { createdAt: at(7), body: "first" });
    expect(await store.notes.add(later)).toEqual(later);
    await store.notes.add(first);
    expect(await store.notes.list({ conversationId: id })).toEqual([first, later]);
    expect(await store.notes.get({ conversationId: id, id: first.id })).toEqual(first);
    expect((await store.listMessages({ conversationId: id })).map((m) => m.body)).toEqual([input.message.body]);
    expect((await store.readEvents({ conversationId: id, afterSeq: 0, limit: 100 })).events).toHaveLength(1);
    expect((await store.getConversation({ id }))?.lastSeq).toBe(1);
  });

  test("notes: edited and removed only through their own conversation", async (store) => {
    const a = conversationInput();
    const b = conversationInput();
    await store.createConversation(a);
    await store.createConversation(b);
    const n = note(a.conversation.id);
    await store.notes.add(n);
    expect(await store.notes.get({ conversationId: b.conversation.id, id: n.id })).toBeNull();
    expect(await store.notes.update({ conversationId: b.conversation.id, id: n.id, body: "x", updatedAt: at(8) })).toBeNull();
    expect(await store.notes.remove({ conversationId: b.conversation.id, id: n.id })).toBe(false);
    const edited = await store.notes.update({ conversationId: a.conversation.id, id: n.id, body: "edited", updatedAt: at(8) });
    expect(edited).toEqual({ ...n, body: "edited", updatedAt: at(8) });
    expect(await store.notes.list({ conversationId: a.conversation.id })).toEqual([edited]);
    expect(await store.notes.remove({ conversationId: a.conversation.id, id: n.id })).toBe(true);
    expect(await store.notes.remove({ conversationId: a.conversation.id, id: n.id })).toBe(false);
    expect(await store.notes.list({ conversationId: a.conversation.id })).toEqual([]);
  });

  test("notes: deleting the conversation drops them", async (store) => {
    const input = conversationInput();
    const id = input.conversation.id;
    await store.createConversation(input);
    const n = note(id);
    await store.notes.add(n);
    const w = await store.deleteConversation({ conversationId: id, expectedSeq: 1, deletedAt: at(10), events: [] });
    expect(w.ok).toBe(true);
    expect(await store.notes.list({ conversationId: id })).toEqual([]);
    expect(await store.notes.get({ conversationId: id, id: n.id })).toBeNull();
  });
}

/** Canned replies: per product, ordered by shortcut, unique shortcuts, another product's replies not found. */
export function cannedReplyTests(test: StoreTest) {
  test("canned replies: created, listed by shortcut, edited and removed per product", async (store) => {
    const p = uid("prod");
    const b = reply(p, { shortcut: "billing" });
    const r = reply(p, { shortcut: "refund" });
    expect(await store.cannedReplies.create(r)).toEqual({ ok: true, reply: r });
    await store.cannedReplies.create(b);
    expect(await store.cannedReplies.list({ productSlug: p })).toEqual([b, r]);
    expect(await store.cannedReplies.get({ productSlug: p, id: r.id })).toEqual(r);
    const u = await store.cannedReplies.update({ productSlug: p, id: r.id, patch: { title: "Refunds", body: "Done." }, updatedAt: at(3) });
    expect(u).toEqual({ ok: true, reply: { ...r, title: "Refunds", body: "Done.", updatedAt: at(3) } });
    expect(await store.cannedReplies.remove({ productSlug: p, id: r.id })).toBe(true);
    expect(await store.cannedReplies.remove({ productSlug: p, id: r.id })).toBe(false);
    expect(await store.cannedReplies.list({ productSlug: p })).toEqual([b]);
  });

  test("canned replies: a shortcut is unique within a product, also under concurrent creates; other products may reuse it", async (store) => {
    const p = uid("prod");
    const q = uid("prod");
    const results = await Promise.all(Array.from({ length: 5 }, () => store.cannedReplies.create(reply(p, { shortcut: "hello" }))));
    expect(results.filter((x) => x.ok)).toHaveLength(1);
    expect(results.filter((x) => !x.ok)).toEqual(Array(4).fill({ ok: false, reason: "shortcut_taken" }));
    expect((await store.cannedReplies.create(reply(q, { shortcut: "hello" }))).ok).toBe(true);
    const other = reply(p, { shortcut: "bye" });
    await store.cannedReplies.create(other);
    const clash = await store.cannedReplies.update({ productSlug: p, id: other.id, patch: { shortcut: "hello" }, updatedAt: at(4) });
    expect(clash).toEqual({ ok: false, reason: "shortcut_taken" });
    expect(await store.cannedReplies.get({ productSlug: p, id: other.id })).toEqual(other);
    const same = await store.cannedReplies.update({ productSlug: p, id: other.id, patch: { shortcut: "bye" }, updatedAt: at(4) });
    expect(same.ok).toBe(true);
  });

  test("canned replies: another product's reply is not found, read, changed or removed", async (store) => {
    const p = uid("prod");
    const q = uid("prod");
    const r = reply(p);
    await store.cannedReplies.create(r);
    expect(await store.cannedReplies.get({ productSlug: q, id: r.id })).toBeNull();
    expect(await store.cannedReplies.list({ productSlug: q })).toEqual([]);
    expect(await store.cannedReplies.update({ productSlug: q, id: r.id, patch: { body: "x" }, updatedAt: at(2) })).toEqual({
      ok: false,
      reason: "not_found",
    });
    expect(await store.cannedReplies.remove({ productSlug: q, id: r.id })).toBe(false);
    expect(await store.cannedReplies.get({ productSlug: p, id: r.id })).toEqual(r);
  });
}
