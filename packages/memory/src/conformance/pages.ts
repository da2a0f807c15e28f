// Conformance: newest-first pages without gaps or repeats, and edge pages at a bi-temporal point.
import { refusedOrAnswered } from "@mountkit/core/testing";
import { expect } from "vitest";
import type { MemoryStore } from "../store/types.js";
import { addEpisode, commitOf, DAY, edge, entity, episode, type StoreTest, seeded, T0, uid } from "./fixtures.js";

export function pageTests(test: StoreTest): void {
  test("lists page newest first without gaps or repeats", async (store) => {
    const brainId = uid("brain");
    const made: string[] = [];
    for (let i = 0; i < 7; i++) {
      const ep = episode(brainId, { createdAt: T0 + (i % 3) * 1000 });
      made.push(ep.id);
      await addEpisode(store, ep);
    }
    const seen: string[] = [];
    let after = null;
    for (let guard = 0; guard < 10; guard++) {
      const page: Awaited<ReturnType<MemoryStore["listEpisodes"]>> = await store.listEpisodes({ brainId, limit: 3, after });
      seen.push(...page.items.map((e) => e.id));
      for (let i = 1; i < page.items.length; i++) expect(page.items[i - 1]!.createdAt).toBeGreaterThanOrEqual(page.items[i]!.createdAt);
      if (!page.next) break;
      after = page.next;
    }
    expect([...seen].sort()).toEqual([...made].sort());
    expect(new Set(seen).size).toBe(7);
  });

  test("a page position that is not a safe integer is refused with a 400 or read as a position", async (store) => {
    const brainId = uid("brain");
    for (const createdAt of [1.5, 1e20]) {
      const r = await refusedOrAnswered(() => store.listEpisodes({ brainId, limit: 3, after: { createdAt, id: "ep_x" } }));
      if (!r.refused) expect(r.value.items).toEqual([]);
    }
  });

  test("listEdges at a bi-temporal point keeps only visible edges, pages them, and filters by entity too", async (store) => {
    const { brainId, alice, paris, e1 } = await seeded(store);
    const berlin = entity(brainId, "Berlin", { kind: "place" });
    const ep2 = episode(brainId, { createdAt: T0 + DAY });
    await addEpisode(store, ep2);
    // Alice moved to Berlin at T0 + 5 days (ingested a day later); a wrong record is expired at T0 + 8 days
    const moved = edge(brainId, ep2.id, alice.id, berlin.id, {
      fact: "Alice lives in Berlin",
      tValid: T0 + 5 * DAY,
      tIngested: T0 + 6 * DAY,
    });
    const wrong = edge(brainId, ep2.id, paris.id, berlin.id, {
      relation: "twinned_with",
      fact: "Paris is twinned with Berlin",
      tIngested: T0 + 6 * DAY,
      tExpired: T0 + 8 * DAY,
    });
    await store.commitExtraction(
      commitOf(ep2, {
        now: T0 + 6 * DAY,
        createEntities: [berlin],
        createEdges: [moved, wrong],
        invalidate: [{ id: e1.id, tInvalid: T0 + 5 * DAY, tExpired: null, reason: `superseded by ${moved.id}`, invalidatedBy: moved.id }],
        entityIds: [berlin.id],
        edgeIds: [moved.id, wrong.id],
      }),
    );
    const ids = async (at?: { asOf: number; knownAt?: number }, entityId?: string) => {
      const out: string[] = [];
      let after = null;
      for (let guard = 0; guard < 10; guard++) {
        const page: Awaited<ReturnType<MemoryStore["listEdges"]>> = await store.listEdges({ brainId, limit: 1, after, at, entityId });
        out.push(...page.items.map((e) => e.id));
        if (!page.next) break;
        after = page.next;
      }
      return out.sort();
    };
    const sorted = (...xs: string[]) => [...xs].sort();
    // no point: the whole history, invalid and expired records included
    expect(await ids()).toEqual(sorted(e1.id, moved.id, wrong.id));
    // before the move, as known after it: Paris (and the not yet expired twinning)
    expect(await ids({ asOf: T0 + 2 * DAY, knownAt: T0 + 7 * DAY })).toEqual(sorted(e1.id, wrong.id));
    // after the move: Berlin; after the correction the twinning is no longer believed
    expect(await ids({ asOf: T0 + 9 * DAY, knownAt: T0 + 9 * DAY })).toEqual(sorted(moved.id));
    // known before the move was recorded: Paris only, valid then and believed then
    expect(await ids({ asOf: T0 + 4 * DAY, knownAt: T0 + 2 * DAY })).toEqual(sorted(e1.id));
    // the entity filter and the point together
    expect(await ids({ asOf: T0 + 9 * DAY, knownAt: T0 + 7 * DAY }, paris.id)).toEqual(sorted(wrong.id));
    expect(await ids({ asOf: T0 + 2 * DAY, knownAt: T0 + 9 * DAY }, alice.id)).toEqual(sorted(e1.id));
    expect(await store.listEdges({ brainId: uid("brain"), limit: 10, at: { asOf: T0 + 2 * DAY } })).toEqual({ items: [], next: null });
  });
}
