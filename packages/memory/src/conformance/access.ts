// Conformance: API keys stored by hash, and the daily quota's counter and holds under concurrent calls.
import { expect } from "vitest";
import { type StoreTest, T0, uid } from "./fixtures.js";

export function accessTests(test: StoreTest): void {
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
}
