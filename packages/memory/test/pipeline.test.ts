import { afterEach, describe, expect, it } from "vitest";
import type { Extractor } from "../src/index.js";
import { ruleBasedExtractor } from "../src/index.js";
import { setup } from "./helpers.js";

let dispose: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const d of dispose) await d();
  dispose = [];
});
async function make(...args: Parameters<typeof setup>) {
  const s = await setup(...args);
  dispose.push(() => s.service.dispose());
  return s;
}

const DAY = 86_400_000;

describe("extraction pipeline", () => {
  it("resolves 'Alice', 'Alice Moreau' and 'alice moreau' to one entity", async () => {
    const { ingest, api, clock } = await make();
    await ingest("Alice works at Acme Corp.");
    clock.advance(1000);
    await ingest("Alice Moreau lives in Paris.");
    clock.advance(1000);
    await ingest("alice moreau loves Python.");
    const people = (await api.listEntities("brain-a", { limit: 100 })).items.filter((e) => /alice/i.test(e.name));
    expect(people).toHaveLength(1);
    expect(people[0]).toMatchObject({ name: "Alice Moreau", kind: "person" });
    expect(people[0]!.aliases).toContain("Alice");
    const entity = await api.getEntity("brain-a", people[0]!.id);
    expect(entity.edges.map((e) => e.relation).sort()).toEqual(expect.arrayContaining(["lives_in", "works_at"]));
  });

  it("does not merge two people sharing a given name with a third mention of it", async () => {
    const { ingest, api } = await make();
    await ingest("Alice Moreau lives in Paris.");
    await ingest("Alice Dupont lives in Lyon.");
    await ingest("Alice likes Berlin.");
    const alices = (await api.listEntities("brain-a", { limit: 100 })).items.filter((e) => /alice/i.test(e.name));
    expect(alices.map((e) => e.name).sort()).toEqual(["Alice", "Alice Dupont", "Alice Moreau"]);
  });

  it("dates facts from the text relative to occurredAt", async () => {
    const { ingest, api } = await make();
    const ep = await ingest("Melanie: I painted a lake sunrise last year.", { occurredAt: "2023-05-08T13:56:00Z" });
    const edge = await api.getEdge("brain-a", ep.edgeIds[0]!);
    expect(edge).toMatchObject({ relation: "created", tValid: "2022-01-01T00:00:00.000Z", tInvalid: null, tExpired: null });
    expect(edge.episode!.id).toBe(ep.id);
    const undated = await ingest("Tom lives in Oslo.", { occurredAt: "2021-02-03T04:05:06Z" });
    expect((await api.getEdge("brain-a", undated.edgeIds[0]!)).tValid).toBe("2021-02-03T04:05:06.000Z");
  });

  it("skips facts already known", async () => {
    const { ingest, api, clock } = await make();
    const first = await ingest("Bob lives in Madrid.");
    clock.advance(DAY);
    const second = await ingest("Bob lives in Madrid.");
    expect(first.edgeIds).toHaveLength(1);
    expect(second.status).toBe("done");
    expect(second.edgeIds).toEqual([]);
    expect((await api.listEdges("brain-a")).items).toHaveLength(1);
  });

  it("a newer fact on a single-valued relation invalidates the older edge, never deletes it", async () => {
    const { ingest, api, clock } = await make();
    const paris = await ingest("Alice Moreau lives in Paris.", { occurredAt: "2020-01-01T00:00:00Z" });
    clock.advance(DAY);
    const berlin = await ingest("Alice Moreau moved to Berlin.", { occurredAt: "2023-03-01T00:00:00Z" });
    const old = await api.getEdge("brain-a", paris.edgeIds[0]!);
    const now = berlin.edgeIds[0]!;
    expect(old.tInvalid).toBe("2023-03-01T00:00:00.000Z");
    // a supersession ends validity only: the record stays current knowledge (docs/memory.md#time-two-axes)
    expect(old.tExpired).toBeNull();
    expect(old.invalidationReason).toContain(now);
    expect(old.invalidatedBy).toBe(now);
    expect((await api.getEdge("brain-a", now)).tInvalid).toBeNull();
    // a multi-valued relation accumulates instead
    await ingest("Alice Moreau likes Rome.");
    await ingest("Alice Moreau likes Vienna.");
    const likes = (await api.listEdges("brain-a")).items.filter((e) => e.relation === "likes");
    expect(likes.every((e) => e.tInvalid === null)).toBe(true);
    expect(likes).toHaveLength(2);
  });

  it("a fact older than the known one is stored already closed by it", async () => {
    const { ingest, api, clock } = await make();
    const berlin = await ingest("Alice Moreau moved to Berlin.", { occurredAt: "2023-03-01T00:00:00Z" });
    clock.advance(DAY);
    const paris = await ingest("Alice Moreau lived in Paris in 2019.", { occurredAt: "2023-06-01T00:00:00Z" });
    const old = await api.getEdge("brain-a", paris.edgeIds[0]!);
    expect(old).toMatchObject({
      tValid: "2019-01-01T00:00:00.000Z",
      tInvalid: "2023-03-01T00:00:00.000Z",
      invalidatedBy: berlin.edgeIds[0],
    });
    expect((await api.getEdge("brain-a", berlin.edgeIds[0]!)).tInvalid).toBeNull();
  });

  it("an extractor that throws fails the episode with the reason and does not block the queue", async () => {
    const good = ruleBasedExtractor();
    const flaky: Extractor = {
      name: "flaky",
      async extractEntities(input) {
        if (input.content.includes("poison")) throw new Error("cannot parse poison");
        return good.extractEntities(input);
      },
      extractFacts: (input) => good.extractFacts(input),
    };
    const { service, api } = await make({ extractor: flaky });
    const bad = await api.createEpisode("brain-a", { content: "poison pill" });
    const ok = await api.createEpisode("brain-a", { content: "Zoe lives in Rome." });
    await service.worker.idle();
    expect(await api.getEpisode("brain-a", bad.id)).toMatchObject({ status: "failed", error: "cannot parse poison" });
    expect(await api.getEpisode("brain-a", ok.id)).toMatchObject({ status: "done" });
  });

  it("a store failure during commit retries the job; the re-run commits exactly once", async () => {
    const { inMemoryMemoryStore } = await import("../src/index.js");
    const store = inMemoryMemoryStore();
    let failures = 1;
    const flakyStore = {
      ...store,
      jobs: store.jobs,
      quota: store.quota,
      async commitExtraction(input: Parameters<typeof store.commitExtraction>[0]) {
        if (failures-- > 0) throw new Error("database went away");
        return store.commitExtraction(input);
      },
    };
    const { service, api, clock } = await make({ store: flakyStore, worker: { pollMs: 5 } });
    const ep = await api.createEpisode("brain-a", { content: "Nina works at Globex Corp." });
    // let the first attempt fail, then move the clock past the retry backoff
    for (let i = 0; i < 50 && (await store.jobs.counts("memory.extract")).done === 0; i++) {
      clock.advance(5_000);
      await new Promise((r) => setTimeout(r, 10));
    }
    await service.worker.idle();
    const done = await api.getEpisode("brain-a", ep.id);
    expect(done.status).toBe("done");
    expect(done.edgeIds).toHaveLength(1);
    // a duplicate delivery of the same job changes nothing
    expect(
      (
        await store.commitExtraction({
          brainId: "brain-a",
          episodeId: ep.id,
          now: 0,
          createEntities: [],
          updateEntities: [],
          createEdges: [],
          invalidate: [],
          entityIds: [],
          edgeIds: [],
          playbook: null,
        })
      ).committed,
    ).toBe(false);
    expect((await api.listEdges("brain-a")).items).toHaveLength(1);
  });

  it("builds playbooks from episodes tagged metadata.playbook, citing valid edges", async () => {
    const { ingest, api, clock } = await make();
    const a = await ingest("Sam lives in Lyon.", {
      metadata: { playbook: "onboarding", playbookTitle: "Onboarding notes" },
      occurredAt: "2023-01-01T00:00:00Z",
    });
    clock.advance(DAY);
    const b = await ingest("Sam moved to Nice.", { metadata: { playbook: "onboarding" }, occurredAt: "2023-06-01T00:00:00Z" });
    const pb = await api.getPlaybook("brain-a", "onboarding");
    expect(pb).toMatchObject({ slug: "onboarding", title: "Onboarding notes", episodes: [a.id, b.id], edges: [b.edgeIds[0]] });
    expect(pb.content).toContain(b.edgeIds[0]!);
    expect(pb.content).not.toContain(a.edgeIds[0]!);
    expect((await api.listPlaybooks("brain-a")).items.map((p) => p.slug)).toEqual(["onboarding"]);
  });
});
