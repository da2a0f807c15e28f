// Full-jitter backoff: the delay is drawn between 0 and the exponential cap, from the injected random source.
import { describe, expect, it } from "vitest";
import { manualClock } from "../src/index.js";
import { createQueue, exponentialCap, fullJitter, type JobStore, inMemoryJobStore } from "../src/jobs.js";

describe("full jitter", () => {
  it("spans 0 to the cap, following the random source", () => {
    expect(fullJitter(1000, () => 0)).toBe(0);
    expect(fullJitter(1000, () => 0.25)).toBe(250);
    expect(fullJitter(1000, () => 0.999_999)).toBe(1000);
    expect([0, 1, 2, 3, 20].map((n) => exponentialCap(n, 1000, 30_000))).toEqual([1000, 2000, 4000, 8000, 30_000]);
  });

  it("two clients failing together draw different delays", () => {
    let seed = 1;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const delays = Array.from({ length: 50 }, () => fullJitter(30_000, random));
    expect(new Set(delays).size).toBeGreaterThan(40);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...delays)).toBeLessThanOrEqual(30_000);
  });

  it("the queue retries a failed job after a jittered delay under the doubling cap", async () => {
    const clock = manualClock(1_000_000);
    const inner = inMemoryJobStore();
    const delays: number[] = [];
    const store: JobStore = {
      ...inner,
      fail: (input) => {
        if (input.retryAt !== null) delays.push(input.retryAt - input.now);
        return inner.fail(input);
      },
    };
    const q = createQueue(store, { clock });
    const draws = [0.5, 0.1];
    q.work("q", async () => Promise.reject(new Error("down")), { pollMs: 5, random: () => draws.shift() ?? 0 });
    await q.enqueue("q", {}, { maxAttempts: 3 });
    await expectSoon(() => delays.length === 1);
    expect(delays[0]).toBe(500); // half of the 1 s cap
    clock.advance(500);
    await expectSoon(() => delays.length === 2);
    expect(delays[1]).toBe(200); // a tenth of the 2 s cap
    await q.stop();
  });
});

async function expectSoon(check: () => boolean) {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}
