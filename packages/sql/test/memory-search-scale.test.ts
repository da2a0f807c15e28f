// Full-text search past the rank budget (stores/memory/search-scale.ts on SQLite, stores/memory/search-pg.ts on PostgreSQL): the rows holding every query word are
// ranked first, and when they give fewer than `limit` visible hits every match is ranked, so a store with
// a tiny budget answers what a store ranking every match answers, on both engines.
import { commitOf, edge, entity, episode } from "@mountkit/memory/testing";
import { coreMigrations, memoryMigrations, sqlMemoryStore } from "@mountkit/sql";
import { type Kysely, sql } from "kysely";
import { expect, it, vi } from "vitest";
import { forEachDatabase, useMigratedDatabase } from "../../../test/sql-targets.js";
import { analyzeIfStale } from "../src/stores/memory/pg-statistics.js";

const T0 = Date.UTC(2024, 0, 1);
const DAY = 86_400_000;

forEachDatabase("sqlMemoryStore full-text search past the rank budget", (dialect) => {
  const use = useMigratedDatabase(dialect, [coreMigrations, memoryMigrations]);

  /** A brain with one episode whose edges have these facts (valid from `tValid`), in the stores' database. */
  async function brainWithFacts(store: ReturnType<typeof sqlMemoryStore>, brainId: string, facts: Array<{ fact: string; tValid: number }>) {
    const ep = episode(brainId);
    await store.createEpisode({
      episode: ep,
      job: { id: `job_${brainId}`, queue: "q.budget", payload: { brainId, episodeId: ep.id }, maxAttempts: 1 },
    });
    const [a, b] = [entity(brainId, "Ann Lee"), entity(brainId, "Bo Chen")];
    const edges = facts.map((f) => edge(brainId, ep.id, a.id, b.id, f));
    await store.commitExtraction(
      commitOf(ep, { createEntities: [a, b], createEdges: edges, entityIds: [a.id, b.id], edgeIds: edges.map((e) => e.id) }),
    );
    return edges;
  }

  it("ranks the rows holding every word first, falls back to every match, and agrees with exact ranking", async () => {
    const exact = sqlMemoryStore(use.db);
    const budgeted = sqlMemoryStore(use.db, { rankBudget: 10 });
    const brainId = `brain_${dialect}_budget`;
    const edges = await brainWithFacts(exact, brainId, [
      ...Array.from({ length: 30 }, (_, i) => ({ fact: `alpha gamma filler number ${i}`, tValid: T0 })),
      ...Array.from({ length: 25 }, (_, i) => ({ fact: `beta delta filler number ${i}`, tValid: T0 })),
      // both words, but valid only from day 10
      ...Array.from({ length: 5 }, (_, i) => ({ fact: `alpha beta together ${i}`, tValid: T0 + 10 * DAY })),
    ]);
    const together = edges.slice(55).map((e) => e.id);
    const ask = (store: typeof exact, limit: number, asOf: number) =>
      store.searchEdges({ brainId, query: "alpha beta", limit, asOf }).then((hits) => hits.map((h) => h.item.id));

    // past the budget, enough visible rows hold both words: they are the answer
    expect(new Set(await ask(budgeted, 5, T0 + 20 * DAY))).toEqual(new Set(together));
    expect(new Set(await ask(exact, 5, T0 + 20 * DAY))).toEqual(new Set(together));
    // fewer than limit hold both: every match is ranked, as without a budget
    const wide = await ask(budgeted, 8, T0 + 20 * DAY);
    expect(wide).toHaveLength(8);
    expect(wide.slice(0, 5).sort()).toEqual([...together].sort());
    expect(wide).toEqual(await ask(exact, 8, T0 + 20 * DAY));
    // the rows holding both are not valid yet: the single-word matches answer
    const early = await ask(budgeted, 5, T0 + DAY);
    expect(early).toHaveLength(5);
    expect(early.some((id) => together.includes(id))).toBe(false);
    expect(early).toEqual(await ask(exact, 5, T0 + DAY));
  });

  it("past the budget, a rare word's rows are ranked without holding every word, as exact ranking ranks them", async () => {
    const exact = sqlMemoryStore(use.db);
    const budgeted = sqlMemoryStore(use.db, { rankBudget: 10 });
    const brainId = `brain_${dialect}_rare`;
    const edges = await brainWithFacts(exact, brainId, [
      ...Array.from({ length: 40 }, (_, i) => ({ fact: `alpha common filler number ${i}`, tValid: T0 })),
      ...Array.from({ length: 2 }, (_, i) => ({ fact: `zeta rare ${i}`, tValid: T0 })),
    ]);
    const rare = edges.slice(40).map((e) => e.id);
    const ask = (store: typeof exact, query: string, limit: number) =>
      store.searchEdges({ brainId, query, limit, asOf: T0 + DAY }).then((hits) => hits.map((h) => h.item.id));
    // no row holds both words: the rare word's rows are the best hits on both stores
    expect(new Set(await ask(budgeted, "alpha zeta", 2))).toEqual(new Set(rare));
    expect(new Set(await ask(exact, "alpha zeta", 2))).toEqual(new Set(rare));
    // one common word past the budget still answers `limit` of its rows
    const common = await ask(budgeted, "alpha", 5);
    expect(common).toHaveLength(5);
    expect(common.every((id) => edges.slice(0, 40).some((e) => e.id === id))).toBe(true);
  });

  // PostgreSQL only: new rows wait in each full-text index's pending list, read whole by every search until merged
  if (dialect === "postgres")
    it("the full-text indexes keep a pending list of at most 256 kB", async () => {
      const db = use.db.kysely as Kysely<any>;
      const r = await sql<{ name: string; options: string[] | null }>`
        select relname as name, reloptions as options from pg_class where relname like 'memory\_%\_search' order by relname`.execute(db);
      expect(r.rows).toEqual(
        ["memory_edges_search", "memory_entities_search", "memory_episodes_search"].map((name) => ({
          name,
          options: ["gin_pending_list_limit=256"],
        })),
      );
    });

  // PostgreSQL only: its search plans lean on planner statistics (SQLite's FTS5 ranks without them)
  if (dialect === "postgres")
    it("a table that changed by more than a tenth since its last analyze is analyzed", async () => {
      const store = sqlMemoryStore(use.db);
      const brainId = `brain_${dialect}_stale`;
      await brainWithFacts(
        store,
        brainId,
        Array.from({ length: 1_500 }, (_, i) => ({ fact: `stale statistics row ${i}`, tValid: T0 })),
      );
      const db = use.db.kysely as Kysely<any>;
      const lastAnalyze = async () =>
        (await sql<{ at: Date | null }>`select last_analyze as at from pg_stat_user_tables where relname = 'memory_edges'`.execute(db))
          .rows[0]?.at ?? null;
      const before = await lastAnalyze();
      // the server counts changes a moment after the commit: ask until it has
      await vi.waitFor(async () => expect(await analyzeIfStale(db, "memory_edges")).toBe(true), { timeout: 15_000, interval: 200 });
      const after = await lastAnalyze();
      expect(after).not.toBeNull();
      expect(after!.getTime()).toBeGreaterThan(before?.getTime() ?? 0);
      // right after, nothing changed: no second analyze
      expect(await analyzeIfStale(db, "memory_edges")).toBe(false);
    });
});
