// Memory service HTTP conformance (docs/memory.md) under Express, Fastify and fetch, on real sockets.
import { type ManualClock, manualClock } from "@mountkit/core";
import { createMemoryService, type MemoryService } from "@mountkit/memory";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { memoryFromEnv } from "../examples/server/src/services/memory.js";
import { call, forEachAdapter, unguarded } from "./harness.js";

const KEY_A = "mk_test_brain_a_0123456789";
const KEY_B = "mk_test_brain_b_0123456789";
const KEY_Q = "mk_test_quota_q_0123456789";
const KEY_R = "mk_test_quota_r_0123456789";
const KEY_S = "mk_test_based_s_0123456789";
const QUOTA = 5;
const ONE_KEYS = [1, 2, 3, 4, 5].map((n) => `mk_test_quota_one_${n}_0123456789`);

let clock: ManualClock;
let main: MemoryService;

// the one error body (docs/conventions.md#error-body): `details` is optional, `requestId` always there and equal to the header
function expectError(r: { status: number; body: any; headers: Headers }, status: number) {
  expect(r.status).toBe(status);
  expect(typeof r.body?.error).toBe("string");
  expect(r.body.requestId).toBe(r.headers.get("x-request-id"));
  expect(JSON.stringify(r.body)).not.toMatch(/at .*\.ts:\d+/);
}

