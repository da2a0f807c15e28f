import { describe, expect, it } from "vitest";
import { inMemoryQuotaCounter, inMemoryRateLimiter, utcDay } from "../src/jobs.js";

describe("sliding-log rate limiter", () => {
  it("never admits more than the limit in any window, even across a second boundary", async () => {
    const limiter = inMemoryRateLimiter();
    const admitted: number[] = [];
    // a burst at the end of one second and another at the start of the next
    const times = [...Array.from({ length: 30 }, (_, i) => 900 + i * 3), ...Array.from({ length: 30 }, (_, i) => 1000 + i * 3)];
    for (const t of times) if ((await limiter.hit("p", { limit: 20, windowMs: 1000, now: t })).allowed) admitted.push(t);
    for (const start of admitted) expect(admitted.filter((t) => t >= start && t < start + 1000).length).toBeLessThanOrEqual(20);
    expect(admitted.length).toBe(20);
  });
  it("tells how long to wait and admits again after it", async () => {
    const limiter = inMemoryRateLimiter();
    for (let i = 0; i < 5; i++) await limiter.hit("k", { limit: 5, windowMs: 1000, now: 100 + i });
    const denied = await limiter.hit("k", { limit: 5, windowMs: 1000, now: 500 });
    expect(denied).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 600 });
    expect((await limiter.hit("k", { limit: 5, windowMs: 1000, now: 1100 })).allowed).toBe(true);
  });
  it("keeps keys apart", async () => {
    const limiter = inMemoryRateLimiter();
    expect((await limiter.hit("a", { limit: 1, windowMs: 1000, now: 0 })).allowed).toBe(true);
    expect((await limiter.hit("b", { limit: 1, windowMs: 1000, now: 0 })).allowed).toBe(true);
    expect((await limiter.hit("a", { limit: 1, windowMs: 1000, now: 1 })).allowed).toBe(false);
  });
});

describe("sliding-log rate limiter: peek", () => {
  it("answers what a hit would, and records nothing", async () => {
    const limiter = inMemoryRateLimiter();
    expect(await limiter.peek("k", { limit: 2, windowMs: 1000, now: 0 })).toEqual({
      allowed: true,
      limit: 2,
      remaining: 1,
      retryAfterMs: 0,
    });
    expect(await limiter.hit("k", { limit: 2, windowMs: 1000, now: 0 })).toEqual({
      allowed: true,
      limit: 2,
      remaining: 1,
      retryAfterMs: 0,
    });
    await limiter.hit("k", { limit: 2, windowMs: 1000, now: 100 });
    for (let i = 0; i < 3; i++)
      expect(await limiter.peek("k", { limit: 2, windowMs: 1000, now: 200 })).toEqual({
        allowed: false,
        limit: 2,
        remaining: 0,
        retryAfterMs: 800,
      });
    expect((await limiter.peek("k", { limit: 2, windowMs: 1000, now: 1000 })).allowed).toBe(true);
    expect((await limiter.hit("k", { limit: 2, windowMs: 1000, now: 1000 })).remaining).toBe(0);
  });

  it("keeps a key with a long window while keys with short ones are swept", async () => {
    const limiter = inMemoryRateLimiter();
    const week = { limit: 1, windowMs: 7 * 86_400_000 };
    await limiter.hit("known", { ...week, now: 0 });
    // many sweeps over every key, on one-second windows, well past the second
    for (let i = 0; i < 10_001; i++) await limiter.hit(`short${i % 50}`, { limit: 5, windowMs: 1000, now: 5000 + i });
    expect((await limiter.peek("known", { ...week, now: 20_000 })).allowed).toBe(false);
    expect((await limiter.peek("known", { ...week, now: week.windowMs })).allowed).toBe(true);
  });
});

describe("quota counter", () => {
  it("is exact under concurrent consumption and refunds", async () => {
    const q = inMemoryQuotaCounter();
    const results = await Promise.all(Array.from({ length: 50 }, () => q.consume("brain", "2026-01-01", 10)));
    expect(results.filter((r) => r.allowed).length).toBe(10);
    await q.refund("brain", "2026-01-01");
    expect((await q.consume("brain", "2026-01-01", 10)).allowed).toBe(true);
    expect((await q.consume("brain", "2026-01-02", 10)).used).toBe(1);
  });
  it("resets at midnight UTC", () => {
    expect(utcDay(Date.parse("2026-03-04T23:59:59.999Z"))).toEqual({ day: "2026-03-04", resetAt: Date.parse("2026-03-05T00:00:00Z") });
  });
});
