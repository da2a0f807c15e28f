import { describe, expect, it } from "vitest";
import { groupedClaimCases } from "../../../test/job-groups.js";
import { manualClock, silentLogger as silent } from "../src/index.js";
import { createQueue, createWorker, inMemoryJobStore, type Job, type JobStore } from "../src/jobs.js";

describe("queue", () => {
  it("retries a failing handler with backoff, then succeeds", async () => {
    const q = createQueue(inMemoryJobStore());
    let calls = 0;
    const done: string[] = [];
    const w = q.work<{ n: number }>(
      "q",
      async (job) => {
        calls++;
        if (calls < 3) throw new Error("flaky");
        done.push(job.id);
      },
      { pollMs: 5, backoffMs: () => 5 },
    );
    const id = await q.enqueue("q", { n: 1 });
    await w.idle();
    expect(done).toEqual([id]);
    expect(calls).toBe(3);
    await q.stop();
  });

  it("marks a job dead after its last attempt and keeps going", async () => {
    const store = inMemoryJobStore();
    const q = createQueue(store);
    const dead: string[] = [];
    const ok: unknown[] = [];
    const w = q.work<{ ok: boolean }>(
      "q",
      async (job) => {
        if (!job.payload.ok) throw new Error("always");
        ok.push(job.payload);
      },
      { pollMs: 5, backoffMs: () => 1, onDead: (job) => void dead.push(job.id) },
    );
    const bad = await q.enqueue("q", { ok: false }, { maxAttempts: 2 });
    await q.enqueue("q", { ok: true });
    await w.idle();
    expect(dead).toEqual([bad]);
    expect(ok).toHaveLength(1);
    expect(await store.counts("q")).toEqual({ queued: 0, running: 0, done: 1, dead: 1 });
    await q.stop();
  });

  it("re-delivers a job whose lease expired (a crashed worker)", async () => {
    const store = inMemoryJobStore();
    const clock = manualClock(0);
    await store.enqueue({ queue: "q", payload: {}, id: "j1", now: 0 });
    const first = await store.claim({ queue: "q", limit: 1, now: 0, leaseMs: 1000 });
    expect(first.map((j) => j.id)).toEqual(["j1"]);
    expect(await store.claim({ queue: "q", limit: 1, now: 500, leaseMs: 1000 })).toEqual([]);
    clock.set(1500);
    const again = await store.claim({ queue: "q", limit: 1, now: clock.now(), leaseMs: 1000 });
    expect(again[0]).toMatchObject({ id: "j1", attempts: 2 });
  });

  it("stop() waits for in-flight jobs", async () => {
    const store = inMemoryJobStore();
    let finished = false;
    let started!: () => void;
    const startedP = new Promise<void>((r) => (started = r));
    const w = createWorker({
      store,
      queue: "q",
      pollMs: 5,
      handler: async (_job: Job) => {
        started();
        await new Promise((r) => setTimeout(r, 50));
        finished = true;
      },
    });
    w.start();
    await store.enqueue({ queue: "q", payload: {}, id: "a", now: Date.now() });
    w.wake();
    await startedP;
    await w.stop();
    expect(finished).toBe(true);
  });

  it("runs jobs concurrently up to the limit", async () => {
    const q = createQueue(inMemoryJobStore());
    let active = 0;
    let peak = 0;
    const w = q.work(
      "q",
      async () => {
        active++;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 10));
        active--;
      },
      { concurrency: 3, pollMs: 5 },
    );
    for (let i = 0; i < 10; i++) await q.enqueue("q", { i });
    await w.idle();
    expect(peak).toBe(3);
    await q.stop();
  });
});

describe("queue completions with the next claim", () => {
  it("completes each finished job with the claim that follows it, one store call for both", async () => {
    const store = inMemoryJobStore();
    const calls: string[] = [];
    const counted: JobStore = {
      ...store,
      claim: (i) => {
        calls.push("claim");
        return store.claim(i);
      },
      complete: (i) => {
        calls.push("complete");
        return store.complete(i);
      },
      completeAndClaim: (i) => {
        calls.push(`completeAndClaim:${i.done.length}`);
        return store.completeAndClaim!(i);
      },
    };
    for (let i = 0; i < 4; i++) await store.enqueue({ queue: "q", id: `j${i}`, payload: i, groupKey: "g", now: i });
    const ran: number[] = [];
    const w = createWorker<number>({ store: counted, queue: "q", handler: async (job) => void ran.push(job.payload), pollMs: 5 });
    w.start();
    await w.idle();
    await w.stop();
    expect(ran).toEqual([0, 1, 2, 3]);
    expect(await store.counts("q")).toEqual({ queued: 0, running: 0, done: 4, dead: 0 });
    // one job of the group at a time: each completion travels with the claim of the next job
    expect(calls.filter((c) => c === "complete")).toEqual([]);
    expect(calls.filter((c) => c.startsWith("completeAndClaim")).length).toBeGreaterThanOrEqual(4);
  });

  it("keeps a completion whose claim failed for the next one, and stop() records what is still waiting", async () => {
    const store = inMemoryJobStore();
    let claims = 0;
    const failing: JobStore = {
      ...store,
      // the first claim works; every claim after it fails (the database went away)
      claim: (i) => (claims++ ? Promise.reject(new Error("claims down")) : store.claim(i)),
      completeAndClaim: () => Promise.reject(new Error("claims down")),
    };
    await store.enqueue({ queue: "q", id: "only", payload: null, now: 0 });
    let ran = 0;
    const w = createWorker({ store: failing, queue: "q", handler: async () => void ran++, pollMs: 5, logger: silent });
    w.start();
    await expect.poll(() => ran).toBe(1);
    // the claim carrying its completion failed: the job is still running in the store
    await new Promise((r) => setTimeout(r, 30));
    expect(await store.counts("q")).toMatchObject({ running: 1, done: 0 });
    await w.stop();
    expect(await store.counts("q")).toEqual({ queued: 0, running: 0, done: 1, dead: 0 });
  });
});

describe("queue group keys (inMemoryJobStore)", () => {
  groupedClaimCases(async () => {
    const store = inMemoryJobStore();
    return { stores: [store, store] };
  });

  it("passes a group key through createQueue.enqueue", async () => {
    const store = inMemoryJobStore();
    const q = createQueue(store);
    await q.enqueue("q", 1, { id: "a", groupKey: "brain-1" });
    await q.enqueue("q", 2, { id: "b", groupKey: "brain-1" });
    const got = await store.claim({ queue: "q", limit: 5, now: Date.now() + 1, leaseMs: 1000 });
    expect(got).toMatchObject([{ id: "a", groupKey: "brain-1" }]);
  });
});
