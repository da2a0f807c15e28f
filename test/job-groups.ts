// Group-key claim semantics every JobStore keeps (core's inMemoryJobStore, the SQL job store on SQLite and
// PostgreSQL): one running job per group under a live lease, groups in parallel, a dead holder's lease
// frees its group. `makeStore` answers a fresh store, or several stores sharing one database.
import { createWorker, type Job, type JobStore } from "@mountkit/core/jobs";
import { expect, it } from "vitest";

export interface GroupedStores {
  /** Two claimers on the same jobs (the same store twice when the store lives in one process). */
  stores: [JobStore, JobStore];
  close?(): Promise<void>;
}

let seq = 0;
const uniqueQueue = () => `groups-${process.pid}-${Date.now().toString(36)}-${seq++}`;

export function groupedClaimCases(makeStores: () => Promise<GroupedStores>) {
  async function withStores(fn: (s: GroupedStores, queue: string) => Promise<void>) {
    const s = await makeStores();
    try {
      await fn(s, uniqueQueue());
    } finally {
      await s.close?.();
    }
  }

  it("hands out one job per group at a time, groups and ungrouped jobs in parallel", () =>
    withStores(async ({ stores: [a, b] }, queue) => {
      await a.enqueue({ queue, id: "g1-a", payload: 1, groupKey: "g1", now: 0 });
      await a.enqueue({ queue, id: "g1-b", payload: 2, groupKey: "g1", now: 0 });
      await a.enqueue({ queue, id: "g2-a", payload: 3, groupKey: "g2", now: 1 });
      await a.enqueue({ queue, id: "free-a", payload: 4, now: 2 });
      await a.enqueue({ queue, id: "free-b", payload: 5, now: 2 });
      const first = await a.claim({ queue, limit: 10, now: 10, leaseMs: 1000 });
      expect(first.map((j) => j.id)).toEqual(["g1-a", "g2-a", "free-a", "free-b"]);
      expect(first[0]).toMatchObject({ groupKey: "g1", payload: 1, attempts: 1 });
      // g1-b waits for g1-a on every claimer
      expect(await b.claim({ queue, limit: 10, now: 20, leaseMs: 1000 })).toEqual([]);
      await a.complete({ id: "g1-a", now: 30 });
      const next = await b.claim({ queue, limit: 10, now: 40, leaseMs: 1000 });
      expect(next.map((j) => j.id)).toEqual(["g1-b"]);
      expect(await a.counts(queue)).toEqual({ queued: 0, running: 4, done: 1, dead: 0 });
    }));

  it("frees a group when its running job fails into a delayed retry, and keeps it exclusive on the retry", () =>
    withStores(async ({ stores: [a, b] }, queue) => {
      await a.enqueue({ queue, id: "x1", payload: null, groupKey: "g", now: 0 });
      await a.enqueue({ queue, id: "x2", payload: null, groupKey: "g", now: 1 });
      expect((await a.claim({ queue, limit: 5, now: 10, leaseMs: 1000 })).map((j) => j.id)).toEqual(["x1"]);
      await a.fail({ id: "x1", error: "transient", retryAt: 500, now: 20 });
      expect((await b.claim({ queue, limit: 5, now: 30, leaseMs: 1000 })).map((j) => j.id)).toEqual(["x2"]);
      // x1 is due again but x2 holds the group
      expect(await a.claim({ queue, limit: 5, now: 600, leaseMs: 1000 })).toEqual([]);
      await b.complete({ id: "x2", now: 700 });
      expect(await a.claim({ queue, limit: 5, now: 800, leaseMs: 1000 })).toMatchObject([{ id: "x1", attempts: 2 }]);
    }));

  it("is lease-aware: a holder whose lease ended blocks its group no longer, and its job goes first", () =>
    withStores(async ({ stores: [a, b] }, queue) => {
      await a.enqueue({ queue, id: "l1", payload: null, groupKey: "g", now: 0 });
      await a.enqueue({ queue, id: "l2", payload: null, groupKey: "g", now: 1 });
      expect((await a.claim({ queue, limit: 5, now: 10, leaseMs: 100 })).map((j) => j.id)).toEqual(["l1"]);
      expect(await b.claim({ queue, limit: 5, now: 109, leaseMs: 100 })).toEqual([]);
      // the holder died: after its lease, the group resumes with the oldest job, still one at a time
      const retaken = await b.claim({ queue, limit: 5, now: 110, leaseMs: 100 });
      expect(retaken).toMatchObject([{ id: "l1", attempts: 2 }]);
      expect(await a.claim({ queue, limit: 5, now: 150, leaseMs: 100 })).toEqual([]);
      await b.complete({ id: "l1", now: 160 });
      expect((await a.claim({ queue, limit: 5, now: 170, leaseMs: 100 })).map((j) => j.id)).toEqual(["l2"]);
    }));

  it("completeAndClaim completes first, so the claim it carries finds the finished job's group free", () =>
    withStores(async ({ stores: [a, b] }, queue) => {
      await a.enqueue({ queue, id: "c1", payload: null, groupKey: "g", now: 0 });
      await a.enqueue({ queue, id: "c2", payload: null, groupKey: "g", now: 1 });
      await a.enqueue({ queue, id: "c3", payload: null, groupKey: "h", now: 2 });
      expect((await a.claim({ queue, limit: 1, now: 10, leaseMs: 1000 })).map((j) => j.id)).toEqual(["c1"]);
      expect(a.completeAndClaim && b.completeAndClaim).toBeTypeOf("function");
      const next = await b.completeAndClaim!({ done: [{ id: "c1", now: 20 }], queue, limit: 5, now: 30, leaseMs: 1000 });
      expect(next.map((j) => j.id)).toEqual(["c2", "c3"]);
      // nothing left to claim: the completions still count
      expect(
        await a.completeAndClaim!({
          done: [
            { id: "c2", now: 40 },
            { id: "c3", now: 40 },
          ],
          queue,
          limit: 5,
          now: 50,
          leaseMs: 1000,
        }),
      ).toEqual([]);
      expect(await a.counts(queue)).toEqual({ queued: 0, running: 0, done: 3, dead: 0 });
    }));

  it("never overlaps two jobs of a group under concurrent workers, while groups overlap", () =>
    withStores(async ({ stores: [a, b] }, queue) => {
      const groups = ["ga", "gb", "gc"];
      for (let i = 0; i < 24; i++)
        await a.enqueue({ queue, id: `w${String(i).padStart(2, "0")}`, payload: i, groupKey: groups[i % 3], now: Date.now() });
      const active = new Map<string, number>();
      let overlapInGroup = 0;
      let peak = 0;
      let running = 0;
      const ran: number[] = [];
      const handler = async (job: Job<number>) => {
        const g = job.groupKey ?? "";
        active.set(g, (active.get(g) ?? 0) + 1);
        if (active.get(g)! > 1) overlapInGroup++;
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 15));
        running--;
        active.set(g, active.get(g)! - 1);
        ran.push(job.payload);
      };
      const workers = [
        createWorker({ store: a, queue, handler, concurrency: 3, pollMs: 5 }),
        createWorker({ store: b, queue, handler, concurrency: 3, pollMs: 5 }),
      ];
      for (const w of workers) w.start();
      const deadline = Date.now() + 30_000;
      while ((await a.counts(queue)).done < 24 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      await Promise.all(workers.map((w) => w.stop()));
      expect(ran.sort((x, y) => x - y)).toEqual(Array.from({ length: 24 }, (_, i) => i));
      expect(overlapInGroup).toBe(0);
      expect(peak).toBeGreaterThan(1);
    }));
}
