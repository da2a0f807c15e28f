// Conformance: an extraction commit writes everything at once, once, and only against the brain version it read.

import { expect } from "vitest";
import { nameKeys } from "../text/names.js";
import { addEpisode, commitOf, DAY, edge, entity, episode, type StoreTest, seeded, T0, uid } from "./fixtures.js";

export function commitTests(test: StoreTest): void {
  test("findEntitiesByKeys answers in the keys' order, oldest first within a key, each entity once, up to the limit", async (store) => {
    const brainId = uid("brain");
    const ep = episode(brainId);
    await addEpisode(store, ep);
    const lee = entity(brainId, "Sam Lee", { aliases: ["Sam"], createdAt: T0 + 20 });
    const park = entity(brainId, "Sam Park", { aliases: ["Sam"], createdAt: T0 + 10 });
    const kim = entity(brainId, "Kim", { kind: "organization", createdAt: T0 + 30 });
    expect(await store.commitExtraction(commitOf(ep, { createEntities: [lee, park, kim], entityIds: [lee.id, park.id, kim.id] }))).toEqual({
      committed: true,
    });
    // another brain's entities under the same keys are never answered
    const other = episode(uid("brain"));
    await addEpisode(store, other);
    await store.commitExtraction(commitOf(other, { createEntities: [entity(other.brainId, "Sam"), entity(other.brainId, "Kim")] }));
    const names = async (keys: string[], limit: number) => (await store.findEntitiesByKeys({ brainId, keys, limit })).map((e) => e.name);
    expect(await names(["kim", "sam"], 10)).toEqual(["Kim", "Sam Park", "Sam Lee"]);
    expect(await names(["sam", "kim"], 10)).toEqual(["Sam Park", "Sam Lee", "Kim"]);
    expect(await names(["sam lee", "sam", "sam lee"], 10)).toEqual(["Sam Lee", "Sam Park"]);
    expect(await names(["sam", "kim"], 2)).toEqual(["Sam Park", "Sam Lee"]);
    expect(await names(["nobody", "sam park"], 5)).toEqual(["Sam Park"]);
    expect(await names(["sam"], 0)).toEqual([]);
    expect(await store.findEntitiesByKeys({ brainId, keys: ["kim"], limit: 1 })).toEqual([kim]);
  });

  test("commitExtraction writes everything, marks the episode done and is idempotent", async (store) => {
    const { brainId, ep, alice, e1 } = await seeded(store);
    const done = await store.getEpisode({ brainId, id: ep.id });
    expect(done).toMatchObject({ status: "done", edgeIds: [e1.id] });
    expect(done!.entityIds).toContain(alice.id);
    const again = await store.commitExtraction(
      commitOf(ep, { createEntities: [entity(brainId, "Bob")], createEdges: [edge(brainId, ep.id, alice.id, alice.id)] }),
    );
    expect(again).toEqual({ committed: false, reason: "already_done" });
    expect((await store.listEntities({ brainId, limit: 100 })).items).toHaveLength(2);
    expect((await store.listEdges({ brainId, limit: 100 })).items).toHaveLength(1);
  });

  test("commitExtraction is optimistic on the brain version: a commit resolved against an older one writes nothing", async (store) => {
    if (!store.brainVersion) return;
    const brainId = uid("brain");
    expect(await store.brainVersion({ brainId })).toBe(0);
    const [ep1, ep2, ep3] = [episode(brainId), episode(brainId), episode(brainId)];
    for (const ep of [ep1, ep2, ep3])
      await store.createEpisode({
        episode: ep,
        job: { id: uid("job"), queue: uid("q"), payload: { brainId, episodeId: ep.id }, maxAttempts: 3 },
      });
    const first = entity(brainId, "Alice Moreau");
    const twin = entity(brainId, "Alice Moreau");
    expect(await store.commitExtraction(commitOf(ep1, { createEntities: [first], expectVersion: 0 }))).toEqual({ committed: true });
    expect(await store.brainVersion({ brainId })).toBe(1);
    // ep2 was resolved before ep1 landed: it would create Alice again
    expect(await store.commitExtraction(commitOf(ep2, { createEntities: [twin], expectVersion: 0 }))).toEqual({
      committed: false,
      reason: "conflict",
    });
    expect((await store.listEntities({ brainId, limit: 10 })).items.map((e) => e.id)).toEqual([first.id]);
    expect(await store.getEpisode({ brainId, id: ep2.id })).toMatchObject({ status: "queued" });
    expect(await store.brainVersion({ brainId })).toBe(1);
    expect(await store.commitExtraction(commitOf(ep2, { expectVersion: 1 }))).toEqual({ committed: true });
    // without expectVersion there is no check, and the version still moves
    expect(await store.commitExtraction(commitOf(ep3))).toEqual({ committed: true });
    expect(await store.brainVersion({ brainId })).toBe(3);
    expect(await store.brainVersion({ brainId: uid("brain") })).toBe(0);
  });

  test("commitExtraction on an unknown episode commits nothing", async (store) => {
    const brainId = uid("brain");
    const r = await store.commitExtraction(commitOf(episode(brainId), { createEntities: [entity(brainId, "Zed")] }));
    expect(r).toEqual({ committed: false, reason: "episode_not_found" });
    expect((await store.listEntities({ brainId, limit: 10 })).items).toEqual([]);
  });

  test("commitExtraction invalidates, updates entities and feeds playbooks", async (store) => {
    const { brainId, alice, paris, e1 } = await seeded(store);
    const ep2 = episode(brainId, { createdAt: T0 + DAY, content: "Alice moved to Berlin", metadata: { playbook: "alice" } });
    await addEpisode(store, ep2);
    const berlin = entity(brainId, "Berlin", { kind: "place" });
    const e2 = edge(brainId, ep2.id, alice.id, berlin.id, { fact: "Alice moved to Berlin", tValid: T0 + DAY, tIngested: T0 + DAY });
    await store.commitExtraction(
      commitOf(ep2, {
        now: T0 + DAY,
        createEntities: [berlin],
        updateEntities: [
          {
            id: alice.id,
            name: "Alice Moreau",
            kind: "person",
            aliases: ["Alice", "A. Moreau"],
            keys: nameKeys(["Alice Moreau", "Alice", "A. Moreau"]),
            updatedAt: T0 + DAY,
          },
        ],
        createEdges: [e2],
        invalidate: [{ id: e1.id, tInvalid: T0 + DAY, tExpired: T0 + DAY, reason: `superseded by edge ${e2.id}`, invalidatedBy: e2.id }],
        entityIds: [alice.id, berlin.id],
        edgeIds: [e2.id],
        playbook: { slug: "alice", title: "Alice" },
      }),
    );
    const old = await store.getEdge({ brainId, id: e1.id });
    expect(old).toMatchObject({ tInvalid: T0 + DAY, tExpired: T0 + DAY, invalidatedBy: e2.id });
    expect((await store.getEntity({ brainId, id: alice.id }))!.aliases).toContain("A. Moreau");
    expect((await store.findEntitiesByKeys({ brainId, keys: ["a moreau"], limit: 5 })).map((e) => e.id)).toEqual([alice.id]);
    expect(await store.findCurrentEdges({ brainId, source: alice.id, relation: "lives_in" })).toHaveLength(1);
    // several sources at once (a run's prefetch): each source's current edges, a repeated source counted once
    expect((await store.findCurrentEdges({ brainId, source: [berlin.id, alice.id, alice.id] })).map((e) => e.id)).toEqual([e2.id]);
    expect(await store.findCurrentEdges({ brainId, source: [berlin.id] })).toEqual([]);
    const pb = await store.getPlaybook({ brainId, slug: "alice" });
    expect(pb).toMatchObject({ slug: "alice", title: "Alice", episodeIds: [ep2.id] });
    expect((await store.edgesOfEpisodes({ brainId, episodeIds: [ep2.id] })).map((e) => e.id)).toEqual([e2.id]);
    expect((await store.listPlaybooks({ brainId, limit: 10 })).items.map((p) => p.slug)).toEqual(["alice"]);
    expect(paris.id).toBeTruthy();
  });
}

