import { expect } from "vitest";
import { at, conversationInput, event, message, type StoreTest, uid } from "./fixtures.js";

/** Deduplication on clientMessageId, sequential and concurrent. */
export function messageDedupTests(test: StoreTest) {
  test("a repeated clientMessageId answers the original and writes nothing, whatever expectedSeq", async (store) => {
    const input = conversationInput();
    const id = input.conversation.id;
    await store.createConversation(input);
    const first = await store.appendMessage({
      conversationId: id,
      expectedSeq: 1,
      message: message(id, { clientMessageId: "msg_1" }),
      patch: {},
      events: [event("new_comment")],
    });
    expect(first.ok).toBe(true);
    const again = await store.appendMessage({
      conversationId: id,
      expectedSeq: 0,
      message: message(id, { clientMessageId: "msg_1", body: "other" }),
      patch: {},
      events: [event("new_comment")],
    });
    expect(again.ok).toBe(false);
    if (again.ok || again.reason !== "duplicate" || !first.ok) throw new Error("expected duplicate");
    expect(again.message).toEqual(first.message);
    expect((await store.getConversation({ id }))?.lastSeq).toBe(2);
    // the key is per conversation
    const other = conversationInput();
    await store.createConversation(other);
    const elsewhere = await store.appendMessage({
      conversationId: other.conversation.id,
      expectedSeq: 1,
      message: message(other.conversation.id, { clientMessageId: "msg_1" }),
      patch: {},
      events: [event("new_comment")],
    });
    expect(elsewhere.ok).toBe(true);
  });

  test("concurrent appends with one clientMessageId create exactly one message", async (store) => {
    const input = conversationInput();
    const id = input.conversation.id;
    await store.createConversation(input);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        store.appendMessage({
          conversationId: id,
          expectedSeq: 1,
          message: message(id, { clientMessageId: "msg_race" }),
          patch: {},
          events: [event("new_comment")],
        }),
      ),
    );
    const ok = results.filter((r) => r.ok);
    expect(ok).toHaveLength(1);
    for (const r of results) if (!r.ok) expect(["duplicate", "conflict"]).toContain(r.reason);
    const msgs = await store.listMessages({ conversationId: id });
    expect(msgs.filter((m) => m.clientMessageId === "msg_race")).toHaveLength(1);
    expect((await store.getConversation({ id }))?.lastSeq).toBe(2);
  });
}

/** Deduplication of conversation creation on the first message's clientMessageId (`dedupKey`). */
export function createDedupTests(test: StoreTest) {
  test("a create with a known dedupKey answers the live conversation created with it and writes nothing", async (store) => {
    const p = uid("prod");
    const first = conversationInput({ productSlug: p });
    const made = await store.createConversation({ ...first, dedupKey: "msg_open" });
    expect(made.duplicate ?? false).toBe(false);
    const retry = conversationInput({ productSlug: p });
    const again = await store.createConversation({ ...retry, dedupKey: "msg_open" });
    expect(again.duplicate).toBe(true);
    expect(again.seqs).toEqual([]);
    expect(again.conversation).toEqual(await store.getConversation({ id: first.conversation.id }));
    expect(await store.getConversation({ id: retry.conversation.id })).toBeNull();
    expect((await store.listConversations({ productSlug: p })).map((c) => c.id)).toEqual([first.conversation.id]);
    expect(await store.findCreatedConversation({ productSlug: p, customerId: "cust_a", dedupKey: "msg_open" })).toEqual(again.conversation);
    expect(await store.findCreatedConversation({ productSlug: p, customerId: "cust_a", dedupKey: "msg_other" })).toBeNull();
    // the key is per product and customer; without a key nothing is deduplicated
    const otherCustomer = await store.createConversation({
      ...conversationInput({ productSlug: p, customerId: "cust_b" }),
      dedupKey: "msg_open",
    });
    expect(otherCustomer.duplicate ?? false).toBe(false);
    const otherProduct = await store.createConversation({ ...conversationInput({ productSlug: `${p}x` }), dedupKey: "msg_open" });
    expect(otherProduct.duplicate ?? false).toBe(false);
    expect((await store.createConversation({ ...conversationInput({ productSlug: p }), dedupKey: null })).duplicate ?? false).toBe(false);
    expect((await store.createConversation(conversationInput({ productSlug: p }))).duplicate ?? false).toBe(false);
    // a deleted conversation frees its key
    await store.deleteConversation({ conversationId: first.conversation.id, expectedSeq: 1, deletedAt: at(5), events: [] });
    expect(await store.findCreatedConversation({ productSlug: p, customerId: "cust_a", dedupKey: "msg_open" })).toBeNull();
    const fresh = conversationInput({ productSlug: p });
    const after = await store.createConversation({ ...fresh, dedupKey: "msg_open" });
    expect(after.duplicate ?? false).toBe(false);
    expect(after.conversation.id).toBe(fresh.conversation.id);
  });

  test("concurrent creates with one dedupKey create exactly one conversation and all answer it", async (store) => {
    const p = uid("prod");
    const inputs = Array.from({ length: 12 }, () => conversationInput({ productSlug: p }));
    const results = await Promise.all(inputs.map((input) => store.createConversation({ ...input, dedupKey: "msg_race" })));
    expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
    const ids = new Set(results.map((r) => r.conversation.id));
    expect(ids.size).toBe(1);
    const listed = await store.listConversations({ productSlug: p });
    expect(listed.map((c) => c.id)).toEqual([...ids]);
    expect(await store.listMessages({ conversationId: [...ids][0]! })).toHaveLength(1);
  });
}
