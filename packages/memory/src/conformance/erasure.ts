// Conformance: erasure (an episode, a subject, a whole brain, the audit) and the ordered reads and raw writes of
// export and import (docs/memory.md#erasure, docs/memory.md#export-and-import). Stores without these optional
// operations skip the cases.
import { expect } from "vitest";
import type { MemoryStore } from "../store/types.js";
import { addEpisode, commitOf, DAY, edge, entity, episode, type StoreTest, T0, uid } from "./fixtures.js";

/**
 * A brain of three episodes in one conversation: ep1 "Zorblatt lives in Quimper" (Zorblatt, Quimper), ep2 "Alice
 * knows Zorblatt" (Alice, Zorblatt), ep3 "Alice lives in Paris" (Alice, Paris), which supersedes nothing; ep2's
 * edge is also listed by ep3 (a second supporting episode); ep1's edge is superseded by ep3's.
 */
async function brainOfThree(store: MemoryStore) {
  const brainId = uid("brain");
  await store.createBrain({ brain: { id: brainId, name: brainId, createdAt: T0 } });
  const meta = { conversation: "c1" };
  const ep1 = episode(brainId, { content: "Zorblatt lives in Quimper.", metadata: meta, createdAt: T0, occurredAt: T0 });
  // one scoped episode: an export and an import keep its scope
  const ep2 = episode(brainId, {
    content: "Alice knows Zorblatt intimately.",
    metadata: meta,
    createdAt: T0 + 1,
    occurredAt: T0,
    userId: "user-a",
    sessionId: "session-1",
  });
  const ep3 = episode(brainId, { content: "Alice lives in Paris now.", metadata: meta, createdAt: T0 + 2, occurredAt: T0 });
  for (const e of [ep1, ep2, ep3]) await addEpisode(store, e);
  const zorblatt = entity(brainId, "Zorblatt");
  const quimper = entity(brainId, "Quimper", { kind: "place" });
  const alice = entity(brainId, "Alice");
  const paris = entity(brainId, "Paris", { kind: "place" });
  const e1 = edge(brainId, ep1.id, zorblatt.id, quimper.id, { fact: "Zorblatt lives in Quimper", tIngested: T0 + 10 });
  const e2 = edge(brainId, ep2.id, alice.id, zorblatt.id, { relation: "knows", fact: "Alice knows Zorblatt", tIngested: T0 + 20 });
  const e3 = edge(brainId, ep3.id, alice.id, paris.id, { fact: "Alice lives in Paris", tIngested: T0 + 30 });
  await store.commitExtraction(
    commitOf(ep1, {
      createEntities: [zorblatt, quimper],
      createEdges: [e1],
      entityIds: [zorblatt.id, quimper.id],
      edgeIds: [e1.id],
      playbook: { slug: "people", title: "People" },
    }),
  );
  await store.commitExtraction(
    commitOf(ep2, {
      createEntities: [alice],
      createEdges: [e2],
      entityIds: [alice.id, zorblatt.id],
      edgeIds: [e2.id],
      playbook: { slug: "people", title: "People" },
    }),
  );
  await store.commitExtraction(
    commitOf(ep3, {
      createEntities: [paris],
      createEdges: [e3],
      entityIds: [alice.id, paris.id],
      edgeIds: [e3.id, e2.id],
      invalidate: [
        { id: e1.id, tInvalid: T0 + DAY, tExpired: null, reason: `superseded by edge ${e3.id}: ${e3.fact}`, invalidatedBy: e3.id },
      ],
    }),
  );
  return { brainId, ep1, ep2, ep3, zorblatt, quimper, alice, paris, e1, e2, e3 };
}

const audit = (kind: "episode" | "subject", target: string) => ({ id: uid("era"), kind, target, at: T0 + 5 * DAY });

