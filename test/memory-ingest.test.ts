// Memory ingest and scopes over HTTP (docs/memory.md#idempotent-and-batch-ingest, #scopes-and-filters) under Express,
// Fastify and fetch, rerun on SQLite and PostgreSQL (http-sqlite, http-postgres): an Idempotency-Key stores one episode
// under concurrent retries and answers the first answer, a batch answers each item with good ones stored beside bad
// ones, and one user's facts never reach another's reads (isolation tested as between tenants).
import { createMemoryService } from "@mountkit/memory";
import { describe, expect, it } from "vitest";
import { call, forEachAdapter } from "./harness.js";

const KEY = "mk_test_ingest_scopes_0123456789";
const OTHER = "mk_test_ingest_other_0123456789";

forEachAdapter(
  "memory ingest and scopes",
  async () => {
    const service = createMemoryService({ dailyQuota: 100_000, worker: { pollMs: 20 } });
    await service.keys.create({ brainId: "ingest", key: KEY });
    await service.keys.create({ brainId: "ingest-other", key: OTHER });
    return [service];
  },
  (t) => {
    const auth = (key = KEY) => ({ authorization: `Bearer ${key}` });
    const post = (path: string, body: unknown, headers: Record<string, string> = auth()) =>
      call(`${t.url}${path}`, { method: "POST", headers, body });
    const get = (path: string, key = KEY) => call(`${t.url}${path}`, { headers: auth(key) });
    const uniq = () => crypto.randomUUID();

    async function waitDone(id: string) {
      for (let i = 0; i < 800; i++) {
        const e = await get(`/v1/episodes/${id}`);
        if (e.body.status === "done" || e.body.status === "failed") return e.body;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`extraction of ${id} did not finish`);
    }

    describe("Idempotency-Key on POST /v1/episodes", () => {
      it("stores one episode for 10 concurrent retries and answers each with the first answer", async () => {
        const key = uniq();
        const sessionId = uniq();
        const body = { content: "Idempotent Ida works at Retry Labs.", metadata: { source: "retry" }, sessionId };
        const answers = await Promise.all(
          Array.from({ length: 10 }, () => post("/v1/episodes", body, { ...auth(), "idempotency-key": key })),
        );
        expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202));
        const ids = new Set(answers.map((a) => a.body.id));
        expect(ids.size).toBe(1);
        // one stored it, the nine others are replays of its answer: same body (status queued) and Location
        expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "true")).toHaveLength(9);
        for (const a of answers) {
          expect(a.body).toEqual(answers[0]!.body);
          expect(a.headers.get("location")).toBe(answers[0]!.headers.get("location"));
        }
        expect(answers[0]!.body).toMatchObject({ status: "queued", sessionId, userId: null, agentId: null });
        const listed = await get(`/v1/episodes?sessionId=${sessionId}`);
        expect(listed.body.items.map((e: { id: string }) => e.id)).toEqual([...ids]);
        // after extraction, a retry still answers the first answer (queued); GET tells the current status
        await waitDone([...ids][0]!);
        const late = await post("/v1/episodes", body, { ...auth(), "idempotency-key": key });
        expect(late.status).toBe(202);
        expect(late.body).toEqual(answers[0]!.body);
      });

      it("answers 422 to a key reused with another body, and a key is the brain's own", async () => {
        const key = uniq();
        const first = await post("/v1/episodes", { content: "Key owner first body." }, { ...auth(), "idempotency-key": key });
        expect(first.status).toBe(202);
        const other = await post("/v1/episodes", { content: "A different body." }, { ...auth(), "idempotency-key": key });
        expect(other.status).toBe(422);
        expect(other.body).toMatchObject({ error: expect.any(String), details: [{ path: "Idempotency-Key" }] });
        expect(other.body.requestId).toBe(other.headers.get("x-request-id"));
        // the same key in another brain is another key
        const elsewhere = await post("/v1/episodes", { content: "A different body." }, { ...auth(OTHER), "idempotency-key": key });
        expect(elsewhere.status).toBe(202);
        expect(elsewhere.headers.get("idempotent-replayed")).toBeNull();
      });

      it("reads a structured-field string key as its bare value, and refuses an invalid key with 400", async () => {
        const key = uniq();
        const a = await post("/v1/episodes", { content: "Quoted keys match bare ones." }, { ...auth(), "idempotency-key": `"${key}"` });
        const b = await post("/v1/episodes", { content: "Quoted keys match bare ones." }, { ...auth(), "idempotency-key": key });
        expect([a.status, b.status]).toEqual([202, 202]);
        expect(b.body.id).toBe(a.body.id);
        const bad = await post("/v1/episodes", { content: "x" }, { ...auth(), "idempotency-key": "k".repeat(256) });
        expect(bad.status).toBe(400);
        expect(bad.body.details).toEqual([{ path: "Idempotency-Key", message: expect.any(String) }]);
      });
    });

    describe("POST /v1/episodes/batch", () => {
      it("answers every item on its own, stores the good ones beside bad ones, and loses none", async () => {
        const key = uniq();
        const sessionId = uniq();
        const items = [
          { content: "Batch Bea lives in Lyon.", sessionId },
          { content: "" },
          { content: "Batch Cal works at Mill Co.", sessionId, idempotencyKey: key },
          { content: "Batch Cal works at Mill Co.", sessionId, idempotencyKey: key },
          { content: "Another body, same key.", sessionId, idempotencyKey: key },
          { content: "Bad metadata.", metadata: [1, 2] },
          "not an object",
          { content: "Null fields are absent.", metadata: null, occurredAt: null, sessionId },
          { content: "Bad date in metadata.", metadata: { occurredAt: "yesterday" } },
        ];
        const r = await post("/v1/episodes/batch", { episodes: items });
        expect(r.status).toBe(200);
        const answers = r.body.items as Array<{ index: number; status: string; code: number; id?: string; episode?: any; error?: any }>;
        expect(answers.map((a) => [a.index, a.status, a.code])).toEqual([
          [0, "accepted", 202],
          [1, "error", 400],
          [2, "accepted", 202],
          [3, "duplicate", 202],
          [4, "error", 422],
          [5, "error", 400],
          [6, "error", 400],
          [7, "accepted", 202],
          [8, "error", 400],
        ]);
        expect(answers[3]!.id).toBe(answers[2]!.id);
        expect(answers[3]!.episode).toEqual(answers[2]!.episode);
        for (const a of answers.filter((x) => x.status === "error")) {
          expect(typeof a.error.error).toBe("string");
          expect(a.error.requestId).toBe(r.headers.get("x-request-id"));
        }
        expect(answers[1]!.error.details).toEqual([{ path: "content", message: expect.any(String) }]);
        expect(answers[8]!.error.details).toEqual([{ path: "metadata.occurredAt", message: expect.any(String) }]);
        // exactly the accepted ones are stored, each readable, and extracted
        const stored = (await get(`/v1/episodes?sessionId=${sessionId}&limit=100`)).body.items.map((e: { id: string }) => e.id);
        const accepted = answers.filter((a) => a.status === "accepted").map((a) => a.id!);
        expect([...stored].sort()).toEqual([...accepted].sort());
        for (const id of accepted) expect((await waitDone(id)).status).toBe("done");
        // a retried batch with keys stores nothing twice
        const again = await post("/v1/episodes/batch", { episodes: [items[2]] });
        expect(again.body.items).toEqual([{ ...answers[2]!, index: 0, status: "duplicate" }]);
      });

      it("refuses an empty batch or one over 100 episodes with 400", async () => {
        expect((await post("/v1/episodes/batch", { episodes: [] })).status).toBe(400);
        const many = Array.from({ length: 101 }, (_, i) => ({ content: `Item ${i}` }));
        const r = await post("/v1/episodes/batch", { episodes: many });
        expect(r.status).toBe(400);
        expect((await post("/v1/episodes/batch", { episodes: many.slice(0, 100) })).status).toBe(200);
      });
    });

    describe("scopes and filters", () => {
      it("one user's facts and episodes never reach another user's reads; unscoped reads see the brain", async () => {
        const run = uniq().slice(0, 8);
        const [u1, u2] = [`u1-${run}`, `u2-${run}`];
        const said = [
          { userId: u1, content: `Marta Quill lives in Porto.`, metadata: { channel: "app", rank: 1 } },
          { userId: u2, content: `Marta Quill lives in Oslo.`, metadata: { channel: "mail", rank: 2 } },
        ];
        const batch = await post("/v1/episodes/batch", { episodes: said.map((s) => ({ ...s, agentId: `agent-${run}` })) });
        const [id1, id2] = batch.body.items.map((i: { id: string }) => i.id);
        for (const id of [id1, id2]) expect((await waitDone(id)).status).toBe("done");

        const recall = async (body: Record<string, unknown>) =>
          (await post("/v1/recall", { query: "Where does Marta Quill live?", ...body })).body;
        const r1 = await recall({ userId: u1 });
        const r2 = await recall({ userId: u2 });
        expect(r1.edges.length).toBeGreaterThan(0);
        expect(r2.edges.length).toBeGreaterThan(0);
        // facts inherit their episode's scope
        for (const e of r1.edges) expect([e.userId, e.agentId, e.episodeId]).toEqual([u1, `agent-${run}`, id1]);
        for (const e of r2.edges) expect([e.userId, e.episodeId]).toEqual([u2, id2]);
        expect(r1.episodes.map((e: { id: string }) => e.id)).toEqual([id1]);
        expect(JSON.stringify(r1)).not.toContain("Oslo");
        expect(JSON.stringify(r2)).not.toContain("Porto");
        // two users each keep their own current fact: one user's never supersedes the other's
        const edges1 = (await get(`/v1/edges?userId=${u1}`)).body.items;
        const edges2 = (await get(`/v1/edges?userId=${u2}`)).body.items;
        expect(edges1.length).toBeGreaterThan(0);
        for (const e of [...edges1, ...edges2]) expect(e.tInvalid).toBeNull();
        expect(edges1.every((e: { userId: string }) => e.userId === u1)).toBe(true);
        expect(edges2.every((e: { userId: string }) => e.userId === u2)).toBe(true);
        // the agent both share sees both; a scope nobody has sees nothing
        const both = await recall({ agentId: `agent-${run}` });
        expect(new Set(both.episodes.map((e: { id: string }) => e.id))).toEqual(new Set([id1, id2]));
        const none = await recall({ userId: `nobody-${run}` });
        expect([none.edges, none.episodes]).toEqual([[], []]);
        // lists: episodes, edges and the entities a scope's facts touch
        expect((await get(`/v1/episodes?userId=${u1}`)).body.items.map((e: { id: string }) => e.id)).toEqual([id1]);
        const names1 = (await get(`/v1/entities?userId=${u1}&limit=100`)).body.items.map((e: { name: string }) => e.name);
        expect(names1).toContain("Porto");
        expect(names1).not.toContain("Oslo");
        // another brain's key never sees this brain's scope
        expect((await get(`/v1/episodes?userId=${u1}`, OTHER)).body.items).toEqual([]);
      });

      it("filters recall and lists by relation, tValid range and metadata equality", async () => {
        const run = uniq().slice(0, 8);
        const userId = `f-${run}`;
        const r = await post("/v1/episodes/batch", {
          episodes: [
            { userId, content: "Nadia Frost works at Glacier Inc.", occurredAt: "2021-03-01", metadata: { channel: "app" } },
            { userId, content: "Nadia Frost lives in Bergen.", occurredAt: "2023-05-01", metadata: { channel: "mail", n: 1 } },
          ],
        });
        const [work, home] = r.body.items.map((i: { id: string }) => i.id);
        for (const id of [work, home]) await waitDone(id);
        const all = (await get(`/v1/edges?userId=${userId}`)).body.items as Array<{ relation: string; episodeId: string; tValid: string }>;
        const relations = [...new Set(all.map((e) => e.relation))];
        expect(relations.length).toBeGreaterThan(1);
        const one = all.find((e) => e.episodeId === work)!.relation;
        const byRelation = (await get(`/v1/edges?userId=${userId}&relation=${one}`)).body.items;
        expect(byRelation.length).toBeGreaterThan(0);
        expect(byRelation.every((e: { relation: string }) => e.relation === one)).toBe(true);
        const since = (await get(`/v1/edges?userId=${userId}&validFrom=2022-01-01`)).body.items;
        expect(since.length).toBeGreaterThan(0);
        expect(since.every((e: { episodeId: string }) => e.episodeId === home)).toBe(true);
        const until = (await get(`/v1/edges?userId=${userId}&validTo=2022-01-01`)).body.items;
        expect(until.every((e: { episodeId: string }) => e.episodeId === work)).toBe(true);
        const meta = encodeURIComponent(JSON.stringify({ channel: "mail", n: 1 }));
        expect((await get(`/v1/episodes?userId=${userId}&metadata=${meta}`)).body.items.map((e: { id: string }) => e.id)).toEqual([home]);
        expect((await get(`/v1/episodes?metadata=${encodeURIComponent('{"n":"1"}')}&userId=${userId}`)).body.items).toEqual([]);
        const recalled = (await post("/v1/recall", { query: "Nadia Frost", userId, metadata: { channel: "app" } })).body;
        expect(recalled.edges.length).toBeGreaterThan(0);
        expect(recalled.edges.every((e: { episodeId: string }) => e.episodeId === work)).toBe(true);
        expect(recalled.episodes.map((e: { id: string }) => e.id)).toEqual([work]);
        const ranged = (await post("/v1/recall", { query: "Nadia Frost", userId, validFrom: "2022-01-01", relation: [one, ...relations] }))
          .body;
        expect(ranged.edges.every((e: { episodeId: string }) => e.episodeId === home)).toBe(true);
        // bad filters answer 400
        expect((await get(`/v1/episodes?metadata=${encodeURIComponent("not json")}`)).status).toBe(400);
        expect((await post("/v1/recall", { query: "x", metadata: { a: { nested: 1 } } })).status).toBe(400);
        expect((await post("/v1/recall", { query: "x", userId: "" })).status).toBe(400);
      });
    });
  },
);
