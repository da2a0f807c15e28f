// Memory webhooks (docs/memory.md#webhooks) under Express, Fastify and fetch, on real sockets; the SQL projects rerun it
// on SQLite and PostgreSQL, where each event's job is written in the transaction of the change it reports.
import { createMemoryService, type Extractor, ruleBasedExtractor } from "@mountkit/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../packages/memory/src/cli.js";
import { call, forEachAdapter } from "./harness.js";
import { type Received, type Receiver, startReceiver } from "./webhook-receiver.js";

const KEY_A = "mk_test_hooks_a_0123456789";
const KEY_B = "mk_test_hooks_b_0123456789";

/** The rule-based extractor (in process, fast), failing on episodes that mention poison. */
function poisonable(): Extractor {
  const good = ruleBasedExtractor();
  return {
    name: "poisonable",
    async extractEntities(input) {
      if (input.content.includes("poison")) throw new Error("cannot parse poison");
      return good.extractEntities(input);
    },
    extractFacts: (input) => good.extractFacts(input),
  };
}

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

forEachAdapter(
  "memory webhooks",
  async () => {
    const service = createMemoryService({
      extractor: poisonable(),
      dailyQuota: 100_000,
      worker: { pollMs: 20 },
      webhooks: { allowPrivate: true, retryScheduleMs: [100, 200, 300, 300, 300, 300, 300, 300, 300, 300], pollMs: 20 },
    });
    await service.keys.create({ brainId: "a", key: KEY_A });
    await service.keys.create({ brainId: "b", key: KEY_B });
    return [service];
  },
  (t) => {
    const A = { authorization: `Bearer ${KEY_A}` };
    const B = { authorization: `Bearer ${KEY_B}` };
    const hooks = (path = "") => `${t.url}/v1/webhooks${path}`;
    const subscribe = (body: Record<string, unknown>, headers = A) => call(hooks(), { body, headers });
    const get = (path: string, headers = A) => call(`${t.url}${path}`, { headers });
    /** Posts an episode and waits for its extraction to end. */
    async function ingest(content: string, occurredAt?: string, headers = A) {
      const r = await call(`${t.url}/v1/episodes`, { body: { content, ...(occurredAt ? { occurredAt } : {}) }, headers });
      expect(r.status, r.text).toBe(202);
      for (let i = 0; i < 500; i++) {
        const e = await get(`/v1/episodes/${r.body.id}`, headers);
        if (e.body.status === "done" || e.body.status === "failed") return e.body;
        await sleep(10);
      }
      throw new Error("extraction did not finish");
    }
    const reset = () => {
      receiver.got.length = 0;
      receiver.down = false;
    };
    const of = (got: Received[], type: string, subject: string) =>
      got.filter((g) => g.payload.type === type && g.payload.data.id === subject);
    const deliveries = async (id: string, headers = A) =>
      (await call(hooks(`/${id}/deliveries?limit=100`), { headers })).body.data as Array<{
        id: string;
        eventId: string;
        eventType: string;
        subject: string;
        state: string;
        attempts: Array<{ status: number | null }>;
      }>;

    describe("subscriptions", () => {
      it("per brain: created with a secret, listed, read, changed, deleted; another brain's key gets 404 and an empty list", async () => {
        const created = await subscribe({ url: `${receiver.url}?crud`, events: ["episode.done", "edge.superseded"], description: "crud" });
        expect(created.status, created.text).toBe(201);
        expect(created.body).toMatchObject({
          id: expect.stringMatching(/^whs_/),
          events: ["episode.done", "edge.superseded"],
          enabled: true,
          secret: expect.stringMatching(/^whsec_/),
        });
        const id = created.body.id;
        expect((await call(hooks(), { headers: A })).body.data.map((s: { id: string }) => s.id)).toContain(id);
        expect((await call(hooks(`/${id}`), { headers: A })).body.url).toBe(`${receiver.url}?crud`);
        const changed = await call(hooks(`/${id}`), { method: "PATCH", body: { rotateSecret: true, events: ["*"] }, headers: A });
        expect(changed.status).toBe(200);
        expect(changed.body).toMatchObject({ events: ["*"] });
        expect(changed.body.secret).not.toBe(created.body.secret);
        for (const [method, path] of [
          ["GET", `/${id}`],
          ["PATCH", `/${id}`],
          ["DELETE", `/${id}`],
          ["GET", `/${id}/deliveries`],
          ["POST", `/${id}/deliveries/dlv_x/redeliver`],
        ] as const) {
          const r = await call(hooks(path), { method, headers: B, ...(method === "PATCH" ? { body: { enabled: false } } : {}) });
          expect(r.status, `${method} ${path}`).toBe(404);
          expect(r.body).toMatchObject({ error: expect.any(String), requestId: r.headers.get("x-request-id") });
        }
        expect((await call(hooks(), { headers: B })).body.data).toEqual([]);
        expect((await call(hooks(`/${id}`), { headers: A })).body.enabled).toBe(true);
        expect((await call(hooks(`/${id}`), { method: "DELETE", headers: A })).status).toBe(204);
        expect((await call(hooks(`/${id}`), { headers: A })).status).toBe(404);
        expect((await call(hooks())).status).toBe(401);
        expect((await call(hooks(), { headers: { authorization: "Bearer mk_not_a_real_key_123456" } })).status).toBe(401);
      });

      it("are managed from the command line with the brain's key: mountkit-memory webhooks create, list, deliveries, delete", async () => {
        const run = async (...argv: string[]) => {
          const out: string[] = [];
          const err: string[] = [];
          const env = { MOUNTKIT_URL: t.url, MOUNTKIT_TOKEN: KEY_A };
          const code = await runCli(argv, {
            openStore: () => Promise.reject(new Error("no store")),
            out: (l) => out.push(l),
            err: (l) => err.push(l),
            env,
          });
          return { code, out: out.join("\n"), err: err.join("\n") };
        };
        const created = await run("webhooks", "create", "--url", receiver.url, "--event", "episode.done", "--json");
        expect(created.code, created.err).toBe(0);
        const sub = JSON.parse(created.out);
        expect(sub).toMatchObject({ url: receiver.url, events: ["episode.done"], secret: expect.stringMatching(/^whsec_/) });
        expect((await call(hooks(`/${sub.id}`), { headers: A })).status).toBe(200);
        const list = await run("webhooks", "list");
        expect(list.out).toContain(sub.id);
        expect((await run("webhooks", "deliveries", sub.id)).code).toBe(0);
        const refused = await run("webhooks", "create", "--url", receiver.url, "--event", "entry.created");
        expect(refused.code).toBe(1);
        expect(refused.err).toMatch(/^400: /);
        expect((await run("webhooks", "delete", sub.id)).code).toBe(0);
        expect((await call(hooks(`/${sub.id}`), { headers: A })).status).toBe(404);
        // a usage error prints the usage under the command's own name
        const usage = await run("webhooks", "frobnicate");
        expect(usage.code).toBe(2);
        expect(usage.err).toContain("mountkit-memory webhooks");
      });

      it("refuse bad URLs, unknown event types (an entries type among them) and unknown fields with 400 and the error body", async () => {
        for (const body of [
          { url: "ftp://example.com/x", events: ["episode.done"] },
          { url: "http://169.254.169.254/latest", events: ["*"] },
          { url: "not a url", events: ["*"] },
          { url: "https://example.com/", events: ["entry.created"] },
          { url: "https://example.com/", events: ["episode.done", "edge.deleted"] },
          { url: "https://example.com/", events: [] },
          { url: "https://example.com/", events: ["*"], extra: 1 },
        ]) {
          const r = await subscribe(body);
          expect(r.status, JSON.stringify(body)).toBe(400);
          expect(r.body).toMatchObject({ error: expect.any(String), requestId: r.headers.get("x-request-id") });
          expect(r.text).not.toMatch(/at .*\.ts:\d+/);
        }
        expect((await call(hooks(), { headers: A })).body.data).toEqual([]);
      });
    });

    describe("deliveries", () => {
      it("episode.done and edge.superseded arrive signed, carrying the episode and the edges; another brain's never cross", async () => {
        reset();
        const a = (await subscribe({ url: receiver.url, events: ["*"] })).body;
        const b = (await subscribe({ url: receiver.url, events: ["episode.done"] }, B)).body;
        const paris = await ingest("Alice Moreau lives in Paris.", "2020-01-01T00:00:00Z");
        const berlin = await ingest("Alice Moreau moved to Berlin.", "2023-03-01T00:00:00Z");
        const oslo = await ingest("Nora Quinn lives in Oslo.", undefined, B);
        const got = await receiver.waitFor(4);
        for (const g of got) expect(receiver.verify(g, g.payload.data.id === oslo.id ? b.secret : a.secret)).toEqual(g.payload);
        expect(() => receiver.verify(of(got, "episode.done", paris.id)[0]!, b.secret)).toThrow();
        // episode.done: the episode as GET /v1/episodes/:id answers it, and what the extraction created and closed
        for (const [episode, closed] of [
          [paris, 0],
          [berlin, 1],
        ] as const) {
          const [done] = of(got, "episode.done", episode.id);
          expect(done!.payload.data).toEqual({
            ...(await get(`/v1/episodes/${episode.id}`)).body,
            counts: { entitiesCreated: expect.any(Number), edgesCreated: episode.edgeIds.length, edgesClosed: closed },
          });
        }
        expect(of(got, "episode.done", paris.id)[0]!.payload.data.counts.entitiesCreated).toBeGreaterThanOrEqual(2);
        // edge.superseded: the old edge as GET /v1/edges/:id answers it (without its episode), and the id of the new one
        const [superseded] = of(got, "edge.superseded", paris.edgeIds[0]);
        const { episode: _episode, ...old } = (await get(`/v1/edges/${paris.edgeIds[0]}`)).body;
        expect(superseded!.payload.data).toEqual({ ...old, supersededBy: berlin.edgeIds[0] });
        expect(old).toMatchObject({ tInvalid: "2023-03-01T00:00:00.000Z", tExpired: null, invalidatedBy: berlin.edgeIds[0] });
        expect(superseded!.headers["webhook-id"]).toMatch(/^evt_/);
        // brain b's subscription took its own episode only; brain a's never saw it
        expect((await deliveries(b.id, B)).map((d) => d.subject)).toEqual([oslo.id]);
        expect((await deliveries(a.id)).map((d) => d.subject)).not.toContain(oslo.id);
        expect(new Set(got.map((g) => g.id)).size).toBe(4);
        expect((await call(hooks(`/${a.id}`), { method: "DELETE", headers: A })).status).toBe(204);
        expect((await call(hooks(`/${b.id}`), { method: "DELETE", headers: B })).status).toBe(204);
      });

      it("erasing an episode deletes from the log every delivery naming what went; another brain's log keeps its own", async () => {
        reset();
        const a = (await subscribe({ url: receiver.url, events: ["*"] })).body;
        const b = (await subscribe({ url: receiver.url, events: ["*"] }, B)).body;
        const quito = await ingest("Ivo Marsh lives in Quito.", "2020-01-01T00:00:00Z");
        const lima = await ingest("Ivo Marsh moved to Lima.", "2023-03-01T00:00:00Z");
        const oslo = await ingest("Nora Quinn lives in Oslo.", undefined, B);
        // two episode.done, the Quito edge superseded by the Lima one, brain b's episode.done
        await receiver.waitFor(4);
        expect((await deliveries(a.id)).map((d) => d.subject).sort()).toEqual([lima.id, quito.edgeIds[0], quito.id].sort());
        expect((await call(`${t.url}/v1/episodes/${lima.id}`, { method: "DELETE", headers: A })).status).toBe(200);
        // the erased episode's event, and the one naming the edge it created (which went with it)
        expect((await deliveries(a.id)).map((d) => d.subject)).toEqual([quito.id]);
        expect((await deliveries(b.id, B)).map((d) => d.subject)).toEqual([oslo.id]);
        expect((await call(hooks(`/${a.id}`), { method: "DELETE", headers: A })).status).toBe(204);
        expect((await call(hooks(`/${b.id}`), { method: "DELETE", headers: B })).status).toBe(204);
      });

      it("a correction and a manual invalidation send edge.invalidated, a failed extraction episode.failed; other types are not sent", async () => {
        reset();
        const s = (await subscribe({ url: receiver.url, events: ["edge.invalidated", "episode.failed"] })).body;
        const wrong = await ingest("Ivy Chen was born in Nantes.");
        const right = await ingest("Ivy Chen was born in Lyon.");
        const manual = await call(`${t.url}/v1/edges/${right.edgeIds[0]}/invalidate`, { body: { reason: "not sure" }, headers: A });
        expect(manual.status).toBe(200);
        const poison = await ingest("a poison pill");
        expect(poison.status).toBe("failed");
        const got = await receiver.waitFor(3);
        expect(got.map((g) => g.payload.type).sort()).toEqual(["edge.invalidated", "edge.invalidated", "episode.failed"]);
        for (const g of got) expect(receiver.verify(g, s.secret)).toEqual(g.payload);
        // the correction expires the wrong record and names the edge that corrected it
        const [corrected] = of(got, "edge.invalidated", wrong.edgeIds[0]);
        const { episode: _episode, ...wrongEdge } = (await get(`/v1/edges/${wrong.edgeIds[0]}`)).body;
        expect(corrected!.payload.data).toEqual(wrongEdge);
        expect(wrongEdge).toMatchObject({ tExpired: expect.any(String), invalidatedBy: right.edgeIds[0] });
        // the manual one carries the edge as the invalidation answered it
        expect(of(got, "edge.invalidated", right.edgeIds[0])[0]!.payload.data).toEqual(manual.body);
        // episode.failed: the episode as GET answers it, with its error
        const [failed] = of(got, "episode.failed", poison.id);
        expect(failed!.payload.data).toEqual((await get(`/v1/episodes/${poison.id}`)).body);
        expect(failed!.payload.data).toMatchObject({ status: "failed", error: "cannot parse poison" });
        await sleep(200);
        expect(receiver.got.filter((g) => g.payload.type === "episode.done")).toEqual([]);
        expect((await call(hooks(`/${s.id}`), { method: "DELETE", headers: A })).status).toBe(204);
      });

      it("a receiver down for a while gets every event once back, in order per subject; the log shows the failed attempts", async () => {
        reset();
        const s = (await subscribe({ url: receiver.url, events: ["*"] })).body;
        receiver.down = true;
        // Paris is superseded twice: by Berlin (valid from 2023), then by Rome (valid from 2021, before Berlin)
        const paris = await ingest("Tom Hardy lives in Paris.", "2020-01-01T00:00:00Z");
        const berlin = await ingest("Tom Hardy lives in Berlin.", "2023-01-01T00:00:00Z");
        const rome = await ingest("Tom Hardy lives in Rome.", "2021-01-01T00:00:00Z");
        expect((await call(`${t.url}/v1/edges/${berlin.edgeIds[0]}/invalidate`, { body: {}, headers: A })).status).toBe(200);
        await sleep(400);
        expect(receiver.got).toHaveLength(0);
        expect(receiver.requests()).toBeGreaterThan(0);
        receiver.down = false;
        const got = await receiver.waitFor(6);
        for (const g of got) expect(receiver.verify(g, s.secret)).toEqual(g.payload);
        const firsts = (subject: string) => {
          const ids = got.filter((g) => g.payload.data.id === subject).map((g) => g.id);
          return ids.filter((id, i) => ids.indexOf(id) === i).map((id) => got.find((g) => g.id === id)!.payload);
        };
        expect(firsts(paris.edgeIds[0]).map((p) => [p.type, p.data.supersededBy])).toEqual([
          ["edge.superseded", berlin.edgeIds[0]],
          ["edge.superseded", rome.edgeIds[0]],
        ]);
        expect(firsts(berlin.edgeIds[0]).map((p) => p.type)).toEqual(["edge.invalidated"]);
        for (const e of [paris, berlin, rome]) expect(firsts(e.id).map((p) => p.type)).toEqual(["episode.done"]);
        // the log: every delivery done, some after a 503
        let log = await deliveries(s.id);
        for (let i = 0; i < 100 && !log.every((d) => d.state === "delivered"); i++) {
          await sleep(20);
          log = await deliveries(s.id);
        }
        expect(log).toHaveLength(6);
        expect(log.every((d) => d.state === "delivered")).toBe(true);
        expect(log.some((d) => d.attempts.some((a) => a.status === 503))).toBe(true);
        // a manual redelivery sends the same event again; another brain cannot ask for it
        const one = log[0]!;
        const before = receiver.got.length;
        expect((await call(hooks(`/${s.id}/deliveries/${one.id}/redeliver`), { method: "POST", headers: B })).status).toBe(404);
        expect((await call(hooks(`/${s.id}/deliveries/${one.id}/redeliver`), { method: "POST", headers: A })).status).toBe(202);
        for (let i = 0; i < 100 && receiver.got.length === before; i++) await sleep(20);
        expect(receiver.got.at(-1)!.id).toBe(one.eventId);
        expect((await call(hooks(`/${s.id}`), { method: "DELETE", headers: A })).status).toBe(204);
      });
    });
  },
);
