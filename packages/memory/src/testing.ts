// Store conformance suite: every MemoryStore (in-memory, SQLite, PostgreSQL, third-party) runs it.
// Usage: describeMemoryStore("sqlite", async () => ({ store, close }), { skip: [{ reason, tests }] }).
import { refusedOrAnswered, type SkipGroup, skipLookup } from "@mountkit/core";
import { describe, expect, it } from "vitest";
import type { EdgeRecord, EntityRecord, EpisodeRecord } from "./domain/types.js";
import type { ExtractionCommit, MemoryStore } from "./store/types.js";
import { nameKeys } from "./text/names.js";

export interface StoreFactoryResult {
  store: MemoryStore;
  close?(): Promise<void>;
}

export interface DescribeOptions {
  /** Tests to skip, each with a written reason. */
  skip?: SkipGroup[];
}

const T0 = Date.UTC(2024, 0, 1);
const DAY = 86_400_000;
let seq = 0;
const uid = (p: string) => `${p}_${process.pid}_${++seq}`;

export function episode(brainId: string, over: Partial<EpisodeRecord> = {}): EpisodeRecord {
  return {
    id: uid("ep"),
    brainId,
    content: "Alice Moreau lives in Paris.",
    metadata: { source: "test" },
    occurredAt: T0,
    createdAt: T0,
    status: "queued",
    error: null,
    entityIds: [],
    edgeIds: [],
    processedAt: null,
    ...over,
  };
}

