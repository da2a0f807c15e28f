// Tables of the entries service: entries, their revisions, and the inventory (summary + operations) of catalogued APIs.
import type { MigrationSet } from "../migrate.js";
import { exec } from "../migrate.js";

export const entriesMigrations: MigrationSet = {
  name: "entries",
  migrations: [
    {
      version: 1,
      name: "entries, inventories, operations",
      async up(db, dialect) {
        // byte order for ids: keyset pagination must sort exactly as the other stores do
        const key = dialect === "postgres" ? 'text collate "C"' : "text";
        await exec(db, [
          `create table entries (
            type_id text not null,
            id ${key} not null,
            owner_id text not null,
            name text not null,
            description text not null,
            custom_data text not null,
            tags text not null,
            date_created bigint not null,
            date_modified bigint not null,
            primary key (type_id, id)
          )`,
          "create index entries_newest on entries (type_id, date_created desc, id desc)",
          "create index entries_owner on entries (type_id, owner_id, date_created desc, id desc)",
          `create table entries_inventories (
            type_id text not null,
            entry_id text not null,
            spec_version text not null,
            title text not null,
            version text not null,
            endpoints integer not null,
            paths integer not null,
            tags text not null,
            primary key (type_id, entry_id)
          )`,
          `create table entries_operations (
            type_id text not null,
            entry_id text not null,
            position integer not null,
            method text not null,
            path text not null,
            operation_id text,
            summary text,
            primary key (type_id, entry_id, position)
          )`,
        ]);
      },
    },
    {
      version: 2,
      name: "entry revisions",
      async up(db, dialect) {
        const key = dialect === "postgres" ? 'text collate "C"' : "text";
        await exec(db, [
          `create table entries_revisions (
            type_id text not null,
            entry_id ${key} not null,
            revision integer not null,
            author_id text not null,
            date bigint not null,
            name text not null,
            description text not null,
            custom_data text not null,
            tags text not null,
            derived_tags text not null,
            restored_from integer,
            primary key (type_id, entry_id, revision)
          )`,
          // the entries stored before revisions were kept: their present state becomes revision 1
          `insert into entries_revisions (type_id, entry_id, revision, author_id, date, name, description, custom_data, tags, derived_tags, restored_from)
            select type_id, id, 1, owner_id, date_modified, name, description, custom_data, tags, '[]', null from entries`,
        ]);
      },
    },
    {
      version: 3,
      name: "derived tags apart from submitted ones",
      async up(db) {
        await exec(db, ["alter table entries add column derived_tags text not null default '[]'"]);
        // a catalogued entry's derived tags are its inventory's: they leave `tags` for `derived_tags`
        const rows = await db
          .selectFrom("entries as e")
          .innerJoin("entries_inventories as i", (j) => j.onRef("i.type_id", "=", "e.type_id").onRef("i.entry_id", "=", "e.id"))
          .select(["e.type_id", "e.id", "e.tags", "i.tags as derived"])
          .execute();
        for (const r of rows as Array<{ type_id: string; id: string; tags: string; derived: string }>) {
          const derived: string[] = JSON.parse(r.derived);
          const own = (JSON.parse(r.tags) as string[]).filter((t) => !derived.includes(t));
          await db
            .updateTable("entries")
            .set({ tags: JSON.stringify(own), derived_tags: r.derived })
            .where("type_id", "=", r.type_id)
            .where("id", "=", r.id)
            .execute();
        }
        // revisions kept since version 2 name their derived tags: those leave `tags` too
        const revisions = await db
          .selectFrom("entries_revisions")
          .select(["type_id", "entry_id", "revision", "tags", "derived_tags"])
          .where("derived_tags", "<>", "[]")
          .execute();
        for (const r of revisions as Array<{ type_id: string; entry_id: string; revision: number; tags: string; derived_tags: string }>) {
          const derived: string[] = JSON.parse(r.derived_tags);
          await db
            .updateTable("entries_revisions")
            .set({ tags: JSON.stringify((JSON.parse(r.tags) as string[]).filter((t) => !derived.includes(t))) })
            .where("type_id", "=", r.type_id)
            .where("entry_id", "=", r.entry_id)
            .where("revision", "=", r.revision)
            .execute();
        }
      },
    },
  ],
};