/** A commit that references what its brain does not hold fails whole, and touches no other brain. */
export function commitReferenceTests(test: StoreTest): void {
  test("commitExtraction that links, updates or invalidates what the brain does not hold fails and writes nothing", async (store) => {
    const { brainId, alice, e1 } = await seeded(store);
    // another brain's entity and edge, under ids this brain does not hold
    const other = await seeded(store);
    const before = { entities: await store.listEntities({ brainId, limit: 100 }), edges: await store.listEdges({ brainId, limit: 100 }) };
    const attempts = (ep: ReturnType<typeof episode>) => {
      const zed = entity(brainId, "Zed");
      return [
        commitOf(ep, { createEntities: [zed], createEdges: [edge(brainId, ep.id, zed.id, other.alice.id)] }),
        commitOf(ep, {
          updateEntities: [
            { id: other.alice.id, name: "Mallory", kind: "person", aliases: [], keys: nameKeys(["Mallory"]), updatedAt: T0 + DAY },
          ],
        }),
        commitOf(ep, {
          createEntities: [zed],
          invalidate: [{ id: other.e1.id, tInvalid: T0 + DAY, tExpired: T0 + DAY, reason: "superseded", invalidatedBy: null }],
        }),
      ];
    };
    const ep = episode(brainId, { createdAt: T0 + DAY });
    await addEpisode(store, ep);
    for (const c of attempts(ep)) await expect(store.commitExtraction(c)).rejects.toThrow();
    expect(await store.listEntities({ brainId, limit: 100 })).toEqual(before.entities);
    expect(await store.listEdges({ brainId, limit: 100 })).toEqual(before.edges);
    expect(await store.getEpisode({ brainId, id: ep.id })).toMatchObject({ status: "queued" });
    expect(await store.getEntity({ brainId: other.brainId, id: other.alice.id })).toMatchObject({ name: other.alice.name });
    expect(await store.getEdge({ brainId: other.brainId, id: other.e1.id })).toMatchObject({ tInvalid: null });
    // the same episode still commits what the brain holds
    expect(await store.commitExtraction(commitOf(ep, { createEdges: [edge(brainId, ep.id, alice.id, alice.id)] }))).toEqual({
      committed: true,
    });
    expect(e1.id).toBeTruthy();
  });
}
