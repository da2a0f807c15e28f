// Store conformance: changes to an entry (update for its owner, the inventory stored beside it, delete).
import { expect } from "vitest";
import type { EntriesStore } from "../store/types.js";
import { makeEntry, makeInventory, type Register, uid } from "./fixtures.js";

/** Changes: update, inventories, delete. */
export function changeTests(test: Register, s: () => EntriesStore) {
  test("update applies changes only for the owner and returns the new record", async () => {
    const store = s();
    const e = makeEntry({ typeId: uid("t") });
    await store.create({ entry: e });
    expect(await store.update({ typeId: e.typeId, id: e.id, ownerId: "mallory", changes: { name: "X", dateModified: 2 } })).toBeNull();
    const u = await store.update({
      typeId: e.typeId,
      id: e.id,
      ownerId: "alice",
      changes: { name: "New", tags: ["b"], dateModified: e.dateModified + 5 },
    });
    expect(u).toEqual({ ...e, name: "New", tags: ["b"], dateModified: e.dateModified + 5 });
    expect(await store.get({ typeId: e.typeId, id: e.id })).toEqual(u);
    expect(await store.update({ typeId: e.typeId, id: "missing", ownerId: "alice", changes: { dateModified: 3 } })).toBeNull();
  });

  test("inventory: stored with the entry, summary without operations, operations paginated in order", async () => {
    const store = s();
    const e = makeEntry({ typeId: uid("t") });
    const inv = makeInventory(25);
    await store.create({ entry: e, inventory: inv });
    const { operations, ...summary } = inv;
    expect(await store.getInventory({ typeId: e.typeId, entryId: e.id })).toEqual(summary);
    const all = [];
    for (let offset = 0; ; offset += 10) {
      const page = await store.listOperations({ typeId: e.typeId, entryId: e.id, offset, limit: 10 });
      all.push(...page);
      if (page.length < 10) break;
    }
    expect(all).toEqual(operations);
    expect(await store.listOperations({ typeId: e.typeId, entryId: e.id, offset: 25, limit: 10 })).toEqual([]);
    expect(await store.getInventory({ typeId: "other", entryId: e.id })).toBeNull();
  });

  test("an entry created without an inventory has none", async () => {
    const store = s();
    const e = makeEntry({ typeId: uid("t") });
    await store.create({ entry: e });
    expect(await store.getInventory({ typeId: e.typeId, entryId: e.id })).toBeNull();
    expect(await store.listOperations({ typeId: e.typeId, entryId: e.id, offset: 0, limit: 5 })).toEqual([]);
  });

  test("update replaces the inventory with an object, removes it with null, keeps it when absent", async () => {
    const store = s();
    const e = makeEntry({ typeId: uid("t") });
    await store.create({ entry: e, inventory: makeInventory(4, "1.0") });
    await store.update({ typeId: e.typeId, id: e.id, ownerId: "alice", changes: { name: "n", dateModified: 2 } });
    expect((await store.getInventory({ typeId: e.typeId, entryId: e.id }))?.version).toBe("1.0");
    await store.update({
      typeId: e.typeId,
      id: e.id,
      ownerId: "alice",
      changes: { dateModified: 3 },
      inventory: makeInventory(6, "2.0"),
    });
    expect(await store.getInventory({ typeId: e.typeId, entryId: e.id })).toMatchObject({ version: "2.0", endpoints: 6 });
    expect((await store.listOperations({ typeId: e.typeId, entryId: e.id, offset: 0, limit: 100 })).length).toBe(6);
    await store.update({ typeId: e.typeId, id: e.id, ownerId: "alice", changes: { dateModified: 4 }, inventory: null });
    expect(await store.getInventory({ typeId: e.typeId, entryId: e.id })).toBeNull();
  });

  test("delete: owner only, removes the entry and its inventory", async () => {
    const store = s();
    const e = makeEntry({ typeId: uid("t") });
    await store.create({ entry: e, inventory: makeInventory(3) });
    expect(await store.delete({ typeId: e.typeId, id: e.id, ownerId: "mallory" })).toBe(false);
    expect(await store.get({ typeId: e.typeId, id: e.id })).not.toBeNull();
    expect(await store.delete({ typeId: e.typeId, id: e.id, ownerId: "alice" })).toBe(true);
    expect(await store.get({ typeId: e.typeId, id: e.id })).toBeNull();
    expect(await store.getInventory({ typeId: e.typeId, entryId: e.id })).toBeNull();
    expect(await store.delete({ typeId: e.typeId, id: e.id, ownerId: "alice" })).toBe(false);
  });

  test("a large inventory (1000 operations) round-trips exactly", async () => {
    const store = s();
    const e = makeEntry({ typeId: uid("t") });
    const inv = makeInventory(1000);
    await store.create({ entry: e, inventory: inv });
    expect(await store.listOperations({ typeId: e.typeId, entryId: e.id, offset: 0, limit: 1000 })).toEqual(inv.operations);
    expect(await store.listOperations({ typeId: e.typeId, entryId: e.id, offset: 990, limit: 50 })).toEqual(inv.operations.slice(990));
  });
}