export function erasureTests(test: StoreTest): void {
  const erasing = (title: string, fn: (store: MemoryStore) => Promise<void>) =>
    test(title, async (store) => {
      if (!store.eraseMemory) return;
      await fn(store);
    });

  erasing("forgetting an episode removes it, what only it supports, and its text from search and neighbours", async (store) => {
    const b = await brainOfThree(store);
    const r = await store.eraseMemory!({ brainId: b.brainId, episodeIds: [b.ep2.id], audit: audit("episode", b.ep2.id) });
    expect(r.episodes).toEqual([b.ep2.id]);
    // ep3 lists e2 too: it stays, now citing ep3
    expect(r.edges).toEqual([]);
    expect(r.uncited).toEqual([b.e2.id]);
    expect((await store.getEdge({ brainId: b.brainId, id: b.e2.id }))?.episodeId).toBe(b.ep3.id);
    expect(r.entities).toEqual([]);
    expect(await store.getEpisode({ brainId: b.brainId, id: b.ep2.id })).toBeNull();
    const at = { asOf: T0 + 10 * DAY, knownAt: T0 + 10 * DAY };
    // "intimately" was only in ep2: neither ep2 nor its neighbours (indexed with it) match any more
    expect(await store.searchEpisodes({ brainId: b.brainId, query: "intimately", limit: 10, ...at })).toEqual([]);
    // ep3 is indexed again with the turns before it that are left (ep1)
    const quimper = await store.searchEpisodes({ brainId: b.brainId, query: "Quimper", limit: 10, ...at });
    expect(quimper.map((h) => h.item.id).sort()).toEqual([b.ep1.id, b.ep3.id].sort());
    expect(r.playbooksUpdated).toEqual(["people"]);
    expect((await store.getPlaybook({ brainId: b.brainId, slug: "people" }))?.episodeIds).toEqual([b.ep1.id]);
    const audits = await store.listErasures!({ brainId: b.brainId });
    expect(audits).toMatchObject([{ kind: "episode", target: b.ep2.id, counts: { episodes: 1, edges: 0, entities: 0, playbooks: 1 } }]);
  });

  erasing("forgetting the only episode of an edge removes the edge, its lone entities, and citations of it", async (store) => {
    const b = await brainOfThree(store);
    const r = await store.eraseMemory!({ brainId: b.brainId, episodeIds: [b.ep3.id], audit: audit("episode", b.ep3.id) });
    expect(r.edges).toEqual([b.e3.id]);
    // Paris was named by ep3 alone; Alice is still named by e2 (kept: ep2 supports it)
    expect(r.entities).toEqual([b.paris.id]);
    expect(await store.getEntity({ brainId: b.brainId, id: b.paris.id })).toBeNull();
    expect(await store.getEntity({ brainId: b.brainId, id: b.alice.id })).not.toBeNull();
    const e1 = await store.getEdge({ brainId: b.brainId, id: b.e1.id });
    expect(e1).toMatchObject({ invalidatedBy: null, invalidationReason: "superseded by an erased fact", tInvalid: T0 + DAY });
    expect(r.uncited).toContain(b.e1.id);
    expect(await store.searchEdges({ brainId: b.brainId, query: "Paris", limit: 10, asOf: T0 + 1, knownAt: T0 + DAY })).toEqual([]);
    expect(await store.searchEntities({ brainId: b.brainId, query: "Paris", limit: 10 })).toEqual([]);
  });

  erasing("forgetting a subject removes the entity, every episode naming it (whole) and every edge naming it", async (store) => {
    const b = await brainOfThree(store);
    const r = await store.eraseMemory!({
      brainId: b.brainId,
      episodeIds: [],
      subjectId: b.zorblatt.id,
      audit: audit("subject", b.zorblatt.id),
    });
    expect([...r.episodes].sort()).toEqual([b.ep1.id, b.ep2.id].sort());
    expect([...r.edges].sort()).toEqual([b.e1.id, b.e2.id].sort());
    expect([...r.entities].sort()).toEqual([b.zorblatt.id, b.quimper.id].sort());
    expect(r.playbooksDeleted).toEqual(["people"]);
    expect(await store.getPlaybook({ brainId: b.brainId, slug: "people" })).toBeNull();
    const at = { asOf: T0 + 10 * DAY, knownAt: T0 + 10 * DAY };
    expect(await store.searchEpisodes({ brainId: b.brainId, query: "Zorblatt", limit: 10, ...at })).toEqual([]);
    expect(await store.searchEntities({ brainId: b.brainId, query: "Zorblatt", limit: 10 })).toEqual([]);
    const left = await store.listEdges({ brainId: b.brainId, limit: 10 });
    expect(left.items.map((e) => e.id)).toEqual([b.e3.id]);
    expect(JSON.stringify(await store.listErasures!({ brainId: b.brainId }))).not.toMatch(/Zorblatt|Quimper/);
  });

  erasing("deleting a brain removes its records and keys; the audit stays", async (store) => {
    const b = await brainOfThree(store);
    await store.createApiKey({
      key: { id: uid("key"), brainId: b.brainId, hash: uid("hash"), prefix: "mk_", label: null, createdAt: T0, revokedAt: null },
    });
    const r = await store.deleteBrain!({ brainId: b.brainId, audit: { id: uid("era"), at: T0 + DAY } });
    expect(r).toMatchObject({ kind: "brain", target: b.brainId, counts: { episodes: 3, edges: 3, entities: 4, playbooks: 1 } });
    expect(await store.getBrain({ brainId: b.brainId })).toBeNull();
    expect(await store.listApiKeys({ brainId: b.brainId })).toEqual([]);
    expect((await store.listEpisodes({ brainId: b.brainId, limit: 10 })).items).toEqual([]);
    expect((await store.listEdges({ brainId: b.brainId, limit: 10 })).items).toEqual([]);
    expect(await store.searchEpisodes({ brainId: b.brainId, query: "Alice", limit: 10, asOf: T0 + DAY })).toEqual([]);
    expect(await store.deleteBrain!({ brainId: b.brainId, audit: { id: uid("era"), at: T0 + DAY } })).toBeNull();
    expect((await store.listErasures!({ brainId: b.brainId })).map((a) => a.kind)).toEqual(["brain"]);
  });

  erasing("export pages read oldest first; imported records read back equal and are searchable", async (store) => {
    if (!store.exportPage || !store.importRecords) return;
    const b = await brainOfThree(store);
    const target = uid("brain");
    await store.createBrain({ brain: { id: target, name: target, createdAt: T0 } });
    for (const kind of ["episodes", "entities", "edges", "playbooks"] as const) {
      const all: unknown[] = [];
      let after = null;
      do {
        const page: Awaited<ReturnType<NonNullable<MemoryStore["exportPage"]>>> = await store.exportPage({
          brainId: b.brainId,
          kind,
          after,
          limit: 2,
        });
        all.push(...page.items);
        after = page.next;
      } while (after);
      if (kind === "episodes") expect(all.map((e) => (e as { id: string }).id)).toEqual([b.ep1.id, b.ep2.id, b.ep3.id]);
      if (kind === "edges") expect(all.map((e) => (e as { id: string }).id)).toEqual([b.e1.id, b.e2.id, b.e3.id]);
      const moved = all.map((r) => ({ ...(r as object), brainId: target }));
      await store.importRecords({ brainId: target, batch: { kind, items: moved } as never });
      const again = await store.exportPage({ brainId: target, kind, after: null, limit: 100 });
      expect(again.items).toEqual(moved);
    }
    const at = { asOf: T0 + 10 * DAY, knownAt: T0 + 10 * DAY };
    const hits = (await store.searchEpisodes({ brainId: target, query: "intimately", limit: 10, ...at })).map((h) => h.item.id).sort();
    // ep2 itself and its neighbours (ep1 after it, ep3 before it), as in the brain exported
    expect(hits).toHaveLength(3);
    expect(hits).toEqual(
      (await store.searchEpisodes({ brainId: b.brainId, query: "intimately", limit: 10, ...at })).map((h) => h.item.id).sort(),
    );
    expect((await store.searchEdges({ brainId: target, query: "Paris", limit: 10, ...at })).map((h) => h.item.id)).toEqual([b.e3.id]);
  });
}
