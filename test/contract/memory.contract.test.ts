// Memory's wire against its own /openapi.yaml: every route's success and documented errors, on every host.
import { createMemoryService } from "@mountkit/memory";
import { beforeAll, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { exchange } from "./exchange.js";
import { forEachHost } from "./hosts.js";
import { OpenApiContract } from "./openapi-check.js";

const KEY = "mk_contract_brain_a_0123456789";

/** The service of the host under test: the test waits on its extraction worker, which calls no route and spends no quota. */
let memory: ReturnType<typeof createMemoryService>;

forEachHost(
  "memory contract",
  async () => {
    memory = createMemoryService({ basePath: "/mem", dailyQuota: 40, worker: { pollMs: 10 } });
    await memory.keys.create({ brainId: "a", key: KEY });
    return [memory];
  },
  (h) => {
    let M: OpenApiContract;
    const auth = { authorization: `Bearer ${KEY}` };
    const svc = "/mem";

    beforeAll(async () => {
      const r = await fetch(`${h.base}${svc}/openapi.yaml`);
      expect(r.status).toBe(200);
      const doc = parseYaml(await r.text());
      expect(doc.servers).toEqual([{ url: h.prefix || "/" }]);
      M = new OpenApiContract(doc, "memory.yaml");
    });

    it("every route's success, Location under the mount, null optionals, and every documented error", async () => {
      const doc = await exchange(M, h.base, `${svc}/openapi.yaml`);
      expect(doc.status).toBe(200);
      // optional fields sent as null: treated as absent
      const ep = await exchange(M, h.base, `${svc}/v1/episodes`, {
        headers: auth,
        body: { content: "Alice works at Acme. Alice lives in Paris.", metadata: null, occurredAt: null },
        valid: true,
      });
      expect(ep.status).toBe(202);
      const location = ep.headers.get("location")!;
      expect(location).toBe(`${h.prefix}${svc}/v1/episodes/${ep.body.id}`);
      // following Location from the origin reaches the episode
      const origin = new URL(h.base).origin;
      // extraction runs on worker threads after the 202: wait for it without spending the brain's daily quota
      await memory.worker.idle();
      const r = await fetch(`${origin}${location}`, { headers: auth });
      expect(r.status).toBe(200);
      expect((await r.json()).status).toBe("done");
      expect((await exchange(M, h.base, `${svc}/v1/episodes/${ep.body.id}`, { headers: auth })).status).toBe(200);
      expect((await exchange(M, h.base, `${svc}/v1/episodes?limit=1`, { headers: auth })).status).toBe(200);
      const recall = await exchange(M, h.base, `${svc}/v1/recall`, { headers: auth, body: { query: "Alice", asOf: null }, valid: true });
      expect(recall.status).toBe(200);
      const edges = await exchange(M, h.base, `${svc}/v1/edges`, { headers: auth });
      expect(edges.body.items.length).toBeGreaterThan(0);
      const edgeId = edges.body.items[0].id as string;
      expect((await exchange(M, h.base, `${svc}/v1/edges/${edgeId}`, { headers: auth })).status).toBe(200);
      // the edges at a bi-temporal point (the memory explorer's slider)
      const at = await exchange(
        M,
        h.base,
        `${svc}/v1/edges?asOf=2999-01-01&knownAt=${encodeURIComponent(new Date().toISOString())}&limit=5`,
        {
          headers: auth,
        },
      );
      expect(at.status).toBe(200);
      expect(at.body.items.length).toBeGreaterThan(0);
      expect((await exchange(M, h.base, `${svc}/v1/edges?asOf=1990-01-01`, { headers: auth })).body.items).toEqual([]);
      expect((await exchange(M, h.base, `${svc}/v1/edges?asOf=not-a-date`, { headers: auth })).status).toBe(400);
      const entities = await exchange(M, h.base, `${svc}/v1/entities`, { headers: auth });
      expect((await exchange(M, h.base, `${svc}/v1/entities/${entities.body.items[0].id}`, { headers: auth })).status).toBe(200);
      const inv = await exchange(M, h.base, `${svc}/v1/edges/${edgeId}/invalidate`, { headers: auth, body: { reason: null }, valid: true });
      expect(inv.status).toBe(200);
      expect((await exchange(M, h.base, `${svc}/v1/edges/${edgeId}/invalidate`, { headers: auth, body: {} })).status).toBe(409);
      await exchange(M, h.base, `${svc}/v1/episodes`, {
        headers: auth,
        body: { content: "Always greet the customer by name.", metadata: { playbook: "greeting" } },
      });
      await memory.worker.idle();
      expect((await exchange(M, h.base, `${svc}/v1/playbooks`, { headers: auth })).status).toBe(200);
      expect((await exchange(M, h.base, `${svc}/v1/playbooks/greeting`, { headers: auth })).status).toBe(200);

      // idempotent and batch ingest, scopes and filters (docs/memory.md#idempotent-and-batch-ingest, #scopes-and-filters)
      const keyed = {
        headers: { ...auth, "idempotency-key": `"${crypto.randomUUID()}"` },
        body: { content: "Bo lives in Oslo.", userId: "u1" },
      };
      const first = await exchange(M, h.base, `${svc}/v1/episodes`, keyed);
      const replay = await exchange(M, h.base, `${svc}/v1/episodes`, keyed);
      expect([first.status, replay.status, replay.headers.get("idempotent-replayed")]).toEqual([202, 202, "true"]);
      expect((await exchange(M, h.base, `${svc}/v1/episodes`, { ...keyed, body: { content: "Another." } })).status).toBe(422);
      const batch = await exchange(M, h.base, `${svc}/v1/episodes/batch`, {
        headers: auth,
        body: { episodes: [{ content: "Cy works at Dune.", sessionId: "s1", idempotencyKey: "k1" }, { content: "" }] },
      });
      expect(batch.body.items.map((i: { status: string }) => i.status)).toEqual(["accepted", "error"]);
      await memory.worker.idle();
      const metadata = encodeURIComponent(JSON.stringify({ source: "x" }));
      expect((await exchange(M, h.base, `${svc}/v1/episodes?userId=u1&metadata=${metadata}`, { headers: auth })).status).toBe(200);
      expect(
        (await exchange(M, h.base, `${svc}/v1/edges?userId=u1&relation=lives_in,works_at&validFrom=2000-01-01`, { headers: auth })).status,
      ).toBe(200);
      expect((await exchange(M, h.base, `${svc}/v1/entities?sessionId=s1`, { headers: auth })).status).toBe(200);
      const scoped = await exchange(M, h.base, `${svc}/v1/recall`, {
        headers: auth,
        body: { query: "Oslo", userId: "u1", relation: ["lives_in"], metadata: { source: null }, validTo: "2999-01-01" },
      });
      expect(scoped.status).toBe(200);
      expect((await exchange(M, h.base, `${svc}/v1/episodes/batch`, { headers: auth, body: { episodes: [] }, valid: false })).status).toBe(
        400,
      );

      // documented errors
      expect((await exchange(M, h.base, `${svc}/v1/episodes`)).status).toBe(401);
      expect((await exchange(M, h.base, `${svc}/v1/episodes/missing`, { headers: auth })).status).toBe(404);
      expect((await exchange(M, h.base, `${svc}/v1/episodes/${"x".repeat(200)}`, { headers: auth })).status).toBe(400);
      expect((await exchange(M, h.base, `${svc}/v1/playbooks/nope`, { headers: auth })).status).toBe(404);
      expect((await exchange(M, h.base, `${svc}/v1/recall`, { headers: auth, body: { query: "" }, valid: false })).status).toBe(400);
      expect(
        (await exchange(M, h.base, `${svc}/v1/recall`, { headers: auth, body: { query: "a", limit: 101 }, valid: false })).status,
      ).toBe(400);
      expect(
        (await exchange(M, h.base, `${svc}/v1/recall`, { headers: { ...auth, "content-type": "application/json" }, raw: "{oops" })).status,
      ).toBe(400);
      expect(
        (await exchange(M, h.base, `${svc}/v1/recall`, { headers: { ...auth, "content-type": "text/plain" }, raw: "hi" })).status,
      ).toBe(415);
      expect((await exchange(M, h.base, `${svc}/v1/episodes`, { headers: auth, body: { content: "x".repeat(2_000_000) } })).status).toBe(
        413,
      );
      expect(
        (
          await exchange(M, h.base, `${svc}/v1/edges/${edgeId}/invalidate`, {
            headers: { ...auth, "content-type": "text/plain" },
            raw: "x",
          })
        ).status,
      ).toBe(415);
      expect((await exchange(M, h.base, `${svc}/v1/edges?cursor=garbage`, { headers: auth })).status).toBe(400);
      // the daily quota: 429 with Retry-After and the RateLimit headers, all documented
      let last = 200;
      for (let i = 0; i < 50 && last !== 429; i++) last = (await exchange(M, h.base, `${svc}/v1/playbooks`, { headers: auth })).status;
      expect(last).toBe(429);
    });
  },
);
