// Conformance: the writes that report events (a commit, a failure, an invalidation) queue their events' jobs with the
// change, made from the records as changed, and queue nothing when the change does not apply.

import type { NewJob } from "@mountkit/core/jobs";
import { expect } from "vitest";
import { addEpisode, commitOf, DAY, edge, episode, type StoreTest, seeded, T0, uid } from "./fixtures.js";

/** A job carrying `payload` on `queue`, as an event's job would. */
const job = (queue: string, payload: unknown): NewJob => ({ id: uid("job"), queue, payload, now: T0 });

/** Every job queued on `queue` so far, by payload. */
async function queued(store: Parameters<Parameters<StoreTest>[1]>[0], queue: string) {
  return (await store.jobs.claim({ queue, limit: 100, now: T0 + 1000 * DAY, leaseMs: 60_000 })).map((j) => j.payload);
}

export function eventTests(test: StoreTest): void {
  test("commitExtraction queues the jobs of `enqueue`, made from the episode as committed and the edges it closed", async (store) => {
    const { brainId, alice, paris, e1 } = await seeded(store);
    const ep2 = episode(brainId, { createdAt: T0 + DAY });
    await addEpisode(store, ep2);
    const gone = edge(brainId, ep2.id, alice.id, paris.id, { relation: "likes", tExpired: T0 + 10 });
    const ep0 = episode(brainId);
    await addEpisode(store, ep0);
    await store.commitExtraction(commitOf(ep0, { createEdges: [gone] }));
    const berlin = edge(brainId, ep2.id, alice.id, paris.id, { tValid: T0 + DAY, fact: "Alice lives in Berlin" });
    const queue = uid("events");
    const r = await store.commitExtraction(
      commitOf(ep2, {
        now: T0 + DAY,
        createEdges: [berlin],
        edgeIds: [berlin.id],
        invalidate: [
          { id: e1.id, tInvalid: T0 + DAY, tExpired: null, reason: `superseded by edge ${berlin.id}`, invalidatedBy: berlin.id },
          // already expired: left alone, so not among the closed edges
          { id: gone.id, tInvalid: null, tExpired: T0 + DAY, reason: "corrected", invalidatedBy: berlin.id },
        ],
        enqueue: ({ episode: done, closed }) => [job(queue, { episode: done, closed })],
      }),
    );
    expect(r).toEqual({ committed: true });
    const [payload] = (await queued(store, queue)) as Array<{ episode: unknown; closed: unknown[] }>;
    expect(payload!.episode).toEqual(await store.getEpisode({ brainId, id: ep2.id }));
    expect(payload!.episode).toMatchObject({ status: "done", edgeIds: [berlin.id], processedAt: T0 + DAY });
    expect(payload!.closed).toEqual([await store.getEdge({ brainId, id: e1.id })]);
    expect(payload!.closed[0]).toMatchObject({ tInvalid: T0 + DAY, tExpired: null, invalidatedBy: berlin.id });
  });

  test("a commit that does not apply (done already, a version conflict) queues no job", async (store) => {
    const { brainId, ep } = await seeded(store);
    const queue = uid("events");
    const enqueue = () => [job(queue, "never")];
    expect(await store.commitExtraction(commitOf(ep, { enqueue }))).toEqual({ committed: false, reason: "already_done" });
    if (store.brainVersion) {
      const ep2 = episode(brainId);
      await addEpisode(store, ep2);
      const stale = (await store.brainVersion({ brainId })) - 1;
      expect(await store.commitExtraction(commitOf(ep2, { expectVersion: stale, enqueue }))).toEqual({
        committed: false,
        reason: "conflict",
      });
    }
    expect(await queued(store, queue)).toEqual([]);
  });

  test("setEpisodeStatus(failed) queues the jobs of `enqueue` for the episode as failed; a done episode queues none", async (store) => {
    const { brainId, ep } = await seeded(store);
    const ep2 = episode(brainId);
    await addEpisode(store, ep2);
    const queue = uid("events");
    const enqueue = (e: unknown) => [job(queue, e)];
    await store.setEpisodeStatus({ brainId, id: ep2.id, status: "failed", error: "boom", now: T0 + 5, enqueue });
    await store.setEpisodeStatus({ brainId, id: ep.id, status: "failed", error: "late", now: T0 + 6, enqueue });
    expect(await queued(store, queue)).toEqual([await store.getEpisode({ brainId, id: ep2.id })]);
    expect(await store.getEpisode({ brainId, id: ep2.id })).toMatchObject({ status: "failed", error: "boom", processedAt: T0 + 5 });
  });

  test("invalidateEdge queues the jobs of `enqueue` for the edge as changed; a refused invalidation queues none", async (store) => {
    const { brainId, e1 } = await seeded(store);
    const queue = uid("events");
    const enqueue = (e: unknown) => [job(queue, e)];
    const input = { brainId, id: e1.id, tInvalid: T0 + DAY, tExpired: null, reason: "left", invalidatedBy: null, enqueue };
    const r = await store.invalidateEdge(input);
    expect(r.ok).toBe(true);
    expect(await store.invalidateEdge({ ...input, tInvalid: T0 + 2 * DAY })).toEqual({ ok: false, reason: "already_invalid" });
    expect(await store.invalidateEdge({ ...input, id: uid("edge") })).toEqual({ ok: false, reason: "not_found" });
    expect(await queued(store, queue)).toEqual([await store.getEdge({ brainId, id: e1.id })]);
  });
}
