// Conformance: the bi-temporal reads: valid time (asOf) and transaction time (knownAt), read apart.
import { expect } from "vitest";
import { addEpisode, commitOf, DAY, edge, episode, type StoreTest, seeded, T0 } from "./fixtures.js";

export function timeTests(test: StoreTest): void {
  test("searchEdges is bi-temporal: only edges valid and known at asOf", async (store) => {
    const { brainId, ep, alice, paris } = await seeded(store);
    const old = edge(brainId, ep.id, alice.id, paris.id, {
      fact: "Alice rented a flat near the Louvre",
      tValid: T0 - 10 * DAY,
      tInvalid: T0,
      tIngested: T0 - 10 * DAY,
      tExpired: T0,
    });
    const later = edge(brainId, ep.id, alice.id, paris.id, {
      fact: "Alice bought a flat near the Louvre",
      tValid: T0 + 5 * DAY,
      tIngested: T0 + 5 * DAY,
    });
    const ep2 = episode(brainId);
    await addEpisode(store, ep2);
    await store.commitExtraction(commitOf(ep2, { createEdges: [old, later], edgeIds: [old.id, later.id] }));
    const at = async (t: number) => (await store.searchEdges({ brainId, query: "flat Louvre", limit: 10, asOf: t })).map((h) => h.item.id);
    expect(await at(T0 - DAY)).toEqual([old.id]);
    expect(await at(T0)).toEqual([]);
    expect(await at(T0 + 6 * DAY)).toEqual([later.id]);
  });

  test("valid time (asOf) and transaction time (knownAt) are read apart", async (store) => {
    const { brainId, alice, paris } = await seeded(store);
    // history imported a day after T0 about ten days before it, then found wrong (expired) at T0 + 3 days
    const ep2 = episode(brainId, { content: "Alice painted the Louvre gardens", occurredAt: T0 - 10 * DAY, createdAt: T0 + DAY });
    await addEpisode(store, ep2);
    const imported = edge(brainId, ep2.id, alice.id, paris.id, {
      relation: "painted",
      fact: "Alice painted the Louvre gardens",
      tValid: T0 - 10 * DAY,
      tIngested: T0 + DAY,
      tExpired: T0 + 3 * DAY,
    });
    await store.commitExtraction(commitOf(ep2, { now: T0 + DAY, createEdges: [imported], edgeIds: [imported.id] }));
    const edges = async (asOf: number, knownAt?: number) =>
      (await store.searchEdges({ brainId, query: "painted Louvre", limit: 10, asOf, knownAt })).map((h) => h.item.id);
    const near = async (asOf: number, knownAt?: number) =>
      (await store.edgesOfEntities({ brainId, entityIds: [alice.id], asOf, knownAt, limit: 10 })).map((e) => e.id);
    const episodes = async (asOf: number, knownAt?: number) =>
      (await store.searchEpisodes({ brainId, query: "painted Louvre", limit: 10, asOf, knownAt })).map((h) => h.item.id);
    expect(await edges(T0 - 5 * DAY, T0 + 2 * DAY)).toEqual([imported.id]);
    expect(await near(T0 - 5 * DAY, T0 + 2 * DAY)).toEqual([imported.id]);
    expect(await episodes(T0 - 5 * DAY, T0 + 2 * DAY)).toEqual([ep2.id]);
    // not yet known, or no longer believed
    expect(await edges(T0 - 5 * DAY, T0)).toEqual([]);
    expect(await edges(T0 - 5 * DAY, T0 + 3 * DAY)).toEqual([]);
    expect(await near(T0 - 5 * DAY, T0 + 4 * DAY)).toEqual([]);
    expect(await episodes(T0 - 5 * DAY, T0)).toEqual([]);
    // not yet valid
    expect(await edges(T0 - 11 * DAY, T0 + 2 * DAY)).toEqual([]);
    expect(await episodes(T0 - 11 * DAY, T0 + 2 * DAY)).toEqual([]);
    // without knownAt both axes are read at asOf
    expect(await edges(T0 - 5 * DAY)).toEqual([]);
    expect(await edges(T0 + 2 * DAY)).toEqual([imported.id]);
  });

  test("edgesOfEntities returns visible edges, most recently valid first", async (store) => {
    const { brainId, ep, alice, paris, e1 } = await seeded(store);
    const e2 = edge(brainId, ep.id, paris.id, alice.id, { relation: "home_of", fact: "Paris is home to Alice", tValid: T0 + DAY });
    const ep2 = episode(brainId);
    await addEpisode(store, ep2);
    await store.commitExtraction(commitOf(ep2, { createEdges: [e2], edgeIds: [e2.id] }));
    const ids = (await store.edgesOfEntities({ brainId, entityIds: [alice.id], asOf: T0 + 2 * DAY, limit: 10 })).map((e) => e.id);
    expect(ids).toEqual([e2.id, e1.id]);
    expect((await store.edgesOfEntities({ brainId, entityIds: [alice.id], asOf: T0 + 1, limit: 10 })).map((e) => e.id)).toEqual([e1.id]);
  });
}
