// Full-text context of conversation turns in the in-memory store: a turn is found by the words of the
// two turns before it and the one after it in its conversation, never by another conversation's or by
// turns further away. (The store conformance suite, src/testing.ts, checks the same on every store.)
import { describe, expect, it } from "vitest";
import { conversationKey, searchableText } from "../src/domain/conversation.js";
import type { EpisodeRecord } from "../src/domain/types.js";
import { inMemoryMemoryStore } from "../src/store/in-memory.js";

function episode(id: string, content: string, metadata: Record<string, unknown>): EpisodeRecord {
  return {
    id,
    brainId: "b",
    content,
    metadata,
    occurredAt: 0,
    createdAt: 0,
    status: "queued",
    error: null,
    entityIds: [],
    edgeIds: [],
    processedAt: null,
  };
}

describe("conversation context", () => {
  it("names the conversation from metadata, or none", () => {
    expect(conversationKey({ session: "s1" })).not.toBeNull();
    expect(conversationKey({ thread: 42 })).not.toBeNull();
    expect(conversationKey({ session: "s1" })).not.toBe(conversationKey({ session: "s2" }));
    expect(conversationKey({ channel: "email" })).toBeNull();
    expect(searchableText("A sunset.", ["What did you paint?"])).toBe("A sunset.\nWhat did you paint?");
    expect(searchableText("Look.", ["Hi."], ["A sunset."])).toBe("Look.\nHi.\nA sunset.");
  });

  it("indexes a turn with the two turns before it and the one after it, in the same conversation only", async () => {
    const store = inMemoryMemoryStore();
    await store.createBrain({ brain: { id: "b", name: "b", createdAt: 0 } });
    const turns: Array<[string, string, Record<string, unknown>]> = [
      ["e1", "Did you ever try pottery?", { session: "one" }],
      ["e2", "What did you paint last week?", { session: "one" }],
      ["e3", "Something unrelated in another chat.", { session: "two" }],
      ["e4", "A sunset over the lake.", { session: "one" }],
      ["e5", "And a portrait after that.", { session: "one" }],
      ["e6", "Standalone note about a sunset.", {}],
    ];
    for (const [id, content, metadata] of turns)
      await store.createEpisode({
        episode: episode(id, content, metadata),
        job: { id: `j${id}`, queue: "q", payload: { brainId: "b", episodeId: id }, maxAttempts: 1 },
      });
    const ids = async (query: string) =>
      (await store.searchEpisodes({ brainId: "b", query, limit: 10, asOf: 1 })).map((h) => h.item.id).sort();
    // e4 is found through e2's words; e5 too (two turns back); e1 through the turn after it (e2); e3's
    // conversation is another one
    expect(await ids("paint")).toEqual(["e1", "e2", "e4", "e5"]);
    // e2 holds e4 after it (its next turn in the conversation, past e3 of another one); e1 does not
    expect(await ids("sunset")).toEqual(["e2", "e4", "e5", "e6"]);
    // e1 is three turns before e5 in its conversation: out of its window
    expect(await ids("pottery")).toEqual(["e1", "e2", "e4"]);
    expect(await ids("unrelated")).toEqual(["e3"]);
    // content is returned as sent, without the context
    expect((await store.getEpisode({ brainId: "b", id: "e4" }))!.content).toBe("A sunset over the lake.");
  });
});
