// Entries migration 3 on a database written before it: a catalogued entry's derived tags (its inventory's) leave
// `tags` for `derived_tags`, revisions kept since migration 2 lose their derived tags from `tags` too, and the store
// reads both lists apart. On SQLite and PostgreSQL.
import { coreMigrations, entriesMigrations, migrate, sqlEntriesStore } from "@mountkit/sql";
import { sql } from "kysely";
import { expect, it } from "vitest";
import { createTestDatabase, forEachDatabase } from "../../../test/sql-targets.js";

forEachDatabase("entries derived tags upgrade", (dialect) => {
  it("moves the catalogue's tags of stored entries and revisions into derivedTags", async () => {
    const target = await createTestDatabase(dialect);
    try {
      const before = { ...entriesMigrations, migrations: entriesMigrations.migrations.filter((m) => m.version <= 2) };
      const db = await target.open({ migrations: [coreMigrations, before] });
      try {
        const k = db.kysely;
        const tags = JSON.stringify(["own", "api", "openapi", "v2.0"]);
        await sql`insert into entries (type_id, id, owner_id, name, description, custom_data, tags, date_created, date_modified)
          values ('apis', 'ent_a', 'alice', 'A', 'd', '{}', ${tags}, 1, 2), ('countries', 'ent_c', 'alice', 'C', 'd', '{}', '["eu"]', 1, 1)`.execute(
          k,
        );
        await sql`insert into entries_inventories (type_id, entry_id, spec_version, title, version, endpoints, paths, tags)
          values ('apis', 'ent_a', '3.0.0', 'A', '2.0', 0, 0, '["api","openapi","v2.0"]')`.execute(k);
        await sql`insert into entries_revisions (type_id, entry_id, revision, author_id, date, name, description, custom_data, tags, derived_tags, restored_from)
          values ('apis', 'ent_a', 1, 'alice', 1, 'A', 'd', '{}', ${tags}, '[]', null),
                 ('apis', 'ent_a', 2, 'alice', 2, 'A', 'd', '{}', ${tags}, '["api","openapi","v2.0"]', null)`.execute(k);
        await migrate(db, [coreMigrations, entriesMigrations]);
        const store = sqlEntriesStore(db);
        expect(await store.get({ typeId: "apis", id: "ent_a" })).toMatchObject({ tags: ["own"], derivedTags: ["api", "openapi", "v2.0"] });
        expect(await store.get({ typeId: "countries", id: "ent_c" })).toMatchObject({ tags: ["eu"], derivedTags: [] });
        const [r2, r1] = await store.listRevisions({ typeId: "apis", entryId: "ent_a", limit: 5 });
        expect(r2).toMatchObject({ revision: 2, tags: ["own"], derivedTags: ["api", "openapi", "v2.0"] });
        // a revision backfilled before derived tags were recorded keeps its tags as they were
        expect(r1).toMatchObject({ revision: 1, tags: ["own", "api", "openapi", "v2.0"], derivedTags: [] });
        expect((await store.list({ typeId: "apis", limit: 5, tag: "v2.0" })).map((e) => e.id)).toEqual(["ent_a"]);
        expect((await store.list({ typeId: "apis", limit: 5, tag: "own" })).map((e) => e.id)).toEqual(["ent_a"]);
      } finally {
        await db.close();
      }
    } finally {
      await target.drop();
    }
  });
});
