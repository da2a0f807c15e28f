// SupportStore conformance: creating and reading back a conversation, unknown ids, odd input, records as values.
import { refusedOrAnswered } from "@mountkit/core/testing";
import { expect } from "vitest";
import { conversationInput, message, type StoreTest } from "./fixtures.js";

/** Creating, reading back, refusing or keeping odd input, and records as values. */
export function recordTests(test: StoreTest) {
  test("creates a conversation with its first message at seq 1", async (store) => {
    const input = conversationInput();
    const r = await store.createConversation(input);
    expect(r.seqs).toEqual([1]);
    expect(r.conversation).toMatchObject({ ...input.conversation, lastSeq: 1, deletedAt: null });
    expect(r.message).toMatchObject({ ...input.message, seq: 1 });
    expect(await store.getConversation({ id: input.conversation.id })).toEqual(r.conversation);
    expect(await store.listMessages({ conversationId: input.conversation.id })).toEqual([r.message]);
    expect(await store.getMessage({ conversationId: input.conversation.id, id: input.message.id })).toEqual(r.message);
  });

  test("unknown ids read as null or empty", async (store) => {
    expect(await store.getConversation({ id: "conv_missing" })).toBeNull();
    expect(await store.listMessages({ conversationId: "conv_missing" })).toEqual([]);
    expect(await store.getMessage({ conversationId: "conv_missing", id: "x" })).toBeNull();
    expect(await store.readEvents({ conversationId: "conv_missing", afterSeq: 0, limit: 10 })).toEqual({ events: [], prunedThrough: 0 });
  });

  test("text holding NUL is refused with a 400 or kept exactly; lookups by such text find nothing", async (store) => {
    const input = conversationInput({ subject: "sub\u0000ject", labels: ["l\u0000"] });
    const created = await refusedOrAnswered(() => store.createConversation(input));
    if (!created.refused) expect((await store.getConversation({ id: input.conversation.id }))?.subject).toBe("sub\u0000ject");
    const ok = conversationInput();
    await store.createConversation(ok);
    const appended = await refusedOrAnswered(() =>
      store.appendMessage({
        conversationId: ok.conversation.id,
        expectedSeq: 1,
        message: message(ok.conversation.id, { body: "x\u0000" }),
        patch: {},
        events: [],
      }),
    );
    if (!appended.refused) expect(appended.value.ok).toBe(true);
    const reads: Array<[() => Promise<unknown>, unknown]> = [
      [() => store.getConversation({ id: "conv\u0000" }), null],
      [() => store.getMessage({ conversationId: ok.conversation.id, id: "cmt\u0000" }), null],
      [() => store.listMessages({ conversationId: "conv\u0000" }), []],
      [() => store.listConversations({ productSlug: "p\u0000" }), []],
      [() => store.listConversations({ productSlug: "p1", customerId: "cust\u0000" }), []],
      [() => store.listConversations({ productSlug: "p1", label: "l\u0000x" }), []],
    ];
    for (const [op, empty] of reads) {
      const r = await refusedOrAnswered(op);
      if (!r.refused) expect(r.value).toEqual(empty);
    }
  });

  test("a sequence or page bound that is not a safe integer is refused with a 400 or read as a number", async (store) => {
    const input = conversationInput();
    await store.createConversation(input);
    for (const n of [1.5, 1e20]) {
      const ev = await refusedOrAnswered(() => store.readEvents({ conversationId: input.conversation.id, afterSeq: n, limit: 10 }));
      if (!ev.refused) expect(ev.value.events).toEqual([]);
      const page = await refusedOrAnswered(() => store.listConversations({ productSlug: "p1", limit: n }));
      if (!page.refused) expect(Array.isArray(page.value)).toBe(true);
    }
  });

  test("records are values: changing a returned record changes nothing stored", async (store) => {
    const input = conversationInput({ labels: ["a"] });
    const r = await store.createConversation(input);
    r.conversation.labels.push("mutated");
    r.conversation.subject = "mutated";
    const again = await store.getConversation({ id: input.conversation.id });
    expect(again?.labels).toEqual(["a"]);
    expect(again?.subject).toBe("Hello");
  });
}
