// Conformance: ending an edge's validity or expiring its record, once, and never reviving an expired one;
// a playbook holding the edge's episode is updated when it happens.
import { expect } from "vitest";
import { addEpisode, commitOf, DAY, edge, entity, episode, type StoreTest, seeded, T0, uid } from "./fixtures.js";

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
  playbookTests(test);
}

/** A playbook's `updatedAt` follows the invalidation of its facts. */
function playbookTests(test: StoreTest): void {
  test("a playbook holding an edge's episode is updated when the edge is invalidated, manually or by a commit", async (store) => {
    const brainId = uid("brain");
    await store.createBrain({ brain: { id: brainId, name: brainId, createdAt: T0 } });
    const alice = entity(brainId, "Alice Moreau");
    const paris = entity(brainId, "Paris", { kind: "place" });
    const ep1 = episode(brainId, { metadata: { playbook: "team" } });
    await addEpisode(store, ep1);
    const e1 = edge(brainId, ep1.id, alice.id, paris.id);
    const e2 = edge(brainId, ep1.id, alice.id, paris.id, { relation: "works_in" });
    await store.commitExtraction(
      commitOf(ep1, {
        now: T0 + 1000,
        createEntities: [alice, paris],
        createEdges: [e1, e2],
        entityIds: [alice.id, paris.id],
        edgeIds: [e1.id, e2.id],
        playbook: { slug: "team", title: "Team" },
      }),
    );
    const updatedAt = async () => (await store.getPlaybook({ brainId, slug: "team" }))!.updatedAt;
    expect(await updatedAt()).toBe(T0 + 1000);
    // a manual invalidation at `now`; a refused one changes nothing
    const r = await store.invalidateEdge({
      brainId,
      id: e1.id,
      tInvalid: T0 + DAY,
      now: T0 + DAY,
      tExpired: null,
      reason: "x",
      invalidatedBy: null,
    });
    expect(r.ok).toBe(true);
    expect(await updatedAt()).toBe(T0 + DAY);
    await store.invalidateEdge({
      brainId,
      id: e1.id,
      tInvalid: T0 + 5 * DAY,
      now: T0 + 5 * DAY,
      tExpired: null,
      reason: "y",
      invalidatedBy: null,
    });
    expect(await updatedAt()).toBe(T0 + DAY);
    // an episode outside the playbook closes the playbook's other fact: the playbook moves to the commit's now
    const ep2 = episode(brainId, { createdAt: T0 + 2 * DAY });
    await addEpisode(store, ep2);
    await store.commitExtraction(
      commitOf(ep2, {
        now: T0 + 2 * DAY,
        invalidate: [{ id: e2.id, tInvalid: T0 + 2 * DAY, tExpired: null, reason: "superseded", invalidatedBy: null }],
      }),
    );
    expect(await updatedAt()).toBe(T0 + 2 * DAY);
    expect((await store.listPlaybooks({ brainId, limit: 10, after: null })).items[0]!.updatedAt).toBe(T0 + 2 * DAY);
  });
}
