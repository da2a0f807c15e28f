// The store conformance cases of the customer's rating: kept with its conversation, replaced, listed and counted.
import { expect } from "vitest";
import { at, conversationInput, event, type StoreTest, uid } from "./fixtures.js";

/** The customer's rating: kept with the conversation, replaced by the next one, listed newest first and counted. */
export function ratingTests(test: StoreTest) {
  test("a rating is kept with the conversation and replaced by the next one", async (store) => {
    const input = conversationInput({ status: "resolved", productSlug: uid("p") });
    const id = input.conversation.id;
    await store.createConversation(input);
    expect((await store.getConversation({ id }))?.rating).toBeUndefined();
    const first = { score: 4, comment: "quick and kind", ratedAt: at(5) };
    const r = await store.updateConversation({ conversationId: id, expectedSeq: 1, patch: { rating: first }, events: [] });
    expect(r.ok && r.conversation.rating).toEqual(first);
    expect((await store.getConversation({ id }))?.rating).toEqual(first);
    const second = { score: 2, comment: null, ratedAt: at(6) };
    await store.updateConversation({ conversationId: id, expectedSeq: 1, patch: { rating: second }, events: [] });
    await store.updateConversation({ conversationId: id, expectedSeq: 1, patch: { assignee: "bo" }, events: [event("a", 7)] });
    expect((await store.getConversation({ id }))?.rating).toEqual(second);
    expect((await store.listConversations({ productSlug: input.conversation.productSlug }))[0]?.rating).toEqual(second);
  });

  test("ratings list newest first (ratedAt, then id) per product, filtered, paged after a position, and counted", async (store) => {
    const product = uid("p");
    const rate = async (score: number, s: number, id: string, productSlug = product) => {
      const input = conversationInput({ id, status: "resolved", productSlug, subject: `S ${id}` });
      await store.createConversation(input);
      const rating = { score, comment: score > 3 ? `good ${id}` : null, ratedAt: at(s) };
      const r = await store.updateConversation({ conversationId: id, expectedSeq: 1, patch: { rating }, events: [] });
      expect(r.ok).toBe(true);
      return id;
    };
    const base = uid("conv");
    // b and c share an instant: the larger id comes first
    const a = await rate(5, 10, `${base}_a`);
    const b = await rate(2, 20, `${base}_b`);
    const c = await rate(5, 20, `${base}_c`);
    const d = await rate(1, 30, `${base}_d`);
    await rate(4, 25, `${base}_x`, uid("p"));
    // an unrated conversation of the product is not listed
    await store.createConversation(conversationInput({ productSlug: product }));
    const ids = async (q: Omit<Parameters<typeof store.ratings.list>[0], "productSlug">) =>
      (await store.ratings.list({ productSlug: product, ...q })).map((r) => r.conversationId);
    expect(await ids({})).toEqual([d, c, b, a]);
    const [first] = await store.ratings.list({ productSlug: product, limit: 1 });
    expect(first).toEqual({
      conversationId: d,
      subject: `S ${d}`,
      customerId: expect.any(String),
      assignee: null,
      score: 1,
      comment: null,
      ratedAt: at(30),
    });
    expect(await ids({ score: 5 })).toEqual([c, a]);
    expect(await ids({ since: at(20), until: at(30) })).toEqual([c, b]);
    expect(await ids({ after: { ratedAt: at(20), id: c }, limit: 1 })).toEqual([b]);
    expect(await ids({ after: { ratedAt: at(20), id: b } })).toEqual([a]);
    expect(await store.ratings.counts({ productSlug: product })).toEqual({ 1: 1, 2: 1, 3: 0, 4: 0, 5: 2 });
    expect(await store.ratings.counts({ productSlug: product, score: 5, since: at(15) })).toEqual({ 1: 0, 2: 0, 3: 0, 4: 0, 5: 1 });
    // a deleted conversation's rating is neither listed nor counted
    const gone = await store.deleteConversation({ conversationId: d, expectedSeq: 1, deletedAt: at(40), events: [] });
    expect(gone.ok).toBe(true);
    expect(await ids({})).toEqual([c, b, a]);
    expect((await store.ratings.counts({ productSlug: product }))[1]).toBe(0);
  });
}
