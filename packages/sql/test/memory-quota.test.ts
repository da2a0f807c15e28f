// The memory quota across processes: two services, each on its own connection to one database, share
// the daily quota exactly, and a call failing in one never makes a good call in the other answer 429.
// PostgreSQL only: two better-sqlite3 connections in one process would block each other (its busy wait
// is synchronous and stalls the event loop that would end the other's transaction); SQLite's holds are
// serialised by the same write lock that serves the store conformance suite.
import { createMemoryService, type MemoryService } from "@mountkit/memory";
import { coreMigrations, memoryMigrations, type SqlDatabase, sqlMemoryStore } from "@mountkit/sql";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, forEachDatabase, type TestDatabase } from "../../../test/sql-targets.js";

forEachDatabase(
  "memory quota across processes",
  (dialect) => {
    let target: TestDatabase;
    const dbs: SqlDatabase[] = [];
    let release!: () => void;
    let a: MemoryService;
    let b: MemoryService;

    beforeAll(async () => {
      target = await createTestDatabase(dialect);
      for (let i = 0; i < 2; i++) dbs.push(await target.open({ migrations: [coreMigrations, memoryMigrations] }));
      const gated = sqlMemoryStore(dbs[0]!);
      const gate = new Promise<void>((r) => (release = r));
      const getEdge = gated.getEdge.bind(gated);
      gated.getEdge = async (input) => {
        if (input.id === "edge_gated") await gate;
        return getEdge(input);
      };
      a = createMemoryService({ store: gated, dailyQuota: 3, worker: { start: false } });
      b = createMemoryService({ store: sqlMemoryStore(dbs[1]!), dailyQuota: 3, worker: { start: false } });
    });
    afterAll(async () => {
      await a?.dispose();
      await b?.dispose();
      for (const db of dbs) await db.close();
      await target?.drop();
    });

    const get = (s: MemoryService, key: string, path: string) =>
      s.fetch(new Request(`http://x${path}`, { headers: { authorization: `Bearer ${key}` } }));

    it("counts exactly the successful calls of both processes", async () => {
      const { key } = await a.keys.create({ brainId: "shared" });
      const results = await Promise.all(
        Array.from({ length: 16 }, (_, i) => get(i % 2 ? a : b, key, i % 4 === 0 ? "/v1/edges/missing" : "/v1/episodes")),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(3);
      expect(statuses.filter((s) => s === 200 || s === 404 || s === 429)).toHaveLength(16);
      expect((await get(b, key, "/v1/episodes")).status).toBe(429);
    });

    it("a good call in one process waits for the outcome of a failing call in the other", async () => {
      const { key } = await a.keys.create({ brainId: "edge-of-quota" });
      // two units used, one left
      for (const s of [a, b]) expect((await get(s, key, "/v1/episodes")).status).toBe(200);
      const failing = get(a, key, "/v1/edges/edge_gated");
      await new Promise((r) => setTimeout(r, 50));
      const good = get(b, key, "/v1/episodes");
      await new Promise((r) => setTimeout(r, 50));
      release();
      expect((await failing).status).toBe(404);
      expect((await good).status).toBe(200);
      expect((await get(a, key, "/v1/episodes")).status).toBe(429);
    });
  },
  ["postgres"],
);