forEachAdapter(
  "memory",
  async () => {
    clock = manualClock("2020-01-01T00:00:00Z");
    main = createMemoryService({ clock, dailyQuota: 100_000, worker: { pollMs: 20 } });
    await main.keys.create({ brainId: "a", key: KEY_A });
    await main.keys.create({ brainId: "b", key: KEY_B });
    const small = createMemoryService({ clock, dailyQuota: QUOTA, basePath: "/small" });
    await small.keys.create({ brainId: "q", key: KEY_Q });
    await small.keys.create({ brainId: "r", key: KEY_R });
    await small.keys.create({ brainId: "s", key: KEY_S });
    const one = createMemoryService({ clock, dailyQuota: 1, basePath: "/one" });
    for (const k of ONE_KEYS) await one.keys.create({ brainId: k, key: k });
    return [main, small, one];
  },
  (t) => {
    const u = (path: string) => `${t.url}${path}`;
    const as = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });
    const A = as(KEY_A);
    const B = as(KEY_B);
    const post = (path: string, body: unknown, headers = A) => call(u(path), { method: "POST", headers, body });
    const get = (path: string, headers = A) => call(u(path), { headers });
    async function ingest(content: string, extra: Record<string, unknown> = {}) {
      const r = await post("/v1/episodes", { content, ...extra });
      expect(r.status).toBe(202);
      for (let i = 0; i < 400; i++) {
        const e = await get(`/v1/episodes/${r.body.id}`);
        if (e.body.status === "done" || e.body.status === "failed") return e.body;
        await new Promise((res) => setTimeout(res, 10));
      }
      throw new Error("extraction did not finish");
    }

    it("refuses missing and unknown keys with 401 {error, details}", async () => {
      expectError(await get("/v1/episodes", {}), 401);
      expectError(await get("/v1/episodes", as("mk_not_a_real_key_123456")), 401);
      expectError(await post("/v1/recall", { query: "x" }, { authorization: "Basic abc" }), 401);
    });

    it("POST /v1/episodes answers 202 queued; extraction completes off the request path", async () => {
      const r = await post("/v1/episodes", { content: "Alice Moreau works at Acme Corp.", metadata: { source: "chat" } });
      expect(r.status).toBe(202);
      expect(r.body).toMatchObject({ content: "Alice Moreau works at Acme Corp.", metadata: { source: "chat" }, status: "queued" });
      expect(r.body.occurredAt).toBe("2020-01-01T00:00:00.000Z");
      expect(r.body.createdAt).toBe("2020-01-01T00:00:00.000Z");
      expect(r.headers.get("location")).toBe(`/v1/episodes/${r.body.id}`);
      let done: any;
      for (let i = 0; i < 400 && done?.status !== "done"; i++) {
        done = (await get(`/v1/episodes/${r.body.id}`)).body;
        if (done.status !== "done") await new Promise((res) => setTimeout(res, 10));
      }
      expect(done.status).toBe("done");
      expect(done.edgeIds.length).toBeGreaterThan(0);
      expect(done.entityIds.length).toBeGreaterThanOrEqual(2);
      const list = await get("/v1/episodes?limit=1");
      expect(list.status).toBe(200);
      expect(list.body.items[0].id).toBe(r.body.id);
    });

    it("recall returns context, scored edges and source episodes with metadata", async () => {
      await ingest("Bruno Silva lives in Lisbon.", { metadata: { channel: "email" } });
      const r = await post("/v1/recall", { query: "Where does Bruno Silva live?" });
      expect(r.status).toBe(200);
      const edge = r.body.edges.find((e: any) => e.fact.includes("Lisbon"));
      expect(edge).toMatchObject({ relation: "lives_in", tInvalid: null, tExpired: null });
      expect(typeof edge.score).toBe("number");
      expect(edge.tValid).toMatch(/Z$/);
      expect(r.body.context).toContain("Bruno Silva lives in Lisbon.");
      expect(r.body.episodes[0]).toMatchObject({ content: "Bruno Silva lives in Lisbon.", metadata: { channel: "email" } });
      const entity = await get(`/v1/entities/${edge.source}`);
      expect(entity.status).toBe(200);
      expect(entity.body).toMatchObject({ name: "Bruno Silva", kind: "person" });
      expect(entity.body.edges.map((e: any) => e.id)).toContain(edge.id);
      const full = await get(`/v1/edges/${edge.id}`);
      expect(full.body).toMatchObject({ id: edge.id, episode: { content: "Bruno Silva lives in Lisbon." } });
      expect(full.body).toHaveProperty("tIngested");
    });

    it("a supersession is bi-temporal: asOf before it sees the old fact, after it the new one", async () => {
      clock.set("2021-01-01T00:00:00Z");
      const paris = await ingest("Chloe Martin lives in Paris.", { occurredAt: "2021-01-01T00:00:00Z" });
      clock.set("2023-03-02T00:00:00Z");
      const berlin = await ingest("Chloe Martin moved to Berlin.", { occurredAt: "2023-03-01T00:00:00Z" });
      const q = "Where does Chloe Martin live?";
      const before = await post("/v1/recall", { query: q, asOf: "2022-06-01" });
      expect(before.body.edges.map((e: any) => e.id)).toContain(paris.edgeIds[0]);
      expect(before.body.edges.map((e: any) => e.id)).not.toContain(berlin.edgeIds[0]);
      const after = await post("/v1/recall", { query: q });
      expect(after.body.edges.map((e: any) => e.id)).toContain(berlin.edgeIds[0]);
      expect(after.body.edges.map((e: any) => e.id)).not.toContain(paris.edgeIds[0]);
      const old = await get(`/v1/edges/${paris.edgeIds[0]}`);
      // a supersession ends validity; the record itself stays current knowledge (docs/memory.md#time-two-axes)
      expect(old.body).toMatchObject({ tInvalid: "2023-03-01T00:00:00.000Z", tExpired: null });
      expect(old.body.invalidationReason).toContain(berlin.edgeIds[0]);
      // a full timestamp works as asOf too
      const exact = await post("/v1/recall", { query: q, asOf: "2023-02-28T23:59:59Z" });
      expect(exact.body.edges.map((e: any) => e.id)).toContain(paris.edgeIds[0]);
    });

    it("GET /v1/edges?asOf=&knownAt= lists the edges visible at that point; without them the whole history", async () => {
      clock.set("2021-05-01T00:00:00Z");
      const rome = await ingest("Gina Rossi lives in Rome.", { occurredAt: "2021-05-01T00:00:00Z" });
      clock.set("2022-05-02T00:00:00Z");
      const oslo = await ingest("Gina Rossi moved to Oslo.", { occurredAt: "2022-05-01T00:00:00Z" });
      const [oldId, newId] = [rome.edgeIds[0], oslo.edgeIds[0]];
      const gina = (await get(`/v1/edges/${oldId}`)).body.source;
      const ids = async (query: string) => {
        const r = await get(`/v1/edges?entityId=${gina}&limit=100${query}`);
        expect(r.status).toBe(200);
        return r.body.items.map((e: any) => e.id).sort();
      };
      expect(await ids("")).toEqual([oldId, newId].sort());
      expect(await ids("&asOf=2021-12-31")).toEqual([oldId]);
      expect(await ids("&asOf=2022-05-01T00:00:00Z")).toEqual([newId]);
      expect(await ids("&asOf=2022-04-30T23:59:59.999Z")).toEqual([oldId]);
      // knownAt before the move was recorded: the old fact is the whole belief, even asked about later
      expect(await ids("&asOf=2022-06-01&knownAt=2022-05-01")).toEqual([]);
      expect(await ids("&asOf=2022-04-01&knownAt=2022-05-01")).toEqual([oldId]);
      // knownAt alone: valid now
      expect(await ids("&knownAt=2022-05-03")).toEqual([newId]);
      expectError(await get("/v1/edges?asOf=yesterday"), 400);
      expectError(await get("/v1/edges?knownAt=2022-13-45"), 400);
      // another brain sees none of them, whatever the point
      expect((await get(`/v1/edges?entityId=${gina}&asOf=2021-12-31`, B)).body.items).toEqual([]);
    });

    it("the offline extractor reads passive, possessive and dated clauses into edges between noun phrases", async () => {
      clock.set("2024-02-01T00:00:00Z");
      const edgeOf = async (content: string) => {
        const ep = await ingest(content);
        expect(ep.status).toBe("done");
        const edges = await Promise.all(ep.edgeIds.map((id: string) => get(`/v1/edges/${id}`)));
        const named = await Promise.all(
          edges.map(async (e) => ({
            relation: e.body.relation,
            source: (await get(`/v1/entities/${e.body.source}`)).body.name,
            target: (await get(`/v1/entities/${e.body.target}`)).body.name,
            tInvalid: e.body.tInvalid,
            id: e.body.id,
          })),
        );
        return named;
      };
      const passive = await edgeOf("The billing service is owned by the payments team.");
      // the passive reads in the active voice: the agent first
      expect(passive).toEqual([expect.objectContaining({ source: "payments team", relation: "owns", target: "billing service" })]);
      const possessive = await edgeOf("Liam's favourite band is Radiohead.");
      expect(possessive).toEqual([expect.objectContaining({ source: "Liam", relation: "favourite_band", target: "Radiohead" })]);
      const until = await edgeOf("Ken Adams works at Cyberdyne until 2030.");
      expect(until).toEqual([expect.objectContaining({ relation: "works_at", target: "Cyberdyne", tInvalid: "2030-01-01T00:00:00.000Z" })]);
      const spoken = await edgeOf("Jordan Lee: I adopted a dog named Biscuit last March.");
      expect(spoken).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ source: "Jordan Lee", relation: "owns", target: "Biscuit" }),
          expect.objectContaining({ source: "Biscuit", relation: "is_a", target: "dog" }),
        ]),
      );
      const r = await post("/v1/recall", { query: "Who owns the billing service?" });
      expect(r.body.edges.map((e: any) => e.id)).toContain(passive[0]!.id);
    });

    it("manual invalidation: 200 with the edge, stays readable, visible before tInvalid only; twice -> 409", async () => {
      clock.set("2024-01-10T00:00:00Z");
      const ep = await ingest("Dora Kim works at Initech Corp.");
      const id = ep.edgeIds[0];
      clock.set("2024-02-01T12:00:00Z");
      const r = await post(`/v1/edges/${id}/invalidate`, { reason: "left the company" });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id, tInvalid: "2024-02-01T12:00:00.000Z", invalidationReason: "left the company" });
      const again = await post(`/v1/edges/${id}/invalidate`, {});
      expectError(again, 409);
      expect((await get(`/v1/edges/${id}`)).body.tInvalid).toBe("2024-02-01T12:00:00.000Z");
      const q = "Where does Dora Kim work?";
      expect((await post("/v1/recall", { query: q, asOf: "2024-01-20" })).body.edges.map((e: any) => e.id)).toContain(id);
      expect((await post("/v1/recall", { query: q })).body.edges.map((e: any) => e.id)).not.toContain(id);
      // an empty body is accepted too
      const other = await ingest("Eli Cohen lives in Haifa.");
      const empty = await call(u(`/v1/edges/${other.edgeIds[0]}/invalidate`), { method: "POST", headers: A });
      expect(empty.status).toBe(200);
      expect(empty.body.invalidationReason).toBeTruthy();
    });

    it("another brain's ids answer 404 and its data never leaks into recall or lists", async () => {
      const ep = await ingest("Farah Haddad lives in Beirut.");
      const edge = (await get(`/v1/edges/${ep.edgeIds[0]}`)).body;
      expectError(await get(`/v1/episodes/${ep.id}`, B), 404);
      expectError(await get(`/v1/edges/${edge.id}`, B), 404);
      expectError(await get(`/v1/entities/${edge.source}`, B), 404);
      expectError(await post(`/v1/edges/${edge.id}/invalidate`, {}, B), 404);
      const recall = await post("/v1/recall", { query: "Farah Haddad Beirut" }, B);
      expect(recall.status).toBe(200);
      expect(recall.body.edges).toEqual([]);
      expect(recall.body.episodes).toEqual([]);
      expect((await get("/v1/episodes", B)).body.items).toEqual([]);
      expect((await get("/v1/entities", B)).body.items).toEqual([]);
      expect((await get(`/v1/edges/${edge.id}`)).status).toBe(200);
    });

    it("paginates every list with an opaque cursor", async () => {
      const C = as(`mk_page_${t.framework}_0123456789`);
      await main.keys.create({ brainId: `pages-${t.framework}`, key: `mk_page_${t.framework}_0123456789` });
      const made: string[] = [];
      for (let i = 0; i < 5; i++) {
        clock.advance(1000);
        made.push((await post("/v1/episodes", { content: `Note ${i} about Gina Rossi and Pisa.` }, C)).body.id);
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < 10; i++) {
        const r: any = await get(`/v1/episodes?limit=2${cursor ? `&cursor=${cursor}` : ""}`, C);
        expect(r.status).toBe(200);
        seen.push(...r.body.items.map((e: any) => e.id));
        cursor = r.body.next;
        if (!cursor) break;
      }
      expect(seen).toEqual([...made].reverse());
      for (const path of ["/v1/entities", "/v1/edges", "/v1/playbooks"]) {
        const r = await get(`${path}?limit=1`, C);
        expect(r.status).toBe(200);
        expect(r.body).toHaveProperty("items");
        expect(r.body).toHaveProperty("next");
      }
      expectError(await get("/v1/episodes?cursor=not-a-cursor!", C), 400);
      expectError(await get("/v1/episodes?cursor=bm9wZQ", C), 400);
      expectError(await get("/v1/episodes?limit=101", C), 400);
      expectError(await get("/v1/episodes?limit=0", C), 400);
    });

    it("bad input answers 4xx {error, details}", async () => {
      expectError(await post("/v1/episodes", { content: "" }), 400);
      expectError(await post("/v1/episodes", { content: "   " }), 400);
      expectError(await post("/v1/episodes", {}), 400);
      expectError(await post("/v1/episodes", { content: "x".repeat(100_001) }), 400);
      expectError(await post("/v1/episodes", { content: "x".repeat(1_100_000) }), 413);
      expectError(await post("/v1/episodes", { content: "ok", metadata: "nope" }), 400);
      expectError(await post("/v1/episodes", { content: "ok", occurredAt: "last tuesday" }), 400);
      expectError(
        await call(u("/v1/episodes"), { method: "POST", headers: { ...A, "content-type": "application/json" }, rawBody: "{nope" }),
        400,
      );
      expectError(
        await call(u("/v1/episodes"), { method: "POST", headers: { ...A, "content-type": "text/plain" }, rawBody: "hello" }),
        415,
      );
      expectError(await post("/v1/recall", { query: "x", asOf: "2023-13-45" }), 400);
      expectError(await post("/v1/recall", { query: "x", asOf: "2023-02-30" }), 400);
      expectError(await post("/v1/recall", { query: "x", asOf: "yesterday" }), 400);
      expectError(await post("/v1/recall", { query: "x", knownAt: "2023-02-30" }), 400);
      expect((await post("/v1/recall", { query: "x", knownAt: "soon" })).body.details[0].path).toBe("knownAt");
      expectError(await post("/v1/recall", { query: "x", limit: 101 }), 400);
      expectError(await post("/v1/recall", { query: "x", limit: 0 }), 400);
      expectError(await post("/v1/recall", { query: "" }), 400);
      const invalid = await post("/v1/recall", { query: "x", asOf: "2023-13-45" });
      expect(invalid.body.details[0].path).toBe("asOf");
      expectError(await get("/v1/episodes/ep_does_not_exist"), 404);
      expectError(await get("/v1/edges/edge_nope"), 404);
      expectError(await post("/v1/edges/edge_nope/invalidate", {}), 404);
      expectError(await get("/v1/playbooks/nope"), 404);
    });

    it("deeply nested metadata answers 400 {error, details}, never 500", async () => {
      const raw = (metadata: string) =>
        call(u("/v1/episodes"), {
          method: "POST",
          headers: { ...A, "content-type": "application/json" },
          rawBody: `{"content":"ok","metadata":${metadata}}`,
        });
      const depth = 30_000;
      const deep = await raw(`${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`);
      expectError(deep, 400);
      // small enough for the size limit, still too deep to serialise safely
      const narrow = await raw(`{"a":${"[".repeat(8000)}${"]".repeat(8000)}}`);
      expectError(narrow, 400);
      expect((await raw(`{"a":${"[".repeat(20)}1${"]".repeat(20)}}`)).status).toBe(202);
    });

    it("Location of a created episode includes the service's basePath", async () => {
      const S = as(KEY_S);
      const r = await post("/small/v1/episodes", { content: "Ines Duarte lives in Porto." }, S);
      expect(r.status).toBe(202);
      const location = r.headers.get("location");
      expect(location).toBe(`/small/v1/episodes/${r.body.id}`);
      const again = await get(location!, S);
      expect(again.status).toBe(200);
      expect(again.body.id).toBe(r.body.id);
    });

    it("a metadata key named __proto__ is stored and returned as sent", async () => {
      const r = await call(u("/v1/episodes"), {
        method: "POST",
        headers: { ...A, "content-type": "application/json" },
        rawBody: '{"content":"Jon Berg works at Nordia Corp.","metadata":{"__proto__":{"x":1},"source":"raw"}}',
      });
      expect(r.status).toBe(202);
      const own = (m: object) => Object.getOwnPropertyDescriptor(m, "__proto__")?.value;
      expect(Object.keys(r.body.metadata)).toEqual(["__proto__", "source"]);
      expect(own(r.body.metadata)).toEqual({ x: 1 });
      let stored: any;
      for (let i = 0; i < 400 && stored?.status !== "done"; i++) {
        stored = (await get(`/v1/episodes/${r.body.id}`)).body;
        if (stored.status !== "done") await new Promise((res) => setTimeout(res, 10));
      }
      expect(stored.status).toBe("done");
      expect(Object.keys(stored.metadata).sort()).toEqual(["__proto__", "source"]);
      expect(own(stored.metadata)).toEqual({ x: 1 });
      expect(stored.metadata.source).toBe("raw");
    });

    it("playbooks collect episodes tagged metadata.playbook", async () => {
      const ep = await ingest("Hana Sato lives in Kyoto.", { metadata: { playbook: `hana-${t.framework}` } });
      const r = await get(`/v1/playbooks/hana-${t.framework}`);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ slug: `hana-${t.framework}`, episodes: [ep.id], edges: ep.edgeIds });
      expect(r.body.content).toContain(ep.edgeIds[0]);
      expect(typeof r.body.updatedAt).toBe("string");
    });

    it("history imported today with past occurredAt answers past asOf questions; knownAt before the import sees nothing", async () => {
      clock.set("2025-03-10T09:00:00Z");
      const globex = await ingest("Olga Petrov works at Globex Corp.", { occurredAt: "2023-02-01T00:00:00Z" });
      const hooli = await ingest("Olga Petrov works at Hooli Corp.", { occurredAt: "2023-09-01T00:00:00Z" });
      const ids = async (body: Record<string, unknown>) =>
        (await post("/v1/recall", { query: "Where does Olga Petrov work?", ...body })).body.edges.map((e: any) => e.id);
      const spring = await ids({ asOf: "2023-06-30" });
      expect(spring).toContain(globex.edgeIds[0]);
      expect(spring).not.toContain(hooli.edgeIds[0]);
      const winter = await ids({ asOf: "2023-12-31" });
      expect(winter).toContain(hooli.edgeIds[0]);
      expect(winter).not.toContain(globex.edgeIds[0]);
      const before = await ids({ asOf: "2023-06-30", knownAt: "2025-03-09" });
      expect(before).not.toContain(globex.edgeIds[0]);
      expect(before).not.toContain(hooli.edgeIds[0]);
      const r = await post("/v1/recall", { query: "Olga Petrov", asOf: "2023-06-30" });
      expect(r.body).toMatchObject({ asOf: "2023-06-30T23:59:59.999Z", knownAt: "2025-03-10T09:00:00.000Z" });
      expect(r.body.episodes.map((e: any) => e.id)).toContain(globex.id);
      expect((await get(`/v1/edges/${globex.edgeIds[0]}`)).body).toMatchObject({
        tValid: "2023-02-01T00:00:00.000Z",
        tInvalid: "2023-09-01T00:00:00.000Z",
        tIngested: "2025-03-10T09:00:00.000Z",
        tExpired: null,
      });
    });

    it("a correction expires the wrong record: knownAt before it still sees what was believed", async () => {
      clock.set("2025-04-01T00:00:00Z");
      const paris = await ingest("Ivy Chen was born in Paris.");
      clock.set("2025-05-01T00:00:00Z");
      const lyon = await ingest("Ivy Chen was born in Lyon.");
      const ids = async (body: Record<string, unknown>) =>
        (await post("/v1/recall", { query: "Where was Ivy Chen born?", ...body })).body.edges.map((e: any) => e.id);
      const now = await ids({});
      expect(now).toContain(lyon.edgeIds[0]);
      expect(now).not.toContain(paris.edgeIds[0]);
      const believed = await ids({ knownAt: "2025-04-15" });
      expect(believed).toContain(paris.edgeIds[0]);
      expect(believed).not.toContain(lyon.edgeIds[0]);
      expect((await get(`/v1/edges/${paris.edgeIds[0]}`)).body).toMatchObject({ tInvalid: null, tExpired: "2025-05-01T00:00:00.000Z" });
      expect((await get(`/v1/edges/${paris.edgeIds[0]}`)).body.invalidationReason).toContain(lyon.edgeIds[0]);
    });

    it("an edge with a future end can be invalidated (end brought to now) and is superseded by a newer fact", async () => {
      clock.set("2025-06-01T00:00:00Z");
      const ken = await ingest("Ken Adams works at Cyberdyne Corp from 2020 until 2030.");
      const id = ken.edgeIds[0];
      expect((await get(`/v1/edges/${id}`)).body.tInvalid).toBe("2030-01-01T00:00:00.000Z");
      const r = await post(`/v1/edges/${id}/invalidate`, { reason: "left early" });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id, tInvalid: "2025-06-01T00:00:00.000Z", tExpired: null, invalidationReason: "left early" });
      expectError(await post(`/v1/edges/${id}/invalidate`, {}), 409);
      const aperture = await ingest("Lara Croft works at Aperture Corp from 2020 until 2030.");
      clock.set("2025-06-02T00:00:00Z");
      const mesa = await ingest("Lara Croft works at Black Mesa Corp.");
      const old = (await get(`/v1/edges/${aperture.edgeIds[0]}`)).body;
      expect(old).toMatchObject({ tInvalid: "2025-06-02T00:00:00.000Z", tExpired: null });
      expect(old.invalidationReason).toContain(mesa.edgeIds[0]);
      const current = (await post("/v1/recall", { query: "Where does Lara Croft work?" })).body.edges.map((e: any) => e.id);
      expect(current).toContain(mesa.edgeIds[0]);
      expect(current).not.toContain(aperture.edgeIds[0]);
    });

    it("metadata is kept as sent; only a slug-valued playbook feeds a playbook", async () => {
      const metadata = { playbook: "Bad Slug", nested: { n: 1 } };
      const r = await post("/v1/episodes", { content: "Rosa Diaz lives in Madrid.", metadata });
      expect(r.status).toBe(202);
      expect(r.body.metadata).toEqual(metadata);
      const done = await ingest("Rosa Diaz likes salsa dancing.", { metadata: { playbook: "Bad Slug" } });
      expect(done.metadata).toEqual({ playbook: "Bad Slug" });
      expect((await get(`/v1/episodes/${r.body.id}`)).body.metadata).toEqual(metadata);
      expectError(await get("/v1/playbooks/bad-slug"), 404);
      expect((await get("/v1/playbooks?limit=100")).body.items.map((p: any) => p.slug)).not.toContain("Bad Slug");
    });

    it("a playbook lists its valid facts with their edges, then statements that yielded no fact with their episodes", async () => {
      clock.set("2025-07-01T00:00:00Z");
      const slug = `ops-${t.framework}`;
      const quiet = await ingest("Nothing much happened on the call today.", { metadata: { playbook: slug } });
      const first = await get(`/v1/playbooks/${slug}`);
      expect(first.status).toBe(200);
      expect(first.body.edges).toEqual([]);
      expect(first.body.content).toContain("Nothing much happened on the call today.");
      expect(first.body.content).toContain(quiet.id);
      // the second sentence states nothing the extractor can hold as a fact
      const mixed = await ingest("Tara Novak lives in Oslo. Thanks again, see you soon!", { metadata: { playbook: slug } });
      const r = (await get(`/v1/playbooks/${slug}`)).body;
      expect(r.edges).toEqual(mixed.edgeIds);
      const lines = r.content.split("\n");
      const fact = lines.findIndex((l: string) => l.includes("Tara Novak lives in Oslo") && l.includes(mixed.edgeIds[0]));
      const statement = lines.findIndex((l: string) => l.includes("Thanks again, see you soon!") && l.includes(mixed.id));
      expect(fact).toBeGreaterThan(0);
      expect(statement).toBeGreaterThan(fact);
      expect(r.content).not.toMatch(/- Tara Novak lives in Oslo\. _\(episode/);
    });

    it("serves GET /openapi.yaml without auth", async () => {
      const r = await get("/openapi.yaml", {});
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toMatch(/yaml/);
      expect(r.text).toContain("openapi: 3.1.0");
      expect(r.text).toContain("/v1/recall:");
      expect(r.text).toContain("/v1/edges/{id}/invalidate:");
    });

    it("the OpenAPI document states what the server enforces", async () => {
      const text = (await get("/openapi.yaml", {})).text;
      // parsing 117 KB of YAML is the test's own work (about as long as the server's first build): outside the loop-delay guard
      const doc = await unguarded(() => parseYaml(text));
      const body = (path: string) => doc.paths[path].post.requestBody;
      // invalidate accepts no body at all (see the manual invalidation test)
      expect(body("/v1/edges/{id}/invalidate").required).toBe(false);
      expect(body("/v1/episodes").required).toBe(true);
      expect(body("/v1/recall").required).toBe(true);
      expect(body("/v1/recall").content["application/json"].schema.properties.query.minLength).toBe(1);
      expectError(await post("/v1/recall", { query: "" }), 400);
      expect(body("/v1/episodes").content["application/json"].schema.properties.content.minLength).toBe(1);
      expectError(await post("/v1/episodes", { content: "" }), 400);
    });

    it("quota 1: a failing call in flight never makes a concurrent good call answer 429", async () => {
      clock.set("2030-06-01T10:00:00Z");
      for (const key of ONE_KEYS) {
        const H = as(key);
        const [missing, ok] = await Promise.all([get("/one/v1/edges/nope", H), get("/one/v1/episodes", H)]);
        expectError(missing, 404);
        expect(ok.status).toBe(200);
        expect(ok.headers.get("ratelimit-remaining")).toBe("0");
        expectError(await get("/one/v1/episodes", H), 429);
      }
    });

    it("daily quota: exact under concurrent calls, 429 with headers, failures free, reset at midnight UTC", async () => {
      clock.set(`2030-0${1 + ["fastify", "express", "fetch"].indexOf(t.framework)}-01T10:00:00Z`);
      const Q = as(KEY_Q);
      const R = as(KEY_R);
      // 401 and 404 do not count
      expectError(await get("/small/v1/episodes/ep_missing", R), 404);
      expectError(await get("/small/v1/episodes/ep_missing", R), 404);
      const ok = await get("/small/v1/episodes", R);
      expect(ok.status).toBe(200);
      expect(ok.headers.get("ratelimit-limit")).toBe(String(QUOTA));
      expect(ok.headers.get("ratelimit-remaining")).toBe(String(QUOTA - 1));
      expect(Number(ok.headers.get("ratelimit-reset"))).toBe(14 * 3600);
      const results = await Promise.all(Array.from({ length: 3 * QUOTA }, () => get("/small/v1/episodes", Q)));
      expect(results.filter((r) => r.status === 200)).toHaveLength(QUOTA);
      const refused = results.filter((r) => r.status === 429);
      expect(refused).toHaveLength(2 * QUOTA);
      expectError(refused[0]!, 429);
      expect(refused[0]!.headers.get("retry-after")).toBe(String(14 * 3600));
      expect(refused[0]!.headers.get("ratelimit-remaining")).toBe("0");
      // brain R is unaffected by Q's exhaustion
      expect((await get("/small/v1/episodes", R)).status).toBe(200);
      clock.set(`2030-0${1 + ["fastify", "express", "fetch"].indexOf(t.framework)}-02T00:00:00Z`);
      const next = await get("/small/v1/episodes", Q);
      expect(next.status).toBe(200);
      expect(next.headers.get("ratelimit-remaining")).toBe(String(QUOTA - 1));
    });

    it("{content, metadata}: metadata.occurredAt is the reference time when occurredAt is absent; a bad one answers 400", async () => {
      clock.set("2026-01-01T00:00:00Z");
      const r = await post("/v1/episodes", { content: "Omar Farouk lives in Cairo.", metadata: { occurredAt: "2019-03-04T10:00:00Z" } });
      expect(r.status).toBe(202);
      expect(r.body.occurredAt).toBe("2019-03-04T10:00:00.000Z");
      expect(r.body.metadata).toEqual({ occurredAt: "2019-03-04T10:00:00Z" });
      const day = await ingest("Omar Farouk works at Nile Corp.", { metadata: { occurredAt: "2019-03-05" } });
      expect(day.occurredAt).toBe("2019-03-05T00:00:00.000Z");
      expect((await get(`/v1/edges/${day.edgeIds[0]}`)).body.tValid).toBe("2019-03-05T00:00:00.000Z");
      // the top-level field wins, and then the metadata value is only metadata
      const both = await post("/v1/episodes", { content: "x", occurredAt: "2020-01-01T00:00:00Z", metadata: { occurredAt: "never" } });
      expect(both.status).toBe(202);
      expect(both.body.occurredAt).toBe("2020-01-01T00:00:00.000Z");
      expect((await post("/v1/episodes", { content: "x", metadata: { occurredAt: null } })).body.occurredAt).toBe(
        "2026-01-01T00:00:00.000Z",
      );
      for (const bad of ["last tuesday", "2023-02-30", 1_700_000_000_000, { at: "2020-01-01" }, "x".repeat(70)]) {
        const refused = await post("/v1/episodes", { content: "x", metadata: { occurredAt: bad } });
        expectError(refused, 400);
        expect(refused.body.details).toEqual([{ path: "metadata.occurredAt", message: expect.stringContaining("YYYY-MM-DD") }]);
      }
    });

    it("recall asOf a past date lists the episodes its edges cite, whatever their occurredAt", async () => {
      clock.set("2026-02-01T00:00:00Z");
      const told = await ingest("Nadia Petrova works at Globex Corp from 2015 until 2018.");
      expect(told.occurredAt).toBe("2026-02-01T00:00:00.000Z");
      const later = await ingest("Nadia Petrova likes Globex Corp coffee.");
      const r = await post("/v1/recall", { query: "Where did Nadia Petrova work?", asOf: "2016-06-01" });
      expect(r.status).toBe(200);
      expect(r.body.edges.map((e: any) => e.id)).toContain(told.edgeIds[0]);
      const listed = r.body.episodes.map((e: any) => e.id);
      for (const e of r.body.edges) expect(listed).toContain(e.episodeId);
      expect(listed).toContain(told.id);
      // an episode that happened after asOf and that no returned edge cites stays out
      expect(r.body.edges.map((e: any) => e.episodeId)).not.toContain(later.id);
      expect(listed).not.toContain(later.id);
      expect(r.body.context).toContain(told.id);
    });

    it("null means absent on every optional field of memory's request bodies, as the OpenAPI document types them", async () => {
      clock.set("2026-03-01T00:00:00Z");
      const doc: any = await main.openapi();
      const edge = async () => (await ingest("Pia Lund lives in Malmo.")).edgeIds[0];
      const bodies: Record<string, { path: () => Promise<string>; base: Record<string, unknown>; ok: number }> = {
        "/v1/episodes": { path: async () => "/v1/episodes", base: { content: "Pia Lund works at Volvo." }, ok: 202 },
        "/v1/recall": { path: async () => "/v1/recall", base: { query: "Pia" }, ok: 200 },
        "/v1/episodes/batch": { path: async () => "/v1/episodes/batch", base: { episodes: [{ content: "Pia Lund lives in Lund." }] }, ok: 200 },
        "/v1/edges/{id}/invalidate": { path: async () => `/v1/edges/${await edge()}/invalidate`, base: {}, ok: 200 },
      };
      const tried: string[] = [];
      for (const [route, op] of Object.entries<any>(doc.paths)) {
        const schema = op.post?.requestBody?.content?.["application/json"]?.schema;
        if (!schema || route.includes("webhooks")) continue;
        expect(Object.keys(bodies)).toContain(route);
        const { path, base, ok } = bodies[route]!;
        for (const [name, prop] of Object.entries<any>(schema.properties ?? {})) {
          const nullable = [prop.type].flat().includes("null") || (prop.anyOf ?? []).some((s: any) => s.type === "null");
          if (!nullable || (schema.required ?? []).includes(name)) continue;
          const r = await post(await path(), { ...base, [name]: null });
          expect({ route, name, status: r.status, body: r.status === ok ? null : r.body }).toEqual({ route, name, status: ok, body: null });
          tried.push(`${route} ${name}`);
        }
      }
      expect(tried).toEqual(
        expect.arrayContaining(["/v1/recall limit", "/v1/recall asOf", "/v1/episodes occurredAt", "/v1/edges/{id}/invalidate reason"]),
      );
      expect((await post("/v1/recall", { query: "Pia", limit: null })).body.edges.length).toBeLessThanOrEqual(10);
    });

    it("a playbook's updatedAt moves when one of its facts is invalidated, manually or by a newer fact", async () => {
      clock.set("2026-04-01T00:00:00Z");
      const slug = `audit-${t.framework}`;
      const works = await ingest("Quinn Baker works at Hooli Corp.", { metadata: { playbook: slug } });
      const lives = await ingest("Quinn Baker lives in Austin.", { metadata: { playbook: slug } });
      const updatedAt = async () => (await get(`/v1/playbooks/${slug}`)).body.updatedAt;
      expect(await updatedAt()).toBe("2026-04-01T00:00:00.000Z");
      clock.set("2026-04-05T00:00:00Z");
      expect((await post(`/v1/edges/${works.edgeIds[0]}/invalidate`, {})).status).toBe(200);
      expect(await updatedAt()).toBe("2026-04-05T00:00:00.000Z");
      const listed = (await get("/v1/playbooks?limit=100")).body.items.find((p: any) => p.slug === slug);
      expect(listed.updatedAt).toBe("2026-04-05T00:00:00.000Z");
      // an episode outside the playbook supersedes one of its facts
      clock.set("2026-04-09T00:00:00Z");
      await ingest("Quinn Baker moved to Denver.");
      expect((await get(`/v1/edges/${lives.edgeIds[0]}`)).body.tInvalid).not.toBeNull();
      expect(await updatedAt()).toBe("2026-04-09T00:00:00.000Z");
    });

    it("only an invalidated edge carries an invalidationReason: an end the text gives is none", async () => {
      clock.set("2026-05-01T00:00:00Z");
      const ep = await ingest("Uma Stone works at Massive Dynamic Corp from 2012 until 2016.");
      const e = (await get(`/v1/edges/${ep.edgeIds[0]}`)).body;
      expect(e).toMatchObject({ tInvalid: "2016-01-01T00:00:00.000Z", invalidationReason: null, invalidatedBy: null });
      const listed = (await get(`/v1/edges?entityId=${e.source}&limit=100`)).body.items;
      for (const x of listed) expect(x.invalidationReason).toBeNull();
    });

    it("turns stored without a session id are recalled with their neighbours: the conversation is inferred from their times", async () => {
      clock.set("2031-01-01T12:00:00Z");
      const turn = (content: string, occurredAt: string) => ingest(content, { occurredAt, metadata: { speaker: content.split(":")[0] } });
      await turn("Ana: Which glaze did you pick for the teapot?", "2031-01-01T10:00:00Z");
      const answer = await turn("Ben: The celadon one, finally.", "2031-01-01T10:01:00Z");
      const later = await turn("Ben: The cobalt one, finally.", "2031-01-01T16:00:00Z");
      const ids = (await post("/v1/recall", { query: "teapot glaze" })).body.episodes.map((e: any) => e.id);
      // the answer names neither word: it is found through the question before it
      expect(ids).toContain(answer.id);
      // six hours later is another conversation
      expect(ids).not.toContain(later.id);
      expect((await get(`/v1/episodes/${answer.id}`)).body.metadata).toEqual({ speaker: "Ben" });
    });

    it("an empty content or query is named once in the details", async () => {
      const content = await post("/v1/episodes", { content: "" });
      expectError(content, 400);
      expect(content.body.details).toEqual([{ path: "content", message: "content must not be empty" }]);
      const blank = await post("/v1/episodes", { content: "  " });
      expect(blank.body.details).toEqual([{ path: "content", message: "content must not be empty" }]);
      const query = await post("/v1/recall", { query: "" });
      expectError(query, 400);
      expect(query.body.details).toEqual([{ path: "query", message: "query must not be empty" }]);
    });
  },
);

