// Conformance: episodes stored with their extraction job, their status, and text the store may refuse.
import { refusedOrAnswered } from "@mountkit/core/testing";
import { expect } from "vitest";
import { addEpisode, episode, type StoreTest, seeded, T0, uid } from "./fixtures.js";

export function episodeTests(test: StoreTest): void {
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

  test("setEpisodeStatus moves queued -> processing -> failed but never leaves done", async (store) => {
    const { brainId, ep } = await seeded(store);
    await store.setEpisodeStatus({ brainId, id: ep.id, status: "failed", error: "late", now: T0 });
    expect((await store.getEpisode({ brainId, id: ep.id }))!.status).toBe("done");
    const ep2 = episode(brainId);
    await addEpisode(store, ep2);
    await store.setEpisodeStatus({ brainId, id: ep2.id, status: "processing", now: T0 });
    expect((await store.getEpisode({ brainId, id: ep2.id }))!.status).toBe("processing");
    await store.setEpisodeStatus({ brainId, id: ep2.id, status: "failed", error: "boom", now: T0 });
    expect(await store.getEpisode({ brainId, id: ep2.id })).toMatchObject({ status: "failed", error: "boom" });
  });

  beginExtractionTests(test);

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
}

/** The optional `beginExtraction`: what an extraction reads before it starts, in one step. */
function beginExtractionTests(test: StoreTest): void {
  test("beginExtraction moves an episode to processing and answers it with the brain's version; none when done or gone", async (store) => {
    if (!store.beginExtraction) return;
    const { brainId, ep } = await seeded(store);
    // the seeded episode is done: nothing moves, nothing is answered
    expect(await store.beginExtraction({ brainId, id: ep.id, now: T0 })).toBeNull();
    expect((await store.getEpisode({ brainId, id: ep.id }))!.status).toBe("done");
    expect(await store.beginExtraction({ brainId, id: uid("ep"), now: T0 })).toBeNull();
    const ep2 = episode(brainId, { content: "Bob moved to Lyon." });
    await addEpisode(store, ep2);
    await store.setEpisodeStatus({ brainId, id: ep2.id, status: "failed", error: "earlier", now: T0 });
    const begun = await store.beginExtraction({ brainId, id: ep2.id, now: T0 + 1 });
    expect(begun).not.toBeNull();
    expect(begun!.episode).toMatchObject({ id: ep2.id, brainId, content: "Bob moved to Lyon.", status: "processing", error: null });
    expect(begun!.version).toBe(store.brainVersion ? await store.brainVersion({ brainId }) : begun!.version);
    expect(await store.getEpisode({ brainId, id: ep2.id })).toMatchObject({ status: "processing", error: null });
    // another brain holding the same id sees nothing of this one
    expect(await store.beginExtraction({ brainId: uid("brain"), id: ep2.id, now: T0 })).toBeNull();
  });

  test("beginExtraction with ahead answers the brain's next queued episodes, oldest first, none of another brain", async (store) => {
    if (!store.beginExtraction) return;
    const { brainId } = await seeded(store);
    const at = (ms: number, content: string) => episode(brainId, { createdAt: T0 + ms, occurredAt: T0 + ms, content });
    const [older, current, next, processing, later, last] = [
      at(10, "Older, still queued."),
      at(20, "Current."),
      at(30, "Next."),
      at(40, "Being extracted elsewhere."),
      at(50, "Later."),
      at(60, "Last."),
    ];
    for (const e of [older, current, next, processing, later, last]) await addEpisode(store, e);
    await store.setEpisodeStatus({ brainId, id: processing.id, status: "processing", now: T0 });
    // another brain's queued episode, created between them, is never answered
    const other = uid("brain");
    await store.createBrain({ brain: { id: other, name: other, createdAt: T0 } });
    await addEpisode(store, episode(other, { createdAt: T0 + 35, content: "Elsewhere." }));
    const begun = await store.beginExtraction({ brainId, id: current.id, now: T0 + 70, ahead: 2 });
    expect(begun!.episode.id).toBe(current.id);
    // a store may answer none (the pipeline then starts nothing ahead); what it answers is exactly these
    if (begun!.ahead !== undefined) expect(begun!.ahead.map((e) => e.content)).toEqual(["Next.", "Later."]);
    const rest = await store.beginExtraction({ brainId, id: later.id, now: T0 + 71, ahead: 5 });
    if (rest!.ahead !== undefined) {
      expect(rest!.ahead.map((e) => e.content)).toEqual(["Last."]);
      expect(rest!.ahead[0]).toEqual(last);
    }
    const none = await store.beginExtraction({ brainId, id: last.id, now: T0 + 72 });
    expect(none!.ahead ?? []).toEqual([]);
  });
}
