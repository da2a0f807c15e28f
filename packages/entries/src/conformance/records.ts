// Store conformance: records as stored (create, get, copies) and the odd input a store may refuse or must keep exactly.
import { refusedOrAnswered } from "@mountkit/core/testing";
import { expect } from "vitest";
import type { EntriesStore } from "../store/types.js";
import { makeEntry, type Register, uid } from "./fixtures.js";

/** Records: create, get, copies, refusals of odd input. */
export function recordTests(test: Register, s: () => EntriesStore) {
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
