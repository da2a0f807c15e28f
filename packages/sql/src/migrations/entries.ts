// Tables of the entries service: entries, and the inventory (summary + operations) of catalogued APIs.
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
  ],
};
