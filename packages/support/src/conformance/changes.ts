import { expect } from "vitest";
import { at, conversationInput, event, message, type StoreTest, uid } from "./fixtures.js";

/** Updates and deletes of conversations and messages. */
export function changeTests(test: StoreTest) {
  test("updateConversation patches and appends", async (store) => {
    const input = conversationInput();
    const id = input.conversation.id;
    await store.createConversation(input);
    const r = await store.updateConversation({
      conversationId: id,
      expectedSeq: 1,
      patch: { labels: ["x", "y"], assignee: "bob" },
      events: [event("labels_changed"), event("assignee_changed")],
    });
    expect(r.ok && r.seqs).toEqual([2, 3]);
    expect(await store.getConversation({ id })).toMatchObject({ labels: ["x", "y"], assignee: "bob", lastSeq: 3, status: "new" });
    const back = await store.updateConversation({ conversationId: id, expectedSeq: 3, patch: { assignee: null }, events: [] });
    expect(back.ok).toBe(true);
    expect((await store.getConversation({ id }))?.assignee).toBeNull();
  });

  test("updateMessage and deleteMessage", async (store) => {
    const input = conversationInput();
    const id = input.conversation.id;
    await store.createConversation(input);
    const u = await store.updateMessage({
      conversationId: id,
      expectedSeq: 1,
      messageId: input.message.id,
      body: "edited",
      updatedAt: at(5),
      patch: { updatedAt: at(5) },
      events: [event("comment_edited", 5)],
    });
    expect(u.ok).toBe(true);
    expect(await store.getMessage({ conversationId: id, id: input.message.id })).toMatchObject({
      body: "edited",
      updatedAt: at(5),
      seq: 1,
    });
    expect((await store.getConversation({ id }))?.updatedAt).toBe(at(5));
    const missing = await store.updateMessage({
      conversationId: id,
      expectedSeq: 2,
      messageId: "cmt_missing",
      body: "x",
      updatedAt: at(6),
      patch: {},
      events: [event("x")],
    });
    expect(missing).toEqual({ ok: false, reason: "not_found" });
    const nulled = await store.updateMessage({
      conversationId: id,
      expectedSeq: 2,
      messageId: input.message.id,
      body: null,
      updatedAt: at(6),
      patch: {},
      events: [],
    });
    expect(nulled.ok).toBe(true);
    expect((await store.getMessage({ conversationId: id, id: input.message.id }))?.body).toBeNull();
    const d = await store.deleteMessage({
      conversationId: id,
      expectedSeq: 2,
      messageId: input.message.id,
      patch: {},
      events: [event("comment_deleted", 7)],
    });
    expect(d.ok && d.seqs).toEqual([3]);
    expect(await store.listMessages({ conversationId: id })).toEqual([]);
    expect(await store.getMessage({ conversationId: id, id: input.message.id })).toBeNull();
    expect(await store.deleteMessage({ conversationId: id, expectedSeq: 3, messageId: input.message.id, patch: {}, events: [] })).toEqual({
      ok: false,
      reason: "not_found",
    });
  });

  test("deleteConversation leaves a tombstone whose events stay readable", async (store) => {
    const input = conversationInput({ productSlug: uid("prod") });
    const id = input.conversation.id;
    await store.createConversation(input);
    const r = await store.deleteConversation({
      conversationId: id,
      expectedSeq: 1,
      deletedAt: at(9),
      events: [event("issue_deleted", 9)],
    });
    expect(r.ok && r.seqs).toEqual([2]);
    const c = await store.getConversation({ id });
    expect(c?.deletedAt).toBe(at(9));
    expect(await store.listConversations({ productSlug: input.conversation.productSlug })).toEqual([]);
    expect(await store.listMessages({ conversationId: id })).toEqual([]);
    const evs = await store.readEvents({ conversationId: id, afterSeq: 1, limit: 10 });
    expect(evs.events.map((e) => e.type)).toEqual(["issue_deleted"]);
    expect(await store.appendMessage({ conversationId: id, expectedSeq: 2, message: message(id), patch: {}, events: [] })).toEqual({
      ok: false,
      reason: "not_found",
    });
    expect(await store.updateConversation({ conversationId: id, expectedSeq: 2, patch: {}, events: [] })).toEqual({
      ok: false,
      reason: "not_found",
    });
  });
}