describe("memoryFromEnv", () => {
  it("registers MEMORY_API_KEYS and applies MEMORY_DAILY_QUOTA", async () => {
    const logs: string[] = [];
    const logger = { debug() {}, info: (m: string) => logs.push(m), warn() {}, error() {} };
    const s = await memoryFromEnv(
      { MEMORY_API_KEYS: "env_key_aaaaaaaaaaaaa=alpha,env_key_bbbbbbbbbbbbb=beta", MEMORY_DAILY_QUOTA: "2" },
      { logger },
    );
    try {
      const get = (key: string) => s.fetch(new Request("http://x/v1/episodes", { headers: { authorization: `Bearer ${key}` } }));
      expect((await get("env_key_aaaaaaaaaaaaa")).headers.get("ratelimit-limit")).toBe("2");
      expect((await get("env_key_aaaaaaaaaaaaa")).status).toBe(200);
      expect((await get("env_key_aaaaaaaaaaaaa")).status).toBe(429);
      expect((await get("env_key_bbbbbbbbbbbbb")).status).toBe(200);
      expect(logs.some((l) => l.includes("dev key"))).toBe(false);
    } finally {
      await s.dispose();
    }
  });

  it("prints one generated dev key when MEMORY_API_KEYS is unset", async () => {
    const logs: string[] = [];
    const logger = { debug() {}, info: (m: string) => logs.push(m), warn() {}, error() {} };
    const s = await memoryFromEnv({}, { logger });
    try {
      const key = /dev key for brain "dev": (\S+)/.exec(logs.join("\n"))?.[1];
      expect(key).toBeTruthy();
      const r = await s.fetch(new Request("http://x/v1/episodes", { headers: { authorization: `Bearer ${key}` } }));
      expect(r.status).toBe(200);
      expect(r.headers.get("ratelimit-limit")).toBe("1000");
    } finally {
      await s.dispose();
    }
  });

  it("serves the memory explorer page (opt-in) at /v1/explorer/ with no key and no quota spent; off without explorerScript", async () => {
    const logger = { debug() {}, info() {}, warn() {}, error() {} };
    const s = await memoryFromEnv({ MEMORY_API_KEYS: "env_key_explorer_aaaaaa=alpha", MEMORY_DAILY_QUOTA: "1" }, { logger });
    const off = createMemoryService({ worker: { start: false } });
    try {
      const page = await s.fetch(new Request("http://x/v1/explorer/"));
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("<mountkit-memory-explorer></mountkit-memory-explorer>");
      expect((await s.fetch(new Request("http://x/v1/explorer"))).status).toBe(308);
      // the page cost the brain nothing: its one call of the day is still there
      const api = await s.fetch(new Request("http://x/v1/episodes", { headers: { authorization: "Bearer env_key_explorer_aaaaaa" } }));
      expect(api.status).toBe(200);
      expect((await off.fetch(new Request("http://x/v1/explorer/"))).status).toBe(404);
    } finally {
      await s.dispose();
      await off.dispose();
    }
  });
});
