// Conformance: full-text search by brain, past better-ranked invisible hits, and with a conversation's neighbouring turns
// (named by metadata, or inferred from the time between turns).
import { expect } from "vitest";
import { INFERRED_TURN_CHARS } from "../domain/conversation.js";
import { addEpisode, commitOf, DAY, edge, episode, type StoreTest, seeded, T0, uid } from "./fixtures.js";

export function searchTests(test: StoreTest): void {
  test("scopes every read by brain", async (store) => {
    const { ep, alice, e1 } = await seeded(store);
    const other = uid("brain");
    expect(await store.getEpisode({ brainId: other, id: ep.id })).toBeNull();
    expect(await store.getEntity({ brainId: other, id: alice.id })).toBeNull();
    expect(await store.getEdge({ brainId: other, id: e1.id })).toBeNull();
    expect(await store.getEdges({ brainId: other, ids: [e1.id] })).toEqual([]);
    expect(await store.searchEdges({ brainId: other, query: "Paris", limit: 10, asOf: T0 + DAY })).toEqual([]);
    expect(await store.searchEpisodes({ brainId: other, query: "Paris", limit: 10, asOf: T0 + DAY })).toEqual([]);
    expect(await store.searchEntities({ brainId: other, query: "Alice", limit: 10 })).toEqual([]);
    expect(
      (await store.invalidateEdge({ brainId: other, id: e1.id, tInvalid: T0, tExpired: T0, reason: "x", invalidatedBy: null })).ok,
    ).toBe(false);
  });

  test("searchEdges finds a visible hit ranked below hundreds of better-ranked invisible ones", async (store) => {
    const { brainId, alice, paris } = await seeded(store);
    const ep2 = episode(brainId);
    await addEpisode(store, ep2);
    const future = Array.from({ length: 300 }, (_, i) =>
      edge(brainId, ep2.id, alice.id, paris.id, { relation: `r${i}`, fact: `ancient ancient relic ${i}`, tValid: T0 + 10 * DAY }),
    );
    const visible = edge(brainId, ep2.id, alice.id, paris.id, {
      relation: "found",
      fact: "Alice found an ancient coin while walking along the river bank with friends",
    });
    const all = [...future, visible];
    await store.commitExtraction(commitOf(ep2, { createEdges: all, edgeIds: all.map((e) => e.id) }));
    const hits = await store.searchEdges({ brainId, query: "ancient relic", limit: 5, asOf: T0 + DAY });
    expect(hits.map((h) => h.item.id)).toEqual([visible.id]);
    expect(await store.searchEdges({ brainId, query: "ancient relic", limit: 5, asOf: T0 + 20 * DAY })).toHaveLength(5);
  });

  test("full-text search finds episodes, entities and facts by their words", async (store) => {
    const { brainId, ep, alice, e1 } = await seeded(store);
    expect(
      (await store.searchEpisodes({ brainId, query: "where does she live in Paris", limit: 5, asOf: T0 + DAY })).map((h) => h.item.id),
    ).toEqual([ep.id]);
    expect(await store.searchEpisodes({ brainId, query: "Paris", limit: 5, asOf: T0 - 1 })).toEqual([]);
    expect((await store.searchEntities({ brainId, query: "alice", limit: 5 }))[0]!.item.id).toBe(alice.id);
    expect((await store.searchEdges({ brainId, query: "lives Paris", limit: 5, asOf: T0 + DAY }))[0]!.item.id).toBe(e1.id);
    expect(await store.searchEdges({ brainId, query: "zeppelin", limit: 5, asOf: T0 + DAY })).toEqual([]);
  });

  test("indexes a conversation's turn with the two turns before it and the one after it, within its conversation", async (store) => {
    const brainId = uid("brain");
    await store.createBrain({ brain: { id: brainId, name: brainId, createdAt: T0 } });
    const add = async (content: string, metadata: Record<string, unknown>) => {
      const ep = episode(brainId, { content, metadata });
      await store.createEpisode({
        episode: ep,
        job: { id: uid("job"), queue: uid("q"), payload: { brainId, episodeId: ep.id }, maxAttempts: 1 },
      });
      return ep.id;
    };
    const search = async (query: string) =>
      (await store.searchEpisodes({ brainId, query, limit: 10, asOf: T0 + DAY })).map((h) => h.item.id).sort();
    const s1 = { session: "s1" };
    const t1 = await add("Ana: What did you paint last weekend?", s1);
    const t2 = await add("Ben: Take a look at this.", s1);
    const t3 = await add("Ben: A lake at sunrise, in watercolour.", s1);
    const t4 = await add("Ana: Lovely colours.", s1);
    const t5 = await add("Ana: Shall we talk tomorrow?", s1);
    // another conversation and an episode with none are indexed alone
    const other = await add("Cleo: Hello there.", { session: "s2" });
    const alone = await add("Dan: Good morning.", {});
    // t2 and t3 hold "paint" from t1 before them; t2 also holds "sunrise" from t3 after it; t4 holds
    // t3 before it and nothing of t1 (two turns back only)
    expect(await search("paint")).toEqual([t1, t2, t3].sort());
    expect(await search("sunrise watercolour")).toEqual([t2, t3, t4, t5].sort());
    expect(await search("lovely")).toEqual([t3, t4, t5].sort());
    // the conversation's neighbours never cross into another conversation or an unnamed one
    expect(await search("hello")).toEqual([other]);
    expect(await search("morning")).toEqual([alone]);
    // a turn holds the one after it: t1 holds t2
    expect(await search("take look")).toEqual([t1, t2, t3, t4].sort());
  });

  test("turns that name no conversation are grouped by the time between them (CONVERSATION_GAP_MS)", async (store) => {
    const brainId = uid("brain");
    await store.createBrain({ brain: { id: brainId, name: brainId, createdAt: T0 } });
    const MIN = 60_000;
    // one createdAt for all (a bulk import within a millisecond): the previous episode is the last inserted
    const add = async (content: string, minutes: number, metadata: Record<string, unknown> = {}) => {
      const ep = episode(brainId, { content, metadata, occurredAt: T0 + minutes * MIN, createdAt: T0 });
      await addEpisode(store, ep);
      return ep.id;
    };
    const search = async (query: string) =>
      (await store.searchEpisodes({ brainId, query, limit: 10, asOf: T0 + 30 * DAY })).map((h) => h.item.id).sort();
    const u1 = await add("Ana: What did you paint last weekend?", 0);
    const u2 = await add("Ben: A lake at sunrise.", 5);
    const u3 = await add("Ben: Off to bed now.", 25); // 20 minutes after u2: the gap counts from the previous turn
    const u4 = await add("Ana: Morning! Coffee later?", 600); // ten hours later: another conversation
    const u5 = await add("Ben: Sure, at noon.", 601);
    const n1 = await add("Cleo: Hello there.", 602, { session: "s9" });
    const u6 = await add("Dan: Good evening.", 603); // the previous episode names its conversation: a new one
    // longer than a turn: indexed alone, and the turn after it starts a conversation of its own
    const long = await add(`Fay: ${"A report about marigolds in the garden. ".repeat(Math.ceil(INFERRED_TURN_CHARS / 40) + 1)}`, 604);
    const u8 = await add("Gus: And the lilies?", 605);
    const u7 = await add("Eve: An old diary entry about tulips.", -400 * 24 * 60); // backdated: alone
    expect(await search("paint")).toEqual([u1, u2, u3].sort());
    expect(await search("sunrise")).toEqual([u1, u2, u3].sort());
    expect(await search("coffee")).toEqual([u4, u5].sort());
    expect(await search("noon")).toEqual([u4, u5].sort());
    expect(await search("hello")).toEqual([n1]);
    expect(await search("evening")).toEqual([u6]);
    expect(await search("diary tulips")).toEqual([u7]);
    expect(await search("marigolds")).toEqual([long]);
    expect(await search("lilies")).toEqual([u8]);
    // metadata stays as sent: the inferred conversation is the store's own
    expect((await store.getEpisode({ brainId, id: u2 }))!.metadata).toEqual({});
  });
}
