// Store conformance: the jobs a change brings (its events) are queued with the change on the store's own queue,
// and only when the change applies.
import type { NewJob } from "@mountkit/core/jobs";
import { expect } from "vitest";
import type { EntriesStore } from "../store/types.js";
import { makeEntry, type Register, uid } from "./fixtures.js";

const job = (queue: string, id: string, now: number): NewJob => ({ queue, id, payload: { id }, now });

export function outboxTests(test: Register, s: () => EntriesStore) {
  test("enqueue: a create, an update and a delete queue their jobs on the store's queue; a change that does not apply queues none", async () => {
    const store = s();
    const queue = uid("q");
    const e = makeEntry({ typeId: uid("t") });
    await store.create({ entry: e, enqueue: [job(queue, uid("job"), e.dateModified)] });
    const at = { typeId: e.typeId, id: e.id, ownerId: "alice" };
    const updated = await store.update({
      ...at,
      changes: { name: "N", dateModified: e.dateModified + 1 },
      enqueue: (u) => [job(queue, `${u.id}-${u.name}`, u.dateModified)],
    });
    expect(updated?.name).toBe("N");
    // not applied: a stale version, another owner
    expect(
      await store.update({
        ...at,
        changes: { name: "X", dateModified: e.dateModified + 2 },
        expectModified: e.dateModified,
        enqueue: () => [job(queue, uid("lost"), 0)],
      }),
    ).toBeNull();
    expect(await store.delete({ ...at, ownerId: "mallory", enqueue: [job(queue, uid("lost"), 0)] })).toBe(false);
    expect(await store.delete({ ...at, enqueue: [job(queue, uid("job"), e.dateModified + 3)] })).toBe(true);
    const counts = await store.jobs.counts(queue);
    expect(counts.queued).toBe(3);
    const claimed = await store.jobs.claim({ queue, limit: 10, now: e.dateModified + 10, leaseMs: 1000 });
    expect(claimed.map((j) => j.id)).toContain(`${e.id}-N`);
    expect(claimed.some((j) => j.id.startsWith("lost"))).toBe(false);
  });
}
