// Full-text ranking per brain: another brain's corpus must not reorder this brain's results. PostgreSQL
// computes BM25 from the brain's own documents; SQLite keeps one FTS5 table per brain, so bm25() takes
// its statistics from the brain's own documents too. Also: a SQLite file written before the per-brain
// tables (shared FTS tables, migration 3) upgrades and still finds its documents.
import { createMemoryService, searchTerms } from "@mountkit/memory";
import { commitOf, entity } from "@mountkit/memory/testing";
import { coreMigrations, memoryMigrations, migrate, openDatabase, sqlMemoryStore } from "@mountkit/sql";
import { sql } from "kysely";
import { expect, it } from "vitest";
import { createTestDatabase, forEachDatabase, useMigratedDatabase } from "../../../test/sql-targets.js";

const T0 = Date.UTC(2024, 0, 1);

forEachDatabase("memory full-text ranking per brain", (dialect) => {
  const use = useMigratedDatabase(dialect, [coreMigrations, memoryMigrations]);

  it("ranks a brain's episodes the same whatever another brain holds", async () => {
    const store = sqlMemoryStore(use.db);
    const service = createMemoryService({ store, worker: { start: false } });
    try {
      // an hour apart: each episode is a conversation of its own, indexed with no neighbour's words
      let hour = 0;
      const add = (brainId: string, content: string) =>
        service.api.createEpisode(brainId, { content, occurredAt: T0 + hour++ * 3_600_000 });
      // in brain "mine" both query terms are equally rare; "zeta" occurs twice in its episode
      const zeta = await add("mine", "zeta zeta quarterly report");
      const omega = await add("mine", "omega quarterly report notes");
      for (let i = 0; i < 5; i++) await add("mine", `quarterly report notes ${i}`);
      const order = async () =>
        (await store.searchEpisodes({ brainId: "mine", query: "zeta omega", limit: 10, asOf: Date.now() + 86_400_000 })).map(
          (h) => h.item.id,
        );
      const alone = await order();
      expect(alone).toEqual([zeta.id, omega.id]);
      // another brain fills up with "zeta"
      for (let i = 0; i < 300; i++) await add("crowd", `zeta archive entry ${i}`);
      expect(await order()).toEqual(alone);
    } finally {
      await service.dispose?.();
    }
  }, 120_000);
});

forEachDatabase("memory full-text tables and rolled-back commits", (dialect) => {
  const use = useMigratedDatabase(dialect, [coreMigrations, memoryMigrations]);

  it("a brain's first commit rolled back as a conflict leaves the next commit able to index its entities", async () => {
    const store = sqlMemoryStore(use.db);
    const service = createMemoryService({ store, worker: { start: false } });
    try {
      const brainId = `fts-rollback-${dialect}`;
      const ep = await service.api.createEpisode(brainId, { content: "Quillon Varga restores clocks.", occurredAt: T0 });
      const quillon = entity(brainId, "Quillon Varga");
      const commit = async (expectVersion: number) =>
        store.commitExtraction(
          commitOf((await store.getEpisode({ brainId, id: ep.id }))!, {
            createEntities: [quillon],
            entityIds: [quillon.id],
            expectVersion,
          }),
        );
      // the entities' full-text table is created in this transaction, then rolled back with it
      expect(await commit(7)).toEqual({ committed: false, reason: "conflict" });
      expect(await commit(0)).toEqual({ committed: true });
      expect((await store.searchEntities({ brainId, query: "Quillon", limit: 5 })).map((h) => h.item.id)).toEqual([quillon.id]);
    } finally {
      await service.dispose?.();
    }
  }, 60_000);
});

forEachDatabase("memory full-text tables upgrade", () => {
  it("moves a brain's rows from the shared FTS tables into its own and keeps finding them", async () => {
    const target = await createTestDatabase("sqlite");
    try {
      const before = { ...memoryMigrations, migrations: memoryMigrations.migrations.filter((m) => m.version <= 3) };
      const old = await target.open({ migrations: [coreMigrations, before] });
      const content = "Quentin repairs vintage cameras";
      await sql`insert into memory_episodes (brain_id, id, content, metadata, occurred_at, created_at, status, error, entity_ids, edge_ids, processed_at)
          values ('old-brain', 'ep_old', ${content}, '{}', ${T0}, ${T0}, 'done', null, '[]', '[]', ${T0})`.execute(old.kysely);
      await sql`insert into memory_episodes_fts (rowid, brain, terms)
          values ((select rowid from memory_episodes where id = 'ep_old'), 'old-brain', ${searchTerms(content).join(" ")})`.execute(
        old.kysely,
      );
      await old.close();
      const db = await openDatabase({ dataDir: target.env.DATA_DIR!, migrations: [coreMigrations, memoryMigrations] });
      try {
        const store = sqlMemoryStore(db);
        const hits = await store.searchEpisodes({ brainId: "old-brain", query: "vintage camera", limit: 5, asOf: T0 + 1 });
        expect(hits.map((h) => h.item.id)).toEqual(["ep_old"]);
        expect(await store.searchEpisodes({ brainId: "other", query: "vintage camera", limit: 5, asOf: T0 + 1 })).toEqual([]);
        await migrate(db, [coreMigrations, memoryMigrations]);
      } finally {
        await db.close();
      }
    } finally {
      await target.drop();
    }
  });
}, ["sqlite"]);
