// Store conformance: revisions (one per submission and change, numbered per entry, gone with the entry) and the
// compare-and-set on `dateModified` that If-Match rests on.
import { expect } from "vitest";
import type { EntriesStore } from "../store/types.js";
import { makeEntry, type Register, uid } from "./fixtures.js";

export function revisionTests(test: Register, s: () => EntriesStore) {
  test("revisions: the submission is revision 1, each change the next, newest first, paged with before", async () => {
    const store = s();
    const e = makeEntry({ typeId: uid("t"), tags: ["own"], derivedTags: ["api"] });
    await store.create({ entry: e });
    for (let i = 1; i <= 4; i++) {
      const changed = await store.update({
        typeId: e.typeId,
        id: e.id,
        ownerId: "alice",
        changes: { name: `Name ${i}`, dateModified: e.dateModified + i, ...(i === 3 ? { derivedTags: [] } : {}) },
        note: { authorId: "alice", restoredFrom: i === 4 ? 1 : null },
      });
      expect(changed?.name).toBe(`Name ${i}`);
    }
    const all = await store.listRevisions({ typeId: e.typeId, entryId: e.id, limit: 10 });
    expect(all.map((r) => r.revision)).toEqual([5, 4, 3, 2, 1]);
    expect(all[4]).toEqual({
      typeId: e.typeId,
      entryId: e.id,
      revision: 1,
      authorId: "alice",
      date: e.dateModified,
      name: e.name,
      description: e.description,
      customData: e.customData,
      tags: ["own"],
      derivedTags: ["api"],
      restoredFrom: null,
    });
    expect(all[0]).toMatchObject({ revision: 5, name: "Name 4", date: e.dateModified + 4, restoredFrom: 1, derivedTags: [] });
    expect((await store.listRevisions({ typeId: e.typeId, entryId: e.id, limit: 2, before: 4 })).map((r) => r.revision)).toEqual([3, 2]);
    expect(await store.listRevisions({ typeId: e.typeId, entryId: e.id, limit: 2, before: 1 })).toEqual([]);
    expect(await store.getRevision({ typeId: e.typeId, entryId: e.id, revision: 3 })).toEqual(all[2]);
    for (const revision of [0, 6, -1, 2.5]) expect(await store.getRevision({ typeId: e.typeId, entryId: e.id, revision })).toBeNull();
    // another type, another entry: nothing
    expect(await store.listRevisions({ typeId: uid("t"), entryId: e.id, limit: 10 })).toEqual([]);
    expect(await store.getRevision({ typeId: e.typeId, entryId: "ent_missing", revision: 1 })).toBeNull();
  });

  test("revisions are copies, and go with the entry when it is deleted", async () => {
    const store = s();
    const e = makeEntry({ typeId: uid("t") });
    await store.create({ entry: e });
    const r = (await store.getRevision({ typeId: e.typeId, entryId: e.id, revision: 1 }))!;
    (r.customData as { unicode: string }).unicode = "changed";
    r.tags.push("x");
    expect(await store.getRevision({ typeId: e.typeId, entryId: e.id, revision: 1 })).toMatchObject({
      customData: e.customData,
      tags: e.tags,
    });
    expect(await store.delete({ typeId: e.typeId, id: e.id, ownerId: "alice" })).toBe(true);
    expect(await store.listRevisions({ typeId: e.typeId, entryId: e.id, limit: 10 })).toEqual([]);
    // an entry created again under the same id starts again at revision 1
    await store.create({ entry: e });
    expect((await store.listRevisions({ typeId: e.typeId, entryId: e.id, limit: 10 })).map((x) => x.revision)).toEqual([1]);
  });

  test("expectModified: a change or a delete applies only to the version it names; of two, one applies", async () => {
    const store = s();
    const e = makeEntry({ typeId: uid("t") });
    await store.create({ entry: e });
    const at = { typeId: e.typeId, id: e.id, ownerId: "alice" };
    expect(
      await store.update({ ...at, changes: { name: "Stale", dateModified: e.dateModified + 1 }, expectModified: e.dateModified - 1 }),
    ).toBeNull();
    const both = await Promise.all(
      ["A", "B"].map((name, i) =>
        store.update({ ...at, changes: { name, dateModified: e.dateModified + 10 + i }, expectModified: e.dateModified }),
      ),
    );
    expect(both.filter((x) => x !== null)).toHaveLength(1);
    const now = (await store.get({ typeId: e.typeId, id: e.id }))!;
    expect(now.name).toBe(both.find((x) => x !== null)!.name);
    expect((await store.listRevisions({ typeId: e.typeId, entryId: e.id, limit: 10 })).map((r) => r.revision)).toEqual([2, 1]);
    expect(await store.delete({ ...at, expectModified: e.dateModified })).toBe(false);
    expect(await store.get({ typeId: e.typeId, id: e.id })).not.toBeNull();
    expect(await store.delete({ ...at, expectModified: now.dateModified })).toBe(true);
  });
}
