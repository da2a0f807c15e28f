// Conformance: idempotency keys claimed with their episode (one episode per key, also under concurrent claims; a key
// expires or is freed with its episode) and scopes and filters applied by the store (docs/memory.md#scopes-and-filters).
import { expect } from "vitest";
import type { EpisodeRecord } from "../domain/types.js";
import type { IdempotencyClaim, MemoryStore } from "../store/types.js";
import { commitOf, DAY, edge, entity, episode, type StoreTest, T0, uid } from "./fixtures.js";

const HOUR = 3_600_000;

/** createEpisode with an idempotency claim, as the service calls it. */
function claimEpisode(store: MemoryStore, ep: EpisodeRecord, idempotency: IdempotencyClaim) {
  return store.createEpisode({
    episode: ep,
    job: { id: uid("job"), queue: uid("q"), payload: { brainId: ep.brainId, episodeId: ep.id }, maxAttempts: 3 },
    idempotency,
  });
}

/** A brain of two users' extracted episodes: u1 (session s1) knows Alice lives in Paris; u2 that Alice lives in Rome. */
async function twoUsers(store: MemoryStore) {
  const brainId = uid("brain");
  await store.createBrain({ brain: { id: brainId, name: brainId, createdAt: T0 } });
  const alice = entity(brainId, "Alice Moreau", { aliases: ["Alice"] });
  const paris = entity(brainId, "Paris", { kind: "place" });
  const rome = entity(brainId, "Rome", { kind: "place" });
  const ep1 = episode(brainId, {
    content: "Alice lives in Paris.",
    userId: "u1",
    sessionId: "s1",
    metadata: { source: "chat", n: 1, ok: true },
  });
  const ep2 = episode(brainId, { content: "Alice lives in Rome.", userId: "u2", createdAt: T0 + 1, metadata: { source: "mail", n: "1" } });
  const e1 = edge(brainId, ep1.id, alice.id, paris.id, { fact: "Alice lives in Paris", userId: "u1", sessionId: "s1", tValid: T0 });
  const e2 = edge(brainId, ep2.id, alice.id, rome.id, {
    fact: "Alice lives in Rome",
    userId: "u2",
    tValid: T0 + 10 * DAY,
    tIngested: T0 + 1,
  });
  for (const ep of [ep1, ep2])
    await store.createEpisode({
      episode: ep,
      job: { id: uid("job"), queue: "memory.extract", payload: { brainId, episodeId: ep.id }, maxAttempts: 3 },
    });
  await store.commitExtraction(
    commitOf(ep1, { createEntities: [alice, paris, rome], createEdges: [e1], entityIds: [alice.id, paris.id], edgeIds: [e1.id] }),
  );
  await store.commitExtraction(commitOf(ep2, { createEdges: [e2], entityIds: [alice.id, rome.id], edgeIds: [e2.id] }));
  return { brainId, alice, paris, rome, ep1, ep2, e1, e2 };
}

const ids = (items: Array<{ id: string }>) => items.map((i) => i.id).sort();

