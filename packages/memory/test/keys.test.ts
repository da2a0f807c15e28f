import { describe, expect, it } from "vitest";
import { runCli } from "../src/cli.js";
import { brainForKey, createApiKey, hashApiKey, inMemoryMemoryStore, parseKeyList, revokeApiKey } from "../src/index.js";

describe("api keys", () => {
  it("stores only a hash; one key authorises one brain; revocation stops it", async () => {
    const store = inMemoryMemoryStore();
    const { key, record } = await createApiKey(store, { brainId: "team-1" });
    expect(key).toMatch(/^mk_[A-Za-z0-9_-]{43}$/);
    expect(record.hash).toBe(hashApiKey(key));
    expect(JSON.stringify(await store.listApiKeys({}))).not.toContain(key);
    expect(await brainForKey(store, key)).toBe("team-1");
    expect(await brainForKey(store, `${key}x`)).toBeNull();
    await expect(createApiKey(store, { brainId: "team-2", key })).rejects.toThrow(/another brain/);
    expect(await revokeApiKey(store, record.id)).toBe(true);
    expect(await brainForKey(store, key)).toBeNull();
  });

  it("parses MEMORY_API_KEYS", () => {
    expect(parseKeyList("k1aaaaaaaaaaaaaaa=a, k2bbbbbbbbbbbbbbbb=b")).toEqual([
      { key: "k1aaaaaaaaaaaaaaa", brainId: "a" },
      { key: "k2bbbbbbbbbbbbbbbb", brainId: "b" },
    ]);
    expect(() => parseKeyList("nobrain")).toThrow();
    expect(() => parseKeyList("key=")).toThrow();
  });
});

describe("cli", () => {
  it("creates, lists and revokes keys against a store", async () => {
    const store = inMemoryMemoryStore();
    const out: string[] = [];
    const err: string[] = [];
    const io = { openStore: async () => ({ store }), out: (l: string) => out.push(l), err: (l: string) => err.push(l) };
    expect(await runCli(["keys", "create", "--brain", "ops", "--label", "ci"], io)).toBe(0);
    const secret = out.find((l) => l.startsWith("secret"))!.split(": ")[1]!;
    expect(await brainForKey(store, secret)).toBe("ops");
    out.length = 0;
    expect(await runCli(["keys", "list", "--json"], io)).toBe(0);
    const listed = JSON.parse(out[0]!);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ brainId: "ops", label: "ci", revokedAt: null });
    expect(listed[0]).not.toHaveProperty("hash");
    expect(await runCli(["keys", "revoke", listed[0].id], io)).toBe(0);
    expect(await brainForKey(store, secret)).toBeNull();
    expect(await runCli(["keys", "revoke", listed[0].id], io)).toBe(1);
    expect(await runCli(["keys", "create"], io)).toBe(2);
    expect(await runCli(["nope"], io)).toBe(2);
    expect(err.length).toBeGreaterThan(0);
  });
});
