// Conformance: the optional vector index: nearest by cosine, per brain and kind.
import { expect } from "vitest";
import { type StoreTest, uid } from "./fixtures.js";

export function vectorTests(test: StoreTest): void {
  test("vectors: nearest by cosine, per brain and kind, re-put replaces, limit holds", async (store) => {
    if (!store.putEmbeddings || !store.searchVectors) return; // optional: a store without vectors has no index to test
    const [a, b] = [uid("brain"), uid("brain")];
    // eight directions in 16 dimensions, plus small per-item noise so no two scores tie
    const dir = (k: number, noise = 0) => Array.from({ length: 16 }, (_, i) => (i === k ? 1 : 0) + noise * ((i * 7 + k * 3) % 5) * 0.01);
    await store.putEmbeddings({
      brainId: a,
      items: Array.from({ length: 8 }, (_, k) => ({ kind: "edge" as const, id: `e${k}`, vector: dir(k, 1) })),
    });
    await store.putEmbeddings({ brainId: a, items: [{ kind: "episode", id: "p0", vector: dir(3) }] });
    await store.putEmbeddings({ brainId: b, items: [{ kind: "edge", id: "other", vector: dir(3) }] });
    const q = dir(3);
    q[2] = 0.5; // second nearest: e2
    const hits = await store.searchVectors({ brainId: a, kind: "edge", vector: q, limit: 3 });
    expect(hits.map((h) => h.item).slice(0, 2)).toEqual(["e3", "e2"]);
    expect(hits).toHaveLength(3);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(hits[0]!.score).toBeGreaterThan(0.85);
    expect(hits[0]!.score).toBeLessThan(0.95);
    // brains and kinds never mix
    expect((await store.searchVectors({ brainId: b, kind: "edge", vector: q, limit: 10 })).map((h) => h.item)).toEqual(["other"]);
    expect((await store.searchVectors({ brainId: a, kind: "episode", vector: q, limit: 10 })).map((h) => h.item)).toEqual(["p0"]);
    expect(await store.searchVectors({ brainId: uid("brain"), kind: "edge", vector: q, limit: 10 })).toEqual([]);
    expect(await store.searchVectors({ brainId: a, kind: "edge", vector: q, limit: 0 })).toEqual([]);
    // a re-put moves the vector: e7 now points where e3 did, and e3 away
    await store.putEmbeddings({
      brainId: a,
      items: [
        { kind: "edge", id: "e7", vector: dir(3) },
        { kind: "edge", id: "e3", vector: dir(9) },
      ],
    });
    const moved = await store.searchVectors({ brainId: a, kind: "edge", vector: dir(3), limit: 8 });
    expect(moved[0]!.item).toBe("e7");
    expect(moved[0]!.score).toBeCloseTo(1, 4);
    expect(moved.map((h) => h.item)).not.toContain("other");
    expect(moved.map((h) => h.item)).toContain("e3");
    expect(moved.find((h) => h.item === "e3")!.score).toBeLessThan(0.2);
  });
}
