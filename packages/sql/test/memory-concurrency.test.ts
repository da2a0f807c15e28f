// Two memory services on separate connections to one database (two processes' worth of workers, each
// with its own in-process lock) extract episodes of one brain at the same time. Episodes naming the
// same new people and organisations must still end with one entity per name and at most one valid edge
// per subject and single-valued relation.
import { createMemoryService, isSingleValued, type MemoryService } from "@mountkit/memory";
import { coreMigrations, memoryMigrations, type SqlDatabase, sqlMemoryStore } from "@mountkit/sql";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, forEachDatabase, type TestDatabase } from "../../../test/sql-targets.js";

const FIRST = ["Alice", "Bruno", "Chen", "Dana", "Emil", "Fatima", "Goran", "Hana", "Ivan", "Julia", "Kofi", "Lena"];
const LAST = ["Moreau", "Diaz", "Wei", "Okafor", "Novak", "Zahra", "Ilic", "Sato", "Petrov", "Lindqvist", "Mensah", "Hoffmann"];
const CITIES = ["Paris", "Lisbon", "Osaka", "Nairobi", "Denver", "Krakow", "Quito", "Hanoi"];
const ORGS = [
  "Globex",
  "Initech",
  "Umbrella",
  "Hooli",
  "Vandelay",
  "Stark",
  "Wayne",
  "Tyrell",
  "Cyberdyne",
  "Soylent",
  "Oscorp",
  "Massive",
];
const PER_PERSON = 4;
const T0 = Date.UTC(2020, 0, 1);

/** Episodes in claim order: each person's episodes next to each other, so the two services race on them. */
function episodes(): Array<{ content: string; occurredAt: number }> {
  const out: Array<{ content: string; occurredAt: number }> = [];
  FIRST.forEach((first, k) => {
    const person = `${first} ${LAST[k]}`;
    for (let j = 0; j < PER_PERSON; j++) {
      const city = CITIES[(k + j) % CITIES.length];
      out.push({
        content: `${person} lives in ${city}. ${person} works at ${ORGS[k]} Industries.`,
        occurredAt: T0 + (k * PER_PERSON + j) * 86_400_000,
      });
    }
  });
  return out;
}

forEachDatabase("memory extraction from two services on one database", (dialect) => {
  let target: TestDatabase;
  let dbs: SqlDatabase[] = [];
  let services: MemoryService[] = [];

  beforeAll(async () => {
    target = await createTestDatabase(dialect);
    dbs = [await target.open({ migrations: [coreMigrations, memoryMigrations] }), await target.open()];
    services = dbs.map((db) => createMemoryService({ store: sqlMemoryStore(db), worker: { start: false, concurrency: 2, pollMs: 10 } }));
  });
  afterAll(async () => {
    await Promise.all(services.map((s) => s.dispose?.()));
    for (const db of dbs) await db.close();
    await target?.drop();
  });

  it("creates each new person and organisation once and keeps one valid edge per single-valued relation", async () => {
    const brains = ["race-a", "race-b"];
    const list = episodes();
    for (const [i, e] of list.entries())
      for (const brainId of brains) await services[i % 2]!.api.createEpisode(brainId, { content: e.content, occurredAt: e.occurredAt });
    // both services start on the full backlog at the same moment
    for (const s of services) s.worker.start();
    const store = services[0]!.store;
    const deadline = Date.now() + 120_000;
    const done = async (brainId: string) =>
      (await store.listEpisodes({ brainId, limit: 1000 })).items.filter((e) => e.status === "done" || e.status === "failed").length;
    for (const brainId of brains)
      while ((await done(brainId)) < list.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));

    for (const brainId of brains) {
      const eps = (await store.listEpisodes({ brainId, limit: 1000 })).items;
      expect(eps.filter((e) => e.status === "done")).toHaveLength(list.length);
      const entities = (await store.listEntities({ brainId, limit: 1000 })).items;
      const byName = new Map<string, number>();
      for (const e of entities) byName.set(e.name.toLowerCase(), (byName.get(e.name.toLowerCase()) ?? 0) + 1);
      const duplicated = [...byName].filter(([, n]) => n > 1).map(([name]) => name);
      expect(duplicated).toEqual([]);
      for (const [k, first] of FIRST.entries()) {
        expect(byName.get(`${first} ${LAST[k]}`.toLowerCase())).toBe(1);
      }
      const edges = (await store.listEdges({ brainId, limit: 10_000 })).items;
      const valid = new Map<string, string[]>();
      for (const e of edges) {
        if (!isSingleValued(e.relation) || e.tInvalid !== null || e.tExpired !== null) continue;
        const k = `${e.source} ${e.relation}`;
        valid.set(k, [...(valid.get(k) ?? []), e.fact]);
      }
      const conflicting = [...valid.values()].filter((facts) => facts.length > 1);
      expect(conflicting).toEqual([]);
      // every person ends living in the city of their latest episode
      const people = entities.filter((e) => FIRST.some((f, k) => e.name === `${f} ${LAST[k]}`));
      expect(people).toHaveLength(FIRST.length);
      for (const p of people) {
        const k = FIRST.findIndex((f, i) => p.name === `${f} ${LAST[i]}`);
        const lives = edges.filter((e) => e.source === p.id && e.relation === "lives_in" && e.tInvalid === null && e.tExpired === null);
        expect(lives.map((e) => e.fact)).toEqual([`${p.name} lives in ${CITIES[(k + PER_PERSON - 1) % CITIES.length]}.`]);
      }
    }
  }, 180_000);
});
