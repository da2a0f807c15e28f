import { expect } from "vitest";
import { at, conversationInput, event, message, type StoreTest } from "./fixtures.js";

/** Appending messages: atomic writes, stale sequences, missing conversations. */
export function appendTests(test: StoreTest) {
  test("appendMessage inserts, patches and appends events atomically", async (store) => {
    const input = conversationInput();
    const id = input.conversation.id;
    await store.createConversation(input);
    const m = message(id);
    const r = await store.appendMessage({
      conversationId: id,
      expectedSeq: 1,
      message: m,
      patch: { status: "waiting-for-agent", updatedAt: at(1) },
      events: [event("new_comment"), event("labels_changed")],
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.seqs).toEqual([2, 3]);
    expect(r.message).toEqual({ ...m, seq: 2 });
    expect(r.conversation).toMatchObject({ status: "waiting-for-agent", updatedAt: at(1), lastSeq: 3 });
    const evs = await store.readEvents({ conversationId: id, afterSeq: 1, limit: 10 });
    expect(evs.events.map((e) => [e.seq, e.type, e.conversationId])).toEqual([
      [2, "new_comment", id],
      [3, "labels_changed", id],
    ]);
    expect(evs.events[0]!.data).toEqual({ n: 1 });
    expect((await store.listMessages({ conversationId: id })).map((x) => x.id)).toEqual([input.message.id, m.id]);
  });

  test("a stale expectedSeq is a conflict and writes nothing", async (store) => {
    const input = conversationInput();
    const id = input.conversation.id;
    await store.createConversation(input);
    const r = await store.appendMessage({
      conversationId: id,
      expectedSeq: 0,
      message: message(id),
      patch: { status: "closed" },
      events: [event("x")],
    });
    expect(r).toEqual({ ok: false, reason: "conflict" });
    const u = await store.updateConversation({ conversationId: id, expectedSeq: 5, patch: { status: "closed" }, events: [event("x")] });
    expect(u).toEqual({ ok: false, reason: "conflict" });
    expect((await store.getConversation({ id }))?.status).toBe("new");
    expect((await store.getConversation({ id }))?.lastSeq).toBe(1);
    expect(await store.listMessages({ conversationId: id })).toHaveLength(1);
  });

  test("writes to a missing conversation are not_found", async (store) => {
    expect(
      await store.appendMessage({ conversationId: "conv_nope", expectedSeq: 0, message: message("conv_nope"), patch: {}, events: [] }),
    ).toEqual({ ok: false, reason: "not_found" });
    expect(await store.updateConversation({ conversationId: "conv_nope", expectedSeq: 0, patch: {}, events: [] })).toEqual({
      ok: false,
      reason: "not_found",
    });
    expect(
      (
        await store.updateMessage({
          conversationId: "conv_nope",
          expectedSeq: 0,
          messageId: "m",
          body: "x",
          updatedAt: at(1),
          patch: {},
          events: [],
        })
      ).ok,
    ).toBe(false);
    expect((await store.deleteMessage({ conversationId: "conv_nope", expectedSeq: 0, messageId: "m", patch: {}, events: [] })).ok).toBe(
      false,
    );
    expect((await store.deleteConversation({ conversationId: "conv_nope", expectedSeq: 0, deletedAt: at(1), events: [] })).ok).toBe(false);
  });
}