export function entity(brainId: string, name: string, over: Partial<EntityRecord> = {}): EntityRecord {
  return {
    id: uid("ent"),
    brainId,
    name,
    kind: "person",
    aliases: [],
    keys: nameKeys([name, ...(over.aliases ?? [])]),
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}

export function edge(brainId: string, episodeId: string, source: string, target: string, over: Partial<EdgeRecord> = {}): EdgeRecord {
  return {
    id: uid("edge"),
    brainId,
    source,
    target,
    relation: "lives_in",
    fact: "Alice lives in Paris",
    tValid: T0,
    tInvalid: null,
    tIngested: T0,
    tExpired: null,
    episodeId,
    invalidationReason: null,
    invalidatedBy: null,
    ...over,
  };
}

export function commitOf(ep: EpisodeRecord, over: Partial<ExtractionCommit> = {}): ExtractionCommit {
  return {
    brainId: ep.brainId,
    episodeId: ep.id,
    now: T0 + 1000,
    createEntities: [],
    updateEntities: [],
    createEdges: [],
    invalidate: [],
    entityIds: [],
    edgeIds: [],
    playbook: null,
    ...over,
  };
}

export function describeMemoryStore(name: string, factory: () => Promise<StoreFactoryResult>, options: DescribeOptions = {}) {
  const lookup = skipLookup(options.skip);
  const test = (title: string, fn: (store: MemoryStore) => Promise<void>) => {
    const t = lookup(title);
    (t.skipped ? it.skip : it)(
      t.title,
      async () => {
        const { store, close } = await factory();
        try {
          await fn(store);
        } finally {
          await close?.();
        }
      },
      30_000,
    );
  };

  async function seeded(store: MemoryStore, brainId = uid("brain")) {
    await store.createBrain({ brain: { id: brainId, name: brainId, createdAt: T0 } });
    const ep = episode(brainId);
    await store.createEpisode({
      episode: ep,
      job: { id: uid("job"), queue: "memory.extract", payload: { brainId, episodeId: ep.id }, maxAttempts: 3 },
    });
    const alice = entity(brainId, "Alice Moreau", { aliases: ["Alice"] });
    const paris = entity(brainId, "Paris", { kind: "place" });
    const e1 = edge(brainId, ep.id, alice.id, paris.id);
    await store.commitExtraction(
      commitOf(ep, { createEntities: [alice, paris], createEdges: [e1], entityIds: [alice.id, paris.id], edgeIds: [e1.id] }),
    );
    return { brainId, ep, alice, paris, e1 };
  }

  describe(`MemoryStore conformance: ${name}`, () => {
    test("creates an episode and its job atomically; the job is claimable once", async (store) => {
      const brainId = uid("brain");
      const ep = episode(brainId);
      const queue = uid("q");
      await store.createEpisode({ episode: ep, job: { id: uid("job"), queue, payload: { brainId, episodeId: ep.id }, maxAttempts: 3 } });
      expect(await store.getEpisode({ brainId, id: ep.id })).toMatchObject({ id: ep.id, status: "queued", metadata: { source: "test" } });
      const claimed = await store.jobs.claim({ queue, limit: 10, now: T0 + 1, leaseMs: 60_000 });
      expect(claimed).toHaveLength(1);
      expect(claimed[0]!.payload).toEqual({ brainId, episodeId: ep.id });
      expect(await store.jobs.claim({ queue, limit: 10, now: T0 + 2, leaseMs: 60_000 })).toHaveLength(0);
      await store.jobs.complete({ id: claimed[0]!.id, now: T0 + 3 });
      expect((await store.jobs.counts(queue)).done).toBe(1);
    });

    test("keeps an episode job's group key: one job per brain runs at a time, brains in parallel", async (store) => {
      const queue = uid("q");
      const [b1, b2] = [uid("brain"), uid("brain")];
      const jobIds: string[] = [];
      for (const brainId of [b1, b1, b2]) {
        const ep = episode(brainId);
        const id = uid("job");
        jobIds.push(id);
        await store.createEpisode({
          episode: ep,
          job: { id, queue, payload: { brainId, episodeId: ep.id }, maxAttempts: 3, groupKey: brainId },
        });
      }
      const first = await store.jobs.claim({ queue, limit: 10, now: T0 + 1, leaseMs: 60_000 });
      expect(first.map((j) => j.groupKey).sort()).toEqual([b1, b2].sort());
      expect(await store.jobs.claim({ queue, limit: 10, now: T0 + 2, leaseMs: 60_000 })).toEqual([]);
      const held = first.find((j) => j.groupKey === b1)!;
      await store.jobs.complete({ id: held.id, now: T0 + 3 });
      const next = await store.jobs.claim({ queue, limit: 10, now: T0 + 4, leaseMs: 60_000 });
      expect(next).toMatchObject([{ groupKey: b1 }]);
      expect(new Set([...first, ...next].map((j) => j.id))).toEqual(new Set(jobIds));
    });

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
      await store.createEpisode({
        episode: ep2,
        job: { id: uid("job"), queue: "memory.extract", payload: { brainId, episodeId: ep2.id }, maxAttempts: 3 },
      });
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
      const pb = await store.getPlaybook({ brainId, slug: "alice" });
      expect(pb).toMatchObject({ slug: "alice", title: "Alice", episodeIds: [ep2.id] });
      expect((await store.edgesOfEpisodes({ brainId, episodeIds: [ep2.id] })).map((e) => e.id)).toEqual([e2.id]);
      expect((await store.listPlaybooks({ brainId, limit: 10 })).items.map((p) => p.slug)).toEqual(["alice"]);
      expect(paris.id).toBeTruthy();
    });

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
      await store.createEpisode({
        episode: ep2,
        job: { id: uid("job"), queue: "memory.extract", payload: { brainId, episodeId: ep2.id }, maxAttempts: 3 },
      });
      await store.commitExtraction(commitOf(ep2, { createEdges: [old, later], edgeIds: [old.id, later.id] }));
      const at = async (t: number) =>
        (await store.searchEdges({ brainId, query: "flat Louvre", limit: 10, asOf: t })).map((h) => h.item.id);
      expect(await at(T0 - DAY)).toEqual([old.id]);
      expect(await at(T0)).toEqual([]);
      expect(await at(T0 + 6 * DAY)).toEqual([later.id]);
    });

    test("valid time (asOf) and transaction time (knownAt) are read apart", async (store) => {
      const { brainId, alice, paris } = await seeded(store);
      // history imported a day after T0 about ten days before it, then found wrong (expired) at T0 + 3 days
      const ep2 = episode(brainId, { content: "Alice painted the Louvre gardens", occurredAt: T0 - 10 * DAY, createdAt: T0 + DAY });
      await store.createEpisode({
        episode: ep2,
        job: { id: uid("job"), queue: "memory.extract", payload: { brainId, episodeId: ep2.id }, maxAttempts: 3 },
      });
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

    test("invalidateEdge brings a future end forward once, and never revives an expired record", async (store) => {
      const { brainId, ep, alice, paris } = await seeded(store);
      const ep2 = episode(brainId);
      await store.createEpisode({
        episode: ep2,
        job: { id: uid("job"), queue: "memory.extract", payload: { brainId, episodeId: ep2.id }, maxAttempts: 3 },
      });
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

    test("a commit can expire a record without ending its validity (a correction)", async (store) => {
      const { brainId, e1 } = await seeded(store);
      const ep2 = episode(brainId);
      await store.createEpisode({
        episode: ep2,
        job: { id: uid("job"), queue: "memory.extract", payload: { brainId, episodeId: ep2.id }, maxAttempts: 3 },
      });
      await store.commitExtraction(
        commitOf(ep2, { invalidate: [{ id: e1.id, tInvalid: null, tExpired: T0 + DAY, reason: "corrected", invalidatedBy: null }] }),
      );
      expect(await store.getEdge({ brainId, id: e1.id })).toMatchObject({
        tInvalid: null,
        tExpired: T0 + DAY,
        invalidationReason: "corrected",
      });
    });

    test("searchEdges finds a visible hit ranked below hundreds of better-ranked invisible ones", async (store) => {
      const { brainId, alice, paris } = await seeded(store);
      const ep2 = episode(brainId);
      await store.createEpisode({
        episode: ep2,
        job: { id: uid("job"), queue: "memory.extract", payload: { brainId, episodeId: ep2.id }, maxAttempts: 3 },
      });
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

    test("edgesOfEntities returns visible edges, most recently valid first", async (store) => {
      const { brainId, ep, alice, paris, e1 } = await seeded(store);
      const e2 = edge(brainId, ep.id, paris.id, alice.id, { relation: "home_of", fact: "Paris is home to Alice", tValid: T0 + DAY });
      const ep2 = episode(brainId);
      await store.createEpisode({
        episode: ep2,
        job: { id: uid("job"), queue: "memory.extract", payload: { brainId, episodeId: ep2.id }, maxAttempts: 3 },
      });
      await store.commitExtraction(commitOf(ep2, { createEdges: [e2], edgeIds: [e2.id] }));
      const ids = (await store.edgesOfEntities({ brainId, entityIds: [alice.id], asOf: T0 + 2 * DAY, limit: 10 })).map((e) => e.id);
      expect(ids).toEqual([e2.id, e1.id]);
      expect((await store.edgesOfEntities({ brainId, entityIds: [alice.id], asOf: T0 + 1, limit: 10 })).map((e) => e.id)).toEqual([e1.id]);
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
      expect(
        await store.invalidateEdge({ brainId, id: "edge_missing", tInvalid: 1, tExpired: 1, reason: "x", invalidatedBy: null }),
      ).toEqual({ ok: false, reason: "not_found" });
      expect((await store.getEdge({ brainId, id: e1.id }))!.invalidationReason).toBe("moved");
    });

    test("lists page newest first without gaps or repeats", async (store) => {
      const brainId = uid("brain");
      const made: string[] = [];
      for (let i = 0; i < 7; i++) {
        const ep = episode(brainId, { createdAt: T0 + (i % 3) * 1000 });
        made.push(ep.id);
        await store.createEpisode({
          episode: ep,
          job: { id: uid("job"), queue: "memory.extract", payload: { brainId, episodeId: ep.id }, maxAttempts: 3 },
        });
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

    test("text holding NUL is refused with a 400 or kept exactly; lookups by such text find nothing", async (store) => {
      const brainId = uid("brain");
      await store.createBrain({ brain: { id: brainId, name: brainId, createdAt: T0 } });
      const ep = episode(brainId, { content: "Alice\u0000 lives in Paris.", metadata: { note: "n\u0000", "k\u0000": 1 } });
      const created = await refusedOrAnswered(() =>
        store.createEpisode({
          episode: ep,
          job: { id: uid("job"), queue: "memory.extract", payload: { brainId, episodeId: ep.id }, maxAttempts: 3 },
        }),
      );
      if (!created.refused) expect(await store.getEpisode({ brainId, id: ep.id })).toEqual(ep);
      for (const op of <Array<() => Promise<unknown>>>[
        () => store.getEpisode({ brainId, id: "ep\u0000" }),
        () => store.getEpisode({ brainId: "brain\u0000", id: ep.id }),
        () => store.getEntity({ brainId, id: "ent\u0000" }),
        () => store.getEdge({ brainId, id: "edge\u0000" }),
      ]) {
        const r = await refusedOrAnswered(op);
        if (!r.refused) expect(r.value).toBeNull();
      }
    });

    test("a page position that is not a safe integer is refused with a 400 or read as a position", async (store) => {
      const brainId = uid("brain");
      for (const createdAt of [1.5, 1e20]) {
        const r = await refusedOrAnswered(() => store.listEpisodes({ brainId, limit: 3, after: { createdAt, id: "ep_x" } }));
        if (!r.refused) expect(r.value.items).toEqual([]);
      }
    });

    test("setEpisodeStatus moves queued -> processing -> failed but never leaves done", async (store) => {
      const { brainId, ep } = await seeded(store);
      await store.setEpisodeStatus({ brainId, id: ep.id, status: "failed", error: "late", now: T0 });
      expect((await store.getEpisode({ brainId, id: ep.id }))!.status).toBe("done");
      const ep2 = episode(brainId);
      await store.createEpisode({
        episode: ep2,
        job: { id: uid("job"), queue: "memory.extract", payload: { brainId, episodeId: ep2.id }, maxAttempts: 3 },
      });
      await store.setEpisodeStatus({ brainId, id: ep2.id, status: "processing", now: T0 });
      expect((await store.getEpisode({ brainId, id: ep2.id }))!.status).toBe("processing");
      await store.setEpisodeStatus({ brainId, id: ep2.id, status: "failed", error: "boom", now: T0 });
      expect(await store.getEpisode({ brainId, id: ep2.id })).toMatchObject({ status: "failed", error: "boom" });
    });

    test("api keys: stored by hash, revocable, listed per brain", async (store) => {
      const brainId = uid("brain");
      await store.createBrain({ brain: { id: brainId, name: brainId, createdAt: T0 } });
      const hash = `h${uid("hash")}`;
      await store.createApiKey({ key: { id: uid("key"), brainId, hash, prefix: "mk_abcde", label: null, createdAt: T0, revokedAt: null } });
      const found = await store.findApiKey({ hash });
      expect(found).toMatchObject({ brainId, hash, revokedAt: null });
      expect((await store.listApiKeys({ brainId })).map((k) => k.hash)).toEqual([hash]);
      expect(await store.revokeApiKey({ id: found!.id, now: T0 + 1 })).toBe(true);
      expect(await store.revokeApiKey({ id: found!.id, now: T0 + 2 })).toBe(false);
      expect((await store.findApiKey({ hash }))!.revokedAt).toBe(T0 + 1);
      expect(await store.getBrain({ brainId })).toMatchObject({ id: brainId });
    });

    test("quota holds: a unit held by a call in flight is busy, freed on failure, used on success", async (store) => {
      const holds = store.quotaHolds;
      if (!holds) return;
      const key = uid("holds");
      const at = { key, period: "2024-01-01", limit: 1, now: T0, ttlMs: 60_000 };
      expect(await holds.hold({ ...at, id: "a" })).toEqual({ state: "held", used: 0 });
      expect(await holds.hold({ ...at, id: "b" })).toEqual({ state: "busy", used: 0 });
      expect(await holds.settle({ ...at, id: "a", success: false })).toEqual({ used: 0 });
      expect(await holds.hold({ ...at, id: "b" })).toEqual({ state: "held", used: 0 });
      expect(await holds.settle({ ...at, id: "b", success: true })).toEqual({ used: 1 });
      expect(await holds.hold({ ...at, id: "c" })).toEqual({ state: "exhausted", used: 1 });
      expect(await holds.hold({ ...at, period: "2024-01-02", id: "c" })).toEqual({ state: "held", used: 0 });
      // a hold whose process died lapses after its ttl
      const other = { ...at, key: uid("holds") };
      expect((await holds.hold({ ...other, id: "dead" })).state).toBe("held");
      expect((await holds.hold({ ...other, id: "next", now: T0 + 60_000 })).state).toBe("held");
    });

    test("quota holds never pass the limit under concurrent calls", async (store) => {
      const holds = store.quotaHolds;
      if (!holds) return;
      const at = { key: uid("holds"), period: "2024-01-01", limit: 5, now: T0, ttlMs: 60_000 };
      const states = await Promise.all(Array.from({ length: 20 }, (_, i) => holds.hold({ ...at, id: `h${i}` })));
      expect(states.filter((s) => s.state === "held")).toHaveLength(5);
      expect(states.filter((s) => s.state === "busy")).toHaveLength(15);
      const settled = await Promise.all(
        states.flatMap((s, i) => (s.state === "held" ? [holds.settle({ ...at, id: `h${i}`, success: true })] : [])),
      );
      expect(Math.max(...settled.map((s) => s.used))).toBe(5);
      expect((await holds.hold({ ...at, id: "late" })).state).toBe("exhausted");
    });

    test("the quota counter never passes its limit under concurrent calls", async (store) => {
      const key = uid("quota");
      const results = await Promise.all(Array.from({ length: 25 }, () => store.quota.consume(key, "2024-01-01", 10)));
      expect(results.filter((r) => r.allowed)).toHaveLength(10);
      await store.quota.refund(key, "2024-01-01");
      expect(await store.quota.used(key, "2024-01-01")).toBe(9);
      expect(await store.quota.used(key, "2024-01-02")).toBe(0);
    });

    test("listEdges at a bi-temporal point keeps only visible edges, pages them, and filters by entity too", async (store) => {
      const { brainId, alice, paris, e1 } = await seeded(store);
      const berlin = entity(brainId, "Berlin", { kind: "place" });
      const ep2 = episode(brainId, { createdAt: T0 + DAY });
      await store.createEpisode({
        episode: ep2,
        job: { id: uid("job"), queue: "memory.extract", payload: { brainId, episodeId: ep2.id }, maxAttempts: 3 },
      });
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
  });
}
