// kill -9 the example server while episodes and messages are being posted, restart it on the same
// database, and check: every request that got a 2xx is there, every accepted episode ends `done` (its
// extraction job survives the crash), nothing is duplicated. On SQLite and on PostgreSQL.
import { EXTRACTION_QUEUE } from "@mountkit/memory";
import type { SqlDatabase } from "@mountkit/sql";
import { parseMetadata } from "@mountkit/support";
import { afterAll, beforeAll, expect, it } from "vitest";
import { call } from "./harness.js";
import { createTestDatabase, forEachDatabase, type TestDatabase } from "./sql-targets.js";
import { type ServerProcess, startServer } from "./storage/server-process.js";

const KEY = "mk_crash_test_key_0000000001";
const BRAIN = "crash";
const auth = { authorization: `Bearer ${KEY}` };

interface Sent {
  conversationId: string;
  customerId: string;
  clientMessageId: string;
  message: string;
  /** The id answered with a 2xx, or null when the outcome is unknown (in flight at the crash). */
  id: string | null;
}

/** The clientMessageId of each comment, read from the hidden block its body carries. */
const clientIds = (comments: Array<{ body: string }>) => comments.map((c) => parseMetadata(c.body)?.clientMessageId);

forEachDatabase("crash recovery (kill -9 under load)", (dialect) => {
  let target: TestDatabase;
  let server: ServerProcess | undefined;
  let db: SqlDatabase | undefined;
  const env = () => ({
    ...target.env,
    MEMORY_API_KEYS: `${KEY}=${BRAIN}`,
    MEMORY_DAILY_QUOTA: "1000000",
    SUPPORT_PRODUCTS: "demo",
    SUPPORT_RATE_LIMIT: "1000000",
    SUPPORT_CUSTOMER_RATE_LIMIT: "1000000",
  });

  beforeAll(async () => {
    target = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await server?.stop();
    await db?.close();
    await target?.drop();
  }, 60_000);

  it("keeps every acknowledged write, extracts every accepted episode once, duplicates nothing", async () => {
    server = await startServer(env());
    const first = server;

    // conversations to post into, created before the load starts
    const conversations: Array<{ id: string; customerId: string }> = [];
    for (let i = 0; i < 4; i++) {
      const customerId = `cust_${crypto.randomUUID()}`;
      const r = await call(`${first.url}/api/conversations`, { body: { productSlug: "demo", customerId, message: `Conversation ${i}` } });
      expect(r.status).toBe(200);
      conversations.push({ id: r.body.conversationId, customerId });
    }

    const episodes: Array<{ id: string | null; content: string }> = [];
    const messages: Sent[] = [];
    let stop = false;
    let n = 0;
    const episodeLoop = async () => {
      while (!stop) {
        const content = `Worker${n} Crash lives in Town${n}. Worker${n} Crash works at Firm${n}.`;
        n++;
        const record: { id: string | null; content: string } = { id: null, content };
        episodes.push(record);
        try {
          const r = await call(`${first.url}/v1/episodes`, { headers: auth, body: { content } });
          if (r.status === 202) record.id = r.body.id;
          else if (r.status < 500) throw new Error(`unexpected ${r.status}: ${r.text}`);
        } catch (e) {
          if (!stop) throw e;
        }
      }
    };
    const messageLoop = async (k: number) => {
      const c = conversations[k % conversations.length]!;
      for (let i = 0; !stop; i++) {
        const sent: Sent = {
          conversationId: c.id,
          customerId: c.customerId,
          clientMessageId: `m-${k}-${i}`,
          message: `message ${k}.${i}`,
          id: null,
        };
        messages.push(sent);
        try {
          const r = await call(`${first.url}/api/conversations/${c.id}/messages`, {
            body: { productSlug: "demo", customerId: c.customerId, message: sent.message, clientMessageId: sent.clientMessageId },
          });
          if (r.status === 200) sent.id = r.body.id;
          else if (r.status < 500) throw new Error(`unexpected ${r.status}: ${r.text}`);
        } catch (e) {
          if (!stop) throw e;
        }
      }
    };
    const load = Promise.all([episodeLoop(), episodeLoop(), episodeLoop(), messageLoop(0), messageLoop(1), messageLoop(2), messageLoop(3)]);
    // let the load run until enough writes were acknowledged (a busy machine is slower), then pull the
    // plug mid-flight while requests are still in the air
    const enough = () => episodes.filter((e) => e.id !== null).length > 10 && messages.filter((m) => m.id !== null).length > 10;
    const loadDeadline = Date.now() + 45_000;
    await new Promise((r) => setTimeout(r, 1000));
    while (!enough() && Date.now() < loadDeadline) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await first.crash();
    await load;
    const acceptedEpisodes = episodes.filter((e) => e.id !== null);
    const acknowledged = messages.filter((m) => m.id !== null);
    expect(acceptedEpisodes.length).toBeGreaterThan(10);
    expect(acknowledged.length).toBeGreaterThan(10);

    server = await startServer(env());
    const url = server.url;

    // every acknowledged message is there, once
    for (const c of conversations) {
      const r = await call(`${url}/api/conversations/${c.id}?productSlug=demo&customerId=${encodeURIComponent(c.customerId)}`);
      expect(r.status).toBe(200);
      const keys = clientIds(r.body.comments);
      const ids: string[] = r.body.comments.map((x: { id: string }) => x.id);
      for (const m of acknowledged.filter((x) => x.conversationId === c.id)) {
        expect(ids).toContain(m.id);
        expect(keys.filter((k) => k === m.clientMessageId)).toHaveLength(1);
      }
      expect(new Set(ids).size).toBe(ids.length);
    }
    // a client retrying every message (the unanswered ones too) gets the original back, never a copy
    for (const m of messages) {
      const r = await call(`${url}/api/conversations/${m.conversationId}/messages`, {
        body: { productSlug: "demo", customerId: m.customerId, message: m.message, clientMessageId: m.clientMessageId },
      });
      expect(r.status).toBe(200);
      if (m.id !== null) expect(r.body.id).toBe(m.id);
    }
    for (const c of conversations) {
      const r = await call(`${url}/api/conversations/${c.id}?productSlug=demo&customerId=${encodeURIComponent(c.customerId)}`);
      const keys = clientIds(r.body.comments);
      for (const m of messages.filter((x) => x.conversationId === c.id))
        expect(keys.filter((k) => k === m.clientMessageId)).toHaveLength(1);
    }

    // every accepted episode is there and ends done (a job held at the crash is retaken once its holder stops heartbeating)
    for (const e of acceptedEpisodes) expect((await call(`${url}/v1/episodes/${e.id}`, { headers: auth })).status).toBe(200);
    db = await target.open();
    const statuses = async () => {
      const rows = await db!.kysely.selectFrom("memory_episodes").select(["id", "status"]).where("brain_id", "=", BRAIN).execute();
      return new Map(rows.map((r) => [r.id as string, r.status as string]));
    };
    // the episode's status and its job's are two writes: wait for both (a worker completes the job just after)
    const openJobs = async () =>
      (await db!.kysely.selectFrom("jobs").select("id").where("queue", "=", EXTRACTION_QUEUE).where("state", "!=", "done").execute())
        .length;
    const deadline = Date.now() + 150_000;
    for (;;) {
      const s = await statuses();
      if ((acceptedEpisodes.every((e) => s.get(e.id!) === "done") && (await openJobs()) === 0) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const final = await statuses();
    expect(acceptedEpisodes.filter((e) => final.get(e.id!) !== "done").map((e) => [e.id, final.get(e.id!)])).toEqual([]);
    // an episode stored without a 202 (the answer was lost in the crash) is extracted all the same
    for (const [id, status] of final) expect([id, status]).toEqual([id, "done"]);

    // one job per episode, each done; one set of facts per episode
    const jobs = await db.kysely.selectFrom("jobs").select(["payload", "state"]).where("queue", "=", EXTRACTION_QUEUE).execute();
    const perEpisode = new Map<string, number>();
    for (const j of jobs) {
      const id = JSON.parse(j.payload).episodeId as string;
      perEpisode.set(id, (perEpisode.get(id) ?? 0) + 1);
      expect(j.state).toBe("done");
    }
    for (const id of final.keys()) expect(perEpisode.get(id)).toBe(1);
    const edges = await db.kysely.selectFrom("memory_edges").select(["id", "episode_id", "fact"]).where("brain_id", "=", BRAIN).execute();
    const facts = edges.map((e) => `${e.episode_id}|${e.fact}`);
    expect(new Set(facts).size).toBe(facts.length);
    // the edges each episode records are exactly the edges stored for it
    const recorded = await db.kysely.selectFrom("memory_episodes").select(["id", "edge_ids"]).where("brain_id", "=", BRAIN).execute();
    expect(recorded.flatMap((r) => JSON.parse(r.edge_ids)).length).toBeGreaterThan(0);
    for (const r of recorded) {
      const stored = edges.filter((e) => e.episode_id === r.id).map((e) => e.id as string);
      expect(stored.sort()).toEqual([...JSON.parse(r.edge_ids)].sort());
    }
  }, 300_000);
});
