// Full-text search past the rank budget (memory-search-scale.ts): the rows holding every query word are
// ranked first, and when they give fewer than `limit` visible hits every match is ranked, so a store with
// a tiny budget answers what a store ranking every match answers, on both engines.
import { commitOf, edge, entity, episode } from "@mountkit/memory/testing";
import { coreMigrations, memoryMigrations, sqlMemoryStore } from "@mountkit/sql";
import { expect, it } from "vitest";
import { forEachDatabase, useMigratedDatabase } from "../../../test/sql-targets.js";

const T0 = Date.UTC(2024, 0, 1);
const DAY = 86_400_000;

forEachDatabase("sqlMemoryStore full-text search past the rank budget", (dialect) => {
  const use = useMigratedDatabase(dialect, [coreMigrations, memoryMigrations]);

  it("ranks the rows holding every word first, falls back to every match, and agrees with exact ranking", async () => {
    const exact = sqlMemoryStore(use.db);
    const budgeted = sqlMemoryStore(use.db, { rankBudget: 10 });
    const brainId = `brain_${dialect}_budget`;
    const ep = episode(brainId);
    await exact.createEpisode({
      episode: ep,
      job: { id: `job_${brainId}`, queue: "q.budget", payload: { brainId, episodeId: ep.id }, maxAttempts: 1 },
    });
    const [a, b] = [entity(brainId, "Ann Lee"), entity(brainId, "Bo Chen")];
    const edges = [
      ...Array.from({ length: 30 }, (_, i) => edge(brainId, ep.id, a.id, b.id, { fact: `alpha gamma filler number ${i}`, tValid: T0 })),
      ...Array.from({ length: 25 }, (_, i) => edge(brainId, ep.id, a.id, b.id, { fact: `beta delta filler number ${i}`, tValid: T0 })),
      // both words, but valid only from day 10
      ...Array.from({ length: 5 }, (_, i) => edge(brainId, ep.id, a.id, b.id, { fact: `alpha beta together ${i}`, tValid: T0 + 10 * DAY })),
    ];
    await exact.commitExtraction(
      commitOf(ep, { createEntities: [a, b], createEdges: edges, entityIds: [a.id, b.id], edgeIds: edges.map((e) => e.id) }),
    );
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
});
