// Store conformance suite: every EntriesStore (memory, SQLite, PostgreSQL, third-party) must pass it.
import { refusedOrAnswered, type SkipGroup, skipLookup } from "@mountkit/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeEntry, makeInventory, type Register, uid } from "./conformance/fixtures.js";
import { outboxTests } from "./conformance/outbox.js";
import { revisionTests } from "./conformance/revisions.js";
import type { EntriesStore, Entry } from "./store/types.js";

export interface EntriesStoreTarget {
  store: EntriesStore;
  close?(): Promise<void>;
}

export interface DescribeEntriesStoreOptions {
  /** Tests to skip, each with a written reason. */
  skip?: SkipGroup[];
}

/** Records: create, get, copies, refusals of odd input. */
function recordTests(test: Register, s: () => EntriesStore) {
  test("create then get returns the same record; another type or id is null", async () => {
    const store = s();
    const e = makeEntry({ typeId: uid("t") });
    await store.create({ entry: e });
    expect(await store.get({ typeId: e.typeId, id: e.id })).toEqual(e);
    expect(await store.get({ typeId: "other", id: e.id })).toBeNull();
    expect(await store.get({ typeId: e.typeId, id: "missing" })).toBeNull();
  });

  test("returned records are copies: mutating them changes nothing stored", async () => {
    const store = s();
    const e = makeEntry({ typeId: uid("t") });
    await store.create({ entry: e });
    const got = (await store.get({ typeId: e.typeId, id: e.id }))!;
    got.tags.push("mutated");
    (got.customData as Record<string, unknown>).x = 1;
    expect(await store.get({ typeId: e.typeId, id: e.id })).toEqual(e);
  });

  test("text holding NUL is refused with a 400 or kept exactly; lookups by such text find nothing", async () => {
    const store = s();
    const e = makeEntry({ typeId: uid("t"), name: "a\u0000b", tags: ["t\u0000"] });
    const created = await refusedOrAnswered(() => store.create({ entry: e }));
    if (!created.refused) expect(await store.get({ typeId: e.typeId, id: e.id })).toEqual(e);
    for (const op of <Array<() => Promise<unknown>>>[
      () => store.get({ typeId: e.typeId, id: "ent\u0000x" }),
      () => store.get({ typeId: "t\u0000", id: e.id }),
      () => store.getInventory({ typeId: e.typeId, entryId: "ent\u0000x" }),
    ]) {
      const r = await refusedOrAnswered(op);
      if (!r.refused) expect(r.value).toBeNull();
    }
    const byTag = await refusedOrAnswered(() => store.list({ typeId: uid("t"), limit: 5, tag: "x\u0000" }));
    if (!byTag.refused) expect(byTag.value).toEqual([]);
  });

  test("a keyset position that is not a safe integer is refused with a 400 or read as a position", async () => {
    const store = s();
    const typeId = uid("t");
    await store.create({ entry: makeEntry({ typeId, dateCreated: 5 }) });
    for (const dateCreated of [1.5, 1e20, -1e20, Number.NaN]) {
      const r = await refusedOrAnswered(() => store.list({ typeId, limit: 5, after: { dateCreated, id: "ent_x" } }));
      if (!r.refused) expect(Array.isArray(r.value)).toBe(true);
    }
    for (const offset of [1.5, 1e20]) {
      const r = await refusedOrAnswered(() => store.listOperations({ typeId, entryId: "ent_x", offset, limit: 5 }));
      if (!r.refused) expect(r.value).toEqual([]);
    }
    const id = await refusedOrAnswered(() => store.list({ typeId, limit: 5, after: { dateCreated: 10, id: "ent\u0000" } }));
    if (!id.refused) expect(id.value).toHaveLength(1);
  });

  test("create refuses a duplicate id", async () => {
    const store = s();
    const e = makeEntry({ typeId: uid("t") });
    await store.create({ entry: e });
    await expect(store.create({ entry: { ...e, name: "again" } })).rejects.toThrow();
  });
}

