// Idempotent ingest across processes (docs/memory.md#idempotent-and-batch-ingest): two example-server processes on one
// SQLite file and on one PostgreSQL database take 10 concurrent retries of one POST /v1/episodes, and of one batch, split
// between them; the database holds one episode per key, and every retry answers the first answer.
import type { SqlDatabase } from "@mountkit/sql";
import { afterAll, beforeAll, expect, it } from "vitest";
import { call } from "./harness.js";
import { createTestDatabase, forEachDatabase, type TestDatabase } from "./sql-targets.js";
import { type ServerProcess, startServer } from "./storage/server-process.js";

const KEY = "mk_multiprocess_idempotency_0001";
const BRAIN = "idempotent";
const RETRIES = 10;

forEachDatabase("idempotent ingest through two server processes", (dialect) => {
  let target: TestDatabase;
  let db: SqlDatabase;
  let a: ServerProcess;
  let b: ServerProcess;
  const headers = (key: string) => ({ authorization: `Bearer ${KEY}`, "idempotency-key": key });

  beforeAll(async () => {
    target = await createTestDatabase(dialect);
    const env = { ...target.env, MEMORY_API_KEYS: `${KEY}=${BRAIN}`, MEMORY_DAILY_QUOTA: "100000" };
    [a, b] = await Promise.all([startServer(env), startServer(env)]);
    db = await target.open();
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.close();
    await target?.drop();
  }, 60_000);

  const storedWith = async (content: string) =>
    (await db.kysely.selectFrom("memory_episodes").select("id").where("brain_id", "=", BRAIN).where("content", "=", content).execute()).map(
      (r) => r.id as string,
    );

  it(`stores one episode for ${RETRIES} concurrent retries of one key through both processes`, async () => {
    const key = crypto.randomUUID();
    const content = `Multi Process works at Retry Works (${key}).`;
    const answers = await Promise.all(
      Array.from({ length: RETRIES }, (_, i) =>
        call(`${(i % 2 ? a : b).url}/v1/episodes`, { headers: headers(key), body: { content, userId: "u-retry" } }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(RETRIES).fill(202));
    const ids = new Set(answers.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    for (const r of answers) expect(r.body).toEqual(answers[0]!.body);
    expect(answers.filter((r) => r.headers.get("idempotent-replayed") === "true")).toHaveLength(RETRIES - 1);
    expect(await storedWith(content)).toEqual([...ids]);
    const jobs = await db.kysely.selectFrom("jobs").select("payload").where("group_key", "=", BRAIN).execute();
    expect(jobs.filter((j) => JSON.parse(j.payload).episodeId === [...ids][0])).toHaveLength(1);
    // another body with the key, through either process: 422
    for (const p of [a, b]) {
      const other = await call(`${p.url}/v1/episodes`, { headers: headers(key), body: { content: "another body" } });
      expect(other.status).toBe(422);
    }
  });

  it(`stores each keyed item of a batch once when ${RETRIES} retries of the batch race through both processes`, async () => {
    const run = crypto.randomUUID();
    const episodes = Array.from({ length: 5 }, (_, i) => ({ content: `Batch item ${i} of ${run}.`, idempotencyKey: `${run}-${i}` }));
    const answers = await Promise.all(
      Array.from({ length: RETRIES }, (_, i) =>
        call(`${(i % 2 ? a : b).url}/v1/episodes/batch`, { headers: { authorization: `Bearer ${KEY}` }, body: { episodes } }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(RETRIES).fill(200));
    for (const [i, item] of episodes.entries()) {
      const stored = await storedWith(item.content);
      expect(stored).toHaveLength(1);
      const outcomes = answers.map((r) => r.body.items[i]);
      expect(new Set(outcomes.map((o) => o.id))).toEqual(new Set(stored));
      expect(outcomes.filter((o) => o.status === "accepted")).toHaveLength(1);
      expect(outcomes.filter((o) => o.status === "duplicate")).toHaveLength(RETRIES - 1);
    }
  });
});
