// Two example-server processes on one PostgreSQL database behave like one: SSE events posted through one
// reach streams on the other, the memory quota is exact across both, extraction jobs are shared and each
// runs once, and one brain's episodes naming the same new people through both processes end with one
// entity per person. The processes start at the same moment (concurrent migrations and key registration).
import { EXTRACTION_QUEUE, isSingleValued } from "@mountkit/memory";
import type { SqlDatabase } from "@mountkit/sql";
import { afterAll, beforeAll, expect, it } from "vitest";
import { call } from "./harness.js";
import { createTestDatabase, forEachDatabase, type TestDatabase } from "./sql-targets.js";
import { type ServerProcess, startServer } from "./storage/server-process.js";
import { eventually } from "./support/raw-http.js";
import { waitFor, watch } from "./support/sse.js";

const QUOTA_KEY = "mk_multiprocess_quota_key_0001";
const WORK_KEYS = [1, 2, 3, 4].map((n) => ({ key: `mk_multiprocess_work_key_0000${n}`, brain: `work-${n}` }));
const RACE_KEY = "mk_multiprocess_race_key_00001";
const AGENT = "agent-token-multiprocess";
const QUOTA = 50;

forEachDatabase("two server processes on one database", () => {
  let target: TestDatabase;
  let db: SqlDatabase;
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    target = await createTestDatabase("postgres");
    const env = {
      ...target.env,
      MEMORY_API_KEYS: [`${QUOTA_KEY}=quota`, `${RACE_KEY}=race`, ...WORK_KEYS.map((w) => `${w.key}=${w.brain}`)].join(","),
      MEMORY_DAILY_QUOTA: String(QUOTA),
      SUPPORT_PRODUCTS: "demo",
      SUPPORT_RATE_LIMIT: "100000",
      SUPPORT_CUSTOMER_RATE_LIMIT: "100000",
      SUPPORT_AGENT_TOKEN: AGENT,
    };
    [a, b] = await Promise.all([startServer(env), startServer(env)]);
    db = await target.open();
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.close();
    await target?.drop();
  }, 60_000);

  it("delivers an event posted through one process to a stream open on the other, in log order", async () => {
    const customerId = `cust_${crypto.randomUUID()}`;
    const created = await call(`${a.url}/api/conversations`, { body: { productSlug: "demo", customerId, message: "Printer on fire" } });
    expect(created.status).toBe(200);
    const id = created.body.conversationId as string;
    const qs = `productSlug=demo&customerId=${encodeURIComponent(customerId)}`;
    const onB = watch(`${b.url}/api/conversations/${id}/stream?${qs}`);
    const onA = watch(`${a.url}/api/conversations/${id}/stream?${qs}`);
    try {
      await waitFor(
        () => onB.events.some((e) => e.type === "connected") && onA.events.some((e) => e.type === "connected"),
        15_000,
        "both streams connected",
      );
      const posted = await call(`${a.url}/api/conversations/${id}/messages`, {
        body: { productSlug: "demo", customerId, message: "Still burning" },
      });
      expect(posted.status).toBe(200);
      await waitFor(() => onB.events.some((e) => e.type === "new_comment"), 15_000, "the customer's message on process 2");
      const agent = await call(`${a.url}/agent/conversations/${id}/messages`, {
        headers: { authorization: `Bearer ${AGENT}` },
        body: { body: "We are on it", author: "Ann" },
      });
      expect(agent.status).toBe(200);
      const agentPost = await call(`${b.url}/agent/conversations/${id}/messages`, {
        headers: { authorization: `Bearer ${AGENT}` },
        body: { body: "Fire brigade called", author: "Bob" },
      });
      expect(agentPost.status).toBe(200);
      const live = (w: typeof onA) => w.events.filter((e) => e.type !== "connected");
      await waitFor(() => live(onB).filter((e) => e.type === "new_comment").length >= 3, 15_000, "all three comments on process 2");
      await waitFor(() => live(onA).filter((e) => e.type === "new_comment").length >= 3, 15_000, "all three comments on process 1");
      // both processes stream the same log: same ids, same events, increasing
      const seen = (w: typeof onA) => live(w).map((e) => `${e.id}:${e.type}`);
      expect(seen(onB)).toEqual(seen(onA));
      const ids = live(onB).map((e) => Number(e.id));
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
      expect(new Set(ids).size).toBe(ids.length);
      const bodies = live(onB)
        .filter((e) => e.type === "new_comment")
        .map((e) => e.data?.body ?? e.data?.comment?.body);
      expect(bodies.join("|")).toMatch(/Still burning.*We are on it.*Fire brigade called/s);
    } finally {
      onA.close();
      onB.close();
    }
  });

  it("never lets concurrent calls through both processes exceed the daily quota", async () => {
    const h = { authorization: `Bearer ${QUOTA_KEY}` };
    const results = await Promise.all(
      Array.from({ length: QUOTA + 30 }, (_, i) => call(`${(i % 2 ? a : b).url}/v1/episodes`, { headers: h })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(QUOTA);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
    for (const url of [a.url, b.url]) expect((await call(`${url}/v1/episodes`, { headers: h })).status).toBe(429);
  });

  /** Episodes of these brains that are done (extraction committed). */
  const doneCount = async (brains: string[]) =>
    Number(
      (
        await db.kysely
          .selectFrom("memory_episodes")
          .select((eb) => eb.fn.countAll().as("n"))
          .where("brain_id", "in", brains)
          .where("status", "=", "done")
          .executeTakeFirstOrThrow()
      ).n,
    );

  async function waitDone(brains: string[], n: number) {
    await eventually(async () => (await doneCount(brains)) >= n, 90_000, 200);
    expect(await doneCount(brains)).toBe(n);
  }

  it("shares extraction jobs between the processes and runs each once", async () => {
    // one brain's jobs run one at a time; several brains keep both processes busy
    const n = 32;
    const posted = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        call(`${(i % 2 ? a : b).url}/v1/episodes`, {
          headers: { authorization: `Bearer ${WORK_KEYS[i % WORK_KEYS.length]!.key}` },
          body: { content: `Person${i} Example lives in City${i}. Person${i} Example works at Company${i}.` },
        }),
      ),
    );
    expect(posted.map((r) => r.status)).toEqual(Array(n).fill(202));
    const ids = posted.map((r) => r.body.id as string);
    const brains = WORK_KEYS.map((w) => w.brain);
    await waitDone(brains, n);

    const extractionJobs = async () => {
      const jobs = await db.kysely
        .selectFrom("jobs")
        .select(["id", "state", "attempts", "locked_by", "payload", "group_key"])
        .where("queue", "=", EXTRACTION_QUEUE)
        .execute();
      return jobs.filter((j) => ids.includes(JSON.parse(j.payload).episodeId));
    };
    // a worker records a finished job with its next claim, just after the episode's commit: wait for those too
    let mine: Awaited<ReturnType<typeof extractionJobs>> = [];
    await eventually(async () => !(mine = await extractionJobs()).some((j) => j.state === "running"), 10_000, 100);
    expect(mine).toHaveLength(n);
    for (const j of mine) expect({ state: j.state, attempts: Number(j.attempts) }).toEqual({ state: "done", attempts: 1 });
    for (const j of mine) expect(j.group_key).toBe(JSON.parse(j.payload).brainId);
    // both processes' workers took part
    expect(new Set(mine.map((j) => j.locked_by)).size).toBe(2);
    // nothing extracted twice: one set of edges per episode
    const edges = await db.kysely.selectFrom("memory_edges").select(["episode_id", "fact"]).where("brain_id", "in", brains).execute();
    const facts = edges.map((e) => `${e.episode_id}|${e.fact}`);
    expect(new Set(facts).size).toBe(facts.length);
    expect(new Set(edges.map((e) => e.episode_id))).toEqual(new Set(ids));
  });

  it("resolves one brain's new people once when both processes extract its episodes at the same time", async () => {
    const people = ["Alice Moreau", "Bruno Diaz", "Chen Wei", "Dana Okafor", "Emil Novak", "Fatima Zahra", "Goran Ilic", "Hana Sato"];
    const cities = ["Paris", "Lisbon", "Osaka", "Nairobi", "Denver"];
    const perPerson = 4;
    const t0 = Date.UTC(2021, 0, 1);
    const bodies = people.flatMap((p, k) =>
      Array.from({ length: perPerson }, (_, j) => ({
        content: `${p} lives in ${cities[(k + j) % cities.length]}. ${p} works at ${p.split(" ")[1]} Consulting.`,
        occurredAt: new Date(t0 + (k * perPerson + j) * 86_400_000).toISOString(),
      })),
    );
    const posted = await Promise.all(
      bodies.map((body, i) => call(`${(i % 2 ? a : b).url}/v1/episodes`, { headers: { authorization: `Bearer ${RACE_KEY}` }, body })),
    );
    expect(posted.map((r) => r.status)).toEqual(Array(bodies.length).fill(202));
    await waitDone(["race"], bodies.length);

    const entities = await db.kysely.selectFrom("memory_entities").select(["id", "name"]).where("brain_id", "=", "race").execute();
    const count = (name: string) => entities.filter((e) => e.name.toLowerCase() === name.toLowerCase()).length;
    expect(people.map((p) => [p, count(p)])).toEqual(people.map((p) => [p, 1]));
    expect(people.map((p) => [p, count(`${p.split(" ")[1]} Consulting`)])).toEqual(people.map((p) => [p, 1]));
    const edges = await db.kysely
      .selectFrom("memory_edges")
      .select(["source", "relation", "fact"])
      .where("brain_id", "=", "race")
      .where("t_invalid", "is", null)
      .where("t_expired", "is", null)
      .execute();
    const valid = new Map<string, string[]>();
    for (const e of edges.filter((e) => isSingleValued(e.relation)))
      valid.set(`${e.source} ${e.relation}`, [...(valid.get(`${e.source} ${e.relation}`) ?? []), e.fact]);
    expect([...valid.values()].filter((facts) => facts.length > 1)).toEqual([]);
    const jobs = await db.kysely.selectFrom("jobs").select("locked_by").where("group_key", "=", "race").execute();
    expect(jobs).toHaveLength(bodies.length);
  });
}, ["postgres"]);