/** Listing: order, keyset pagination and the filters. */
function listTests(test: Register, s: () => EntriesStore) {
  test("list: newest first, ties by id descending, keyset pagination without gaps or repeats", async () => {
    const store = s();
    const typeId = uid("t");
    const made: Entry[] = [];
    for (let i = 0; i < 7; i++) {
      // two entries per timestamp exercise the id tie-break
      const e = makeEntry({ typeId, id: `ent_${String(i).padStart(3, "0")}`, dateCreated: 1000 + Math.floor(i / 2), dateModified: 1000 });
      made.push(e);
      await store.create({ entry: e });
    }
    const expected = [...made].sort((a, b) => b.dateCreated - a.dateCreated || (a.id < b.id ? 1 : -1)).map((e) => e.id);
    const seen: string[] = [];
    let after: { dateCreated: number; id: string } | undefined;
    for (;;) {
      const page = await store.list({ typeId, limit: 3, after });
      seen.push(...page.map((e) => e.id));
      if (page.length < 3) break;
      const last = page[page.length - 1]!;
      after = { dateCreated: last.dateCreated, id: last.id };
    }
    expect(seen).toEqual(expected);
  });

  test("list filters by tag and by owner, and never crosses types", async () => {
    const store = s();
    const typeId = uid("t");
    await store.create({ entry: makeEntry({ typeId, ownerId: "alice", tags: ["x", "y"] }) });
    await store.create({ entry: makeEntry({ typeId, ownerId: "bob", tags: ["y"] }) });
    await store.create({ entry: makeEntry({ typeId, ownerId: "bob", tags: [] }) });
    await store.create({ entry: makeEntry({ typeId: uid("t"), ownerId: "bob", tags: ["y"] }) });
    expect((await store.list({ typeId, limit: 10 })).length).toBe(3);
    expect((await store.list({ typeId, limit: 10, tag: "y" })).map((e) => e.ownerId).sort()).toEqual(["alice", "bob"]);
    expect((await store.list({ typeId, limit: 10, tag: "x" })).length).toBe(1);
    expect((await store.list({ typeId, limit: 10, ownerId: "bob" })).length).toBe(2);
    expect((await store.list({ typeId, limit: 10, ownerId: "bob", tag: "y" })).length).toBe(1);
    expect((await store.list({ typeId, limit: 10, tag: "nope" })).length).toBe(0);
  });

  test("list filters by text in name or description, ASCII letters in either case, with the other filters", async () => {
    const store = s();
    const typeId = uid("t");
    const make = (name: string, description: string, ownerId = "alice", tags = ["a"]) =>
      store.create({ entry: makeEntry({ typeId, name, description, ownerId, tags }) });
    await make("Petstore API", "Sells pets");
    await make("Weather", "Forecasts for every PET owner", "bob", ["b"]);
    await make("Ångström units", "50% off_sale");
    await make("Plain", "500 offxsale");
    await store.create({ entry: makeEntry({ typeId: uid("t"), name: "Petstore elsewhere" }) });
    const names = async (input: { q: string; ownerId?: string; tag?: string }) =>
      (await store.list({ typeId, limit: 10, ...input })).map((e) => e.name).sort();
    expect(await names({ q: "pet" })).toEqual(["Petstore API", "Weather"]);
    expect(await names({ q: "PETSTORE" })).toEqual(["Petstore API"]);
    expect(await names({ q: "pet", ownerId: "bob" })).toEqual(["Weather"]);
    expect(await names({ q: "pet", tag: "a" })).toEqual(["Petstore API"]);
    // LIKE wildcards are plain characters
    expect(await names({ q: "50% off_" })).toEqual(["Ångström units"]);
    expect(await names({ q: "%" })).toEqual(["Ångström units"]);
    expect(await names({ q: "_" })).toEqual(["Ångström units"]);
    // non-ASCII letters match exactly, so every store agrees whatever its locale
    expect(await names({ q: "ström" })).toEqual(["Ångström units"]);
    expect(await names({ q: "UNITS" })).toEqual(["Ångström units"]);
    expect(await names({ q: "ÅNGSTRÖM" })).toEqual([]);
    expect(await names({ q: "nothing like it" })).toEqual([]);
    // pages through matches only
    const first = await store.list({ typeId, limit: 1, q: "pet" });
    const rest = await store.list({ typeId, limit: 10, q: "pet", after: { dateCreated: first[0]!.dateCreated, id: first[0]!.id } });
    expect([...first, ...rest].map((e) => e.name).sort()).toEqual(["Petstore API", "Weather"]);
  });
}

/** Changes: update, inventories, delete. */
function changeTests(test: Register, s: () => EntriesStore) {
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

export function describeEntriesStore(name: string, factory: () => Promise<EntriesStoreTarget>, options: DescribeEntriesStoreOptions = {}) {
  const lookup = skipLookup(options.skip);
  const test: Register = (title, fn) => {
    const t = lookup(title);
    (t.skipped ? it.skip : it)(t.title, fn);
  };

  describe(`EntriesStore conformance: ${name}`, () => {
    let target: EntriesStoreTarget;
    let store: EntriesStore;
    beforeAll(async () => {
      target = await factory();
      store = target.store;
    });
    afterAll(async () => {
      await target?.close?.();
    });
    const s = () => store;
    recordTests(test, s);
    listTests(test, s);
    changeTests(test, s);
    revisionTests(test, s);
    outboxTests(test, s);
  });
}
