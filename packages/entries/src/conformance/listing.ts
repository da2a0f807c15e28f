// Store conformance: listing a type's entries, newest first, with keyset pagination and the tag, owner and text filters.
import { expect } from "vitest";
import type { EntriesStore, Entry } from "../store/types.js";
import { makeEntry, type Register, uid } from "./fixtures.js";

/** Listing: order, keyset pagination and the filters. */
export function listTests(test: Register, s: () => EntriesStore) {
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
