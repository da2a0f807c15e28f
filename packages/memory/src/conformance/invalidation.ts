// Conformance: ending an edge's validity or expiring its record, once, and never reviving an expired one.
import { expect } from "vitest";
import { addEpisode, commitOf, DAY, edge, episode, type StoreTest, seeded, T0 } from "./fixtures.js";

export function invalidationTests(test: StoreTest): void {
  test("invalidateEdge brings a future end forward once, and never revives an expired record", async (store) => {
    const { brainId, ep, alice, paris } = await seeded(store);
    const ep2 = episode(brainId);
    await addEpisode(store, ep2);
    const until2030 = edge(brainId, ep.id, alice.id, paris.id, { relation: "works_in", tInvalid: T0 + 100 * DAY });
    const expired = edge(brainId, ep.id, alice.id, paris.id, { relation: "studies_in", tExpired: T0 + DAY });
    await store.commitExtraction(commitOf(ep2, { createEdges: [until2030, expired], edgeIds: [until2030.id, expired.id] }));
    const r = await store.invalidateEdge({
      brainId,
      id: until2030.id,
      tInvalid: T0 + 2 * DAY,
      tExpired: null,
      reason: "left",
      invalidatedBy: null,
    });
    expect(r).toMatchObject({ ok: true, edge: { tInvalid: T0 + 2 * DAY, tExpired: null, invalidationReason: "left" } });
    const again = await store.invalidateEdge({
      brainId,
      id: until2030.id,
      tInvalid: T0 + 3 * DAY,
      tExpired: null,
      reason: "x",
      invalidatedBy: null,
    });
    expect(again).toEqual({ ok: false, reason: "already_invalid" });
    const dead = await store.invalidateEdge({
      brainId,
      id: expired.id,
      tInvalid: T0 + 3 * DAY,
      tExpired: null,
      reason: "x",
      invalidatedBy: null,
    });
    expect(dead).toEqual({ ok: false, reason: "already_invalid" });
  });

  test("invalidateEdge succeeds once, then reports already_invalid", async (store) => {
    const { brainId, e1 } = await seeded(store);
    const r1 = await store.invalidateEdge({
      brainId,
      id: e1.id,
      tInvalid: T0 + DAY,
      tExpired: T0 + DAY,
      reason: "moved",
      invalidatedBy: null,
    });
    expect(r1).toMatchObject({ ok: true, edge: { id: e1.id, tInvalid: T0 + DAY, invalidationReason: "moved" } });
    const results = await Promise.all(
      [1, 2, 3].map(() =>
        store.invalidateEdge({
          brainId,
          id: e1.id,
          tInvalid: T0 + 2 * DAY,
          tExpired: T0 + 2 * DAY,
          reason: "again",
          invalidatedBy: null,
        }),
      ),
    );
    expect(results.every((r) => !r.ok && r.reason === "already_invalid")).toBe(true);
    expect(await store.invalidateEdge({ brainId, id: "edge_missing", tInvalid: 1, tExpired: 1, reason: "x", invalidatedBy: null })).toEqual(
      { ok: false, reason: "not_found" },
    );
    expect((await store.getEdge({ brainId, id: e1.id }))!.invalidationReason).toBe("moved");
  });

  test("a commit can expire a record without ending its validity (a correction)", async (store) => {
    const { brainId, e1 } = await seeded(store);
    const ep2 = episode(brainId);
    await addEpisode(store, ep2);
    await store.commitExtraction(
      commitOf(ep2, { invalidate: [{ id: e1.id, tInvalid: null, tExpired: T0 + DAY, reason: "corrected", invalidatedBy: null }] }),
    );
    expect(await store.getEdge({ brainId, id: e1.id })).toMatchObject({
      tInvalid: null,
      tExpired: T0 + DAY,
      invalidationReason: "corrected",
    });
  });
}
