import { expect } from "vitest";
import type { SupportStore } from "../store/types.js";
import { at, conversationInput, event, message, type StoreTest, uid } from "./fixtures.js";

/** Listing: order and keyset pages, filters, search. */
export function listingTests(test: StoreTest) {
  test("lists by most recent activity, then id, with keyset pagination", async (store) => {
    const p = uid("prod");
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const input = conversationInput({ productSlug: p, updatedAt: at(i % 3), id: `conv_${p}_${i}` });
      await store.createConversation(input);
      ids.push(input.conversation.id);
    }
    const all = await store.listConversations({ productSlug: p });
    const expected = [...ids].sort((a, b) => {
      const ua = at(Number(a.slice(-1)) % 3);
      const ub = at(Number(b.slice(-1)) % 3);
      return ua === ub ? (a < b ? 1 : -1) : ua < ub ? 1 : -1;
    });
    expect(all.map((c) => c.id)).toEqual(expected);
    const page1 = await store.listConversations({ productSlug: p, limit: 2 });
    expect(page1.map((c) => c.id)).toEqual(expected.slice(0, 2));
    const last = page1[1]!;
    const page2 = await store.listConversations({ productSlug: p, limit: 2, after: { updatedAt: last.updatedAt, id: last.id } });
    expect(page2.map((c) => c.id)).toEqual(expected.slice(2, 4));
    const l2 = page2[1]!;
    const page3 = await store.listConversations({ productSlug: p, limit: 2, after: { updatedAt: l2.updatedAt, id: l2.id } });
    expect(page3.map((c) => c.id)).toEqual(expected.slice(4));
  });

  test("filters by product, customer, statuses, label and assignee", async (store) => {
    const p = uid("prod");
    const a = conversationInput({ productSlug: p, customerId: "cust_x", status: "new", labels: ["billing"], assignee: "ann" });
    const b = conversationInput({ productSlug: p, customerId: "cust_y", status: "closed", labels: ["bug"], assignee: null });
    const c = conversationInput({ productSlug: uid("other"), customerId: "cust_x" });
    for (const x of [a, b, c]) await store.createConversation(x);
    const ids = async (q: Parameters<SupportStore["listConversations"]>[0]) => (await store.listConversations(q)).map((r) => r.id).sort();
    expect(await ids({ productSlug: p })).toEqual([a.conversation.id, b.conversation.id].sort());
    expect(await ids({ productSlug: p, customerId: "cust_x" })).toEqual([a.conversation.id]);
    expect(await ids({ productSlug: p, statuses: ["closed", "resolved"] })).toEqual([b.conversation.id]);
    expect(await ids({ productSlug: p, label: "billing" })).toEqual([a.conversation.id]);
    expect(await ids({ productSlug: p, label: "bill" })).toEqual([]);
    expect(await ids({ productSlug: p, assignee: "ann" })).toEqual([a.conversation.id]);
    expect(await ids({ productSlug: p, assignee: null })).toEqual([b.conversation.id]);
  });

  test("searches subject, customer id and message text (ASCII case folded, wildcards literal, metadata not text)", async (store) => {
    const p = uid("prod");
    const a = conversationInput({ productSlug: p, customerId: "cust_alpha", subject: "Refund for ORDER 77" });
    const b = conversationInput({ productSlug: p, customerId: "cust_beta", subject: "Login trouble" });
    const c = conversationInput({ productSlug: p, customerId: "cust_gamma", subject: "100% off_sale" });
    for (const x of [a, b, c]) await store.createConversation(x);
    const reply = await store.appendMessage({
      conversationId: b.conversation.id,
      expectedSeq: 1,
      message: message(b.conversation.id, {
        body: "The Password reset mail never came\n\n<!-- cs:customerId=cust_beta;clientMessageId=zebra -->",
      }),
      patch: {},
      events: [event("new_comment", 2)],
    });
    expect(reply.ok).toBe(true);
    const ids = async (q: string, extra: Partial<Parameters<SupportStore["listConversations"]>[0]> = {}) =>
      (await store.listConversations({ productSlug: p, q, ...extra })).map((r) => r.id).sort();
    expect(await ids("order 77")).toEqual([a.conversation.id]);
    expect(await ids("REFUND")).toEqual([a.conversation.id]);
    expect(await ids("password RESET")).toEqual([b.conversation.id]);
    expect(await ids("cust_gam")).toEqual([c.conversation.id]);
    // the hidden block is not the message's text
    expect(await ids("zebra")).toEqual([]);
    expect(await ids("cs:")).toEqual([]);
    // LIKE wildcards are plain characters
    expect(await ids("%")).toEqual([c.conversation.id]);
    expect(await ids("0%_o")).toEqual([]);
    expect(await ids("% off_")).toEqual([c.conversation.id]);
    expect(await ids("o_d")).toEqual([]);
    expect(await ids("\\")).toEqual([]);
    expect(await ids("nothing like this")).toEqual([]);
    // combined with the other filters and the page
    expect(await ids("cust_", { customerId: "cust_alpha" })).toEqual([a.conversation.id]);
    expect((await store.listConversations({ productSlug: p, q: "cust_", limit: 2 })).length).toBe(2);
    expect(await ids("order", { productSlug: uid("other") })).toEqual([]);
  });
}
