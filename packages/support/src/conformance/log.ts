import { expect } from "vitest";
import { at, conversationInput, event, type StoreTest, uid } from "./fixtures.js";

/** The event log's pages and pruning, and webhook delivery claims. */
export function logTests(test: StoreTest) {
  test("readEvents pages after a seq; pruning reports what is gone", async (store) => {
    const input = conversationInput();
    const id = input.conversation.id;
    await store.createConversation(input);
    for (let i = 1; i <= 5; i++) {
      const r = await store.updateConversation({
        conversationId: id,
        expectedSeq: i,
        patch: {},
        events: [event("labels_changed", i * 100)],
      });
      expect(r.ok).toBe(true);
    }
    const page = await store.readEvents({ conversationId: id, afterSeq: 2, limit: 2 });
    expect(page.events.map((e) => e.seq)).toEqual([3, 4]);
    expect(page.prunedThrough).toBe(0);
    const pruned = await store.pruneEvents({ before: at(250) });
    expect(pruned).toBeGreaterThanOrEqual(3);
    const after = await store.readEvents({ conversationId: id, afterSeq: 0, limit: 10 });
    expect(after.prunedThrough).toBe(3);
    expect(after.events.map((e) => e.seq)).toEqual([4, 5, 6]);
    // appending keeps counting from lastSeq
    const next = await store.updateConversation({ conversationId: id, expectedSeq: 6, patch: {}, events: [event("x", 999)] });
    expect(next.ok && next.seqs).toEqual([7]);
  });

  test("claimDelivery: the first claim wins, repeats and concurrent claims lose; release and prune forget", async (store) => {
    const source = uid("src");
    const id = uid("dlv");
    expect(await store.claimDelivery({ source, deliveryId: id, receivedAt: at(10) })).toBe(true);
    expect(await store.claimDelivery({ source, deliveryId: id, receivedAt: at(11) })).toBe(false);
    // the same id from another source is another delivery
    expect(await store.claimDelivery({ source: `${source}x`, deliveryId: id, receivedAt: at(10) })).toBe(true);
    const racers = uid("dlv");
    const wins = await Promise.all(
      Array.from({ length: 8 }, () => store.claimDelivery({ source, deliveryId: racers, receivedAt: at(12) })),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
    await store.releaseDelivery({ source, deliveryId: id });
    expect(await store.claimDelivery({ source, deliveryId: id, receivedAt: at(13) })).toBe(true);
    // prune is global: only count what this test can see through claims
    const old = uid("dlv");
    expect(await store.claimDelivery({ source, deliveryId: old, receivedAt: "2000-01-01T00:00:00.000Z" })).toBe(true);
    expect(await store.pruneDeliveries({ before: "2000-01-02T00:00:00.000Z" })).toBeGreaterThanOrEqual(1);
    expect(await store.claimDelivery({ source, deliveryId: old, receivedAt: at(14) })).toBe(true);
    expect(await store.claimDelivery({ source, deliveryId: racers, receivedAt: at(14) })).toBe(false);
  });
}
