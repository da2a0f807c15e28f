// The episode a new one follows (context.ts newestEpisodeQuery: greatest created_at, then last inserted) is read from
// an index on both engines, never by sorting the brain's episodes of that millisecond: an import of a batch ingest's
// export stores thousands in one millisecond, and each new one used to read all those before it.
import { episode } from "@mountkit/memory/testing";
import { coreMigrations, memoryMigrations, type SqlDatabase, sqlMemoryStore } from "@mountkit/sql";
import { CompiledQuery } from "kysely";
import { expect, it } from "vitest";
import { forEachDatabase, useMigratedDatabase } from "../../../test/sql-targets.js";
import { newestEpisodeQuery } from "../src/stores/memory/context.js";

const T0 = Date.UTC(2024, 0, 1);
const DAY = 86_400_000;

/** The plan of `newestEpisodeQuery`: SQLite's EXPLAIN QUERY PLAN lines, or PostgreSQL's plan nodes as "Node Type on index". */
async function planOf(db: SqlDatabase, brainId: string): Promise<string[]> {
  const pg = db.dialect === "postgres";
  const q = newestEpisodeQuery(pg, brainId).compile(db.kysely);
  if (!pg) {
    const r = await db.kysely.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]));
    return r.rows.map((row) => row.detail);
  }
  const r = await db.kysely.executeQuery<{ "QUERY PLAN": unknown }>(CompiledQuery.raw(`explain (format json) ${q.sql}`, [...q.parameters]));
  const nodes: string[] = [];
  const walk = (n: { "Node Type": string; "Index Name"?: string; Plans?: unknown[] }) => {
    nodes.push(n["Index Name"] ? `${n["Node Type"]} on ${n["Index Name"]}` : n["Node Type"]);
    for (const child of n.Plans ?? []) walk(child as typeof n);
  };
  const [top] = r.rows[0]!["QUERY PLAN"] as Array<{ Plan: Parameters<typeof walk>[0] }>;
  walk(top!.Plan);
  return nodes;
}

forEachDatabase("sqlMemoryStore: the episode a new one follows", (dialect) => {
  const use = useMigratedDatabase(dialect, [coreMigrations, memoryMigrations]);

  it("is the last inserted of the newest millisecond, read from memory_episodes_inserted without a sort", async () => {
    const store = sqlMemoryStore(use.db);
    const brainId = `brain_${dialect}_instant`;
    await store.createBrain({ brain: { id: brainId, name: brainId, createdAt: T0 } });
    // an import of 600 episodes stored in one millisecond (days apart in occurrence: each its own conversation)
    const items = Array.from({ length: 600 }, (_, i) =>
      episode(brainId, { id: `ep_${dialect}_${String(i).padStart(4, "0")}_${(i * 7919) % 600}`, status: "done", occurredAt: T0 + i * DAY }),
    );
    // ids out of insertion order, so a tie broken by id would name another episode
    items.reverse();
    for (let i = 0; i < items.length; i += 100)
      await store.importRecords!({ brainId, batch: { kind: "episodes", items: items.slice(i, i + 100) } });
    if (dialect === "postgres") await use.db.kysely.executeQuery(CompiledQuery.raw("analyze memory_episodes"));

    const newest = (await newestEpisodeQuery(dialect === "postgres", brainId).execute(use.db.kysely)).rows;
    expect(newest.map((r) => r.id)).toEqual([items.at(-1)!.id]);

    const plan = await planOf(use.db, brainId);
    if (dialect === "sqlite") {
      expect(plan).toEqual([expect.stringContaining("USING INDEX memory_episodes_inserted")]);
    } else {
      expect(plan.some((n) => n.startsWith("Index Scan on memory_episodes_inserted"))).toBe(true);
      expect(plan.filter((n) => /Sort|Seq Scan/.test(n))).toEqual([]);
    }
  });
});