export function scopeTests(test: StoreTest): void {
  test("an idempotency key stores one episode; a second claim answers the first with its fingerprint", async (store) => {
    const brainId = uid("brain");
    const key = uid("key");
    const first = episode(brainId, { userId: "u1" });
    expect(await claimEpisode(store, first, { key, fingerprint: "f1", expiresAt: T0 + 24 * HOUR })).toBeFalsy();
    const again = await claimEpisode(store, episode(brainId, { createdAt: T0 + HOUR }), {
      key,
      fingerprint: "f2",
      expiresAt: T0 + 25 * HOUR,
    });
    expect(again).toMatchObject({ duplicate: { id: first.id, userId: "u1" }, fingerprint: "f1" });
    expect((await store.listEpisodes({ brainId, limit: 10 })).items.map((e) => e.id)).toEqual([first.id]);
    // the same key in another brain is another key
    const other = episode(uid("brain"));
    expect(await claimEpisode(store, other, { key, fingerprint: "f1", expiresAt: T0 + 24 * HOUR })).toBeFalsy();
  });

  test("ten concurrent claims of one key store one episode and all answer it", async (store) => {
    const brainId = uid("brain");
    const key = uid("key");
    const tries = Array.from({ length: 10 }, () => episode(brainId));
    const outcomes = await Promise.all(tries.map((ep) => claimEpisode(store, ep, { key, fingerprint: "f", expiresAt: T0 + HOUR })));
    const stored = (await store.listEpisodes({ brainId, limit: 20 })).items;
    expect(stored).toHaveLength(1);
    const winners = outcomes.filter((o) => !o);
    expect(winners).toHaveLength(1);
    for (const o of outcomes) if (o) expect(o.duplicate.id).toBe(stored[0]!.id);
  });

  test("an expired key stores a new episode and is claimed by it", async (store) => {
    const brainId = uid("brain");
    const key = uid("key");
    await claimEpisode(store, episode(brainId), { key, fingerprint: "f1", expiresAt: T0 + HOUR });
    const later = episode(brainId, { createdAt: T0 + 2 * HOUR });
    expect(await claimEpisode(store, later, { key, fingerprint: "f2", expiresAt: T0 + 3 * HOUR })).toBeFalsy();
    const third = await claimEpisode(store, episode(brainId, { createdAt: T0 + 2 * HOUR + 1 }), {
      key,
      fingerprint: "f3",
      expiresAt: T0 + 4 * HOUR,
    });
    expect(third).toMatchObject({ duplicate: { id: later.id }, fingerprint: "f2" });
    expect((await store.listEpisodes({ brainId, limit: 10 })).items).toHaveLength(2);
  });

  test("scoped records keep their scope; lists and searches of one scope never return another's", async (store) => {
    const { brainId, alice, ep1, ep2, e1, e2 } = await twoUsers(store);
    expect(await store.getEpisode({ brainId, id: ep1.id })).toMatchObject({ userId: "u1", sessionId: "s1" });
    expect((await store.getEpisode({ brainId, id: ep2.id }))!.agentId).toBeUndefined();
    expect(await store.getEdge({ brainId, id: e1.id })).toMatchObject({ userId: "u1", sessionId: "s1" });
    const at = { asOf: T0 + 30 * DAY, knownAt: T0 + 30 * DAY };
    for (const [userId, ep, e] of [
      ["u1", ep1, e1],
      ["u2", ep2, e2],
    ] as const) {
      const filter = { userId };
      expect(ids((await store.listEpisodes({ brainId, limit: 10, filter })).items)).toEqual([ep.id]);
      expect(ids((await store.listEdges({ brainId, limit: 10, filter })).items)).toEqual([e.id]);
      expect(ids((await store.searchEdges({ brainId, query: "Alice lives", limit: 10, ...at, filter })).map((h) => h.item))).toEqual([
        e.id,
      ]);
      expect(ids((await store.searchEpisodes({ brainId, query: "Alice lives", limit: 10, ...at, filter })).map((h) => h.item))).toEqual([
        ep.id,
      ]);
      expect(ids(await store.edgesOfEntities({ brainId, entityIds: [alice.id], limit: 10, ...at, filter }))).toEqual([e.id]);
    }
    // no scope asked: the whole brain; a scope nobody has: nothing
    expect((await store.listEdges({ brainId, limit: 10 })).items).toHaveLength(2);
    expect((await store.listEdges({ brainId, limit: 10, filter: { userId: "u3" } })).items).toEqual([]);
    expect(await store.searchEdges({ brainId, query: "Alice", limit: 10, ...at, filter: { agentId: "a1" } })).toEqual([]);
    // null: unscoped on that axis
    expect(ids((await store.listEpisodes({ brainId, limit: 10, filter: { sessionId: null } })).items)).toEqual([ep2.id]);
    expect(ids(await store.findCurrentEdges({ brainId, source: alice.id, scope: { userId: "u1", agentId: null } }))).toEqual([e1.id]);
    expect(ids(await store.findCurrentEdges({ brainId, source: alice.id, scope: { userId: null } }))).toEqual([]);
  });

  test("lists of entities with a scope hold the entities its facts touch", async (store) => {
    const { brainId, alice, paris, rome } = await twoUsers(store);
    expect(ids((await store.listEntities({ brainId, limit: 10, scope: { userId: "u1" } })).items)).toEqual(ids([alice, paris]));
    expect(ids((await store.listEntities({ brainId, limit: 10, scope: { userId: "u2" } })).items)).toEqual(ids([alice, rome]));
    expect((await store.listEntities({ brainId, limit: 10 })).items).toHaveLength(3);
  });

  test("filters: relation, tValid range and metadata equality (typed: 1 is not '1'), an edge's metadata its episode's", async (store) => {
    const { brainId, ep1, ep2, e1, e2 } = await twoUsers(store);
    const list = async (filter: Parameters<MemoryStore["listEdges"]>[0]["filter"]) =>
      ids((await store.listEdges({ brainId, limit: 10, filter })).items);
    expect(await list({ relations: ["lives_in"] })).toEqual(ids([e1, e2]));
    expect(await list({ relations: ["works_at"] })).toEqual([]);
    expect(await list({ validFrom: T0 + DAY })).toEqual([e2.id]);
    expect(await list({ validTo: T0 + DAY })).toEqual([e1.id]);
    expect(await list({ validFrom: T0, validTo: T0 + 10 * DAY })).toEqual(ids([e1, e2]));
    expect(await list({ metadata: { source: "chat" } })).toEqual([e1.id]);
    const episodes = async (metadata: Record<string, string | number | boolean | null>) =>
      ids((await store.listEpisodes({ brainId, limit: 10, filter: { metadata } })).items);
    expect(await episodes({ n: 1 })).toEqual([ep1.id]);
    expect(await episodes({ n: "1" })).toEqual([ep2.id]);
    expect(await episodes({ ok: true })).toEqual([ep1.id]);
    expect(await episodes({ ok: false })).toEqual([]);
    expect(await episodes({ source: "chat", n: "1" })).toEqual([]);
    expect(await episodes({ missing: null })).toEqual([]);
  });
}
