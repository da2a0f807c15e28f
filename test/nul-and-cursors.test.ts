// NUL in any text and cursors that do not decode to a position the service wrote get the same 400 on every
// adapter and every store (issue #10, break 3): PostgreSQL used to answer 500 where SQLite answered 4xx.
import { createEntriesService, jwtVerifier, signHs256 } from "@mountkit/entries";
import { createMemoryService } from "@mountkit/memory";
import { createSupportService } from "@mountkit/support";
import { describe, expect, it } from "vitest";
import { france } from "../packages/entries/test/fixtures/countries.js";
import { call, forEachAdapter } from "./harness.js";

const SECRET = "nul-and-cursors-secret-0123456789abcdef";
const KEY = "mk_nul_cursor_key_0123456789";
const SPI = "spi-token-nul";
const AGENT = "agent-token-nul";
const CUSTOMER = `cust_${crypto.randomUUID()}`;
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

/** A 400 with the service's error body and no internals. */
function expect400(r: { status: number; body: any; text: string }, what: string) {
  expect(r.status, `${what}: ${r.text.slice(0, 300)}`).toBe(400);
  expect(typeof r.body?.error, what).toBe("string");
  expect(r.text, what).not.toMatch(/invalid byte sequence|invalid input syntax|\.ts:\d+|node_modules/);
}

forEachAdapter(
  "NUL and cursors",
  async () => {
    const memory = createMemoryService({ dailyQuota: 100_000 });
    await memory.keys.create({ brainId: "nul", key: KEY });
    return [
      createEntriesService({ auth: jwtVerifier({ secret: SECRET }) }),
      memory,
      createSupportService({ products: ["demo"], limits: { rateLimit: 100_000 }, spiToken: SPI, agentToken: AGENT, spiProduct: "demo" }),
    ];
  },
  (t) => {
    const u = (p: string) => `${t.url}${p}`;
    const entriesAuth = async () => ({ authorization: `Bearer ${await signHs256(SECRET, { sub: "alice" })}` });
    const memoryAuth = { authorization: `Bearer ${KEY}` };
    const q = (extra = "") => `productSlug=demo&customerId=${CUSTOMER}${extra}`;

    describe("support", () => {
      let conversationId = "";
      it("creates a conversation to aim at", async () => {
        const r = await call(u("/api/conversations"), { body: { productSlug: "demo", customerId: CUSTOMER, message: "hello" } });
        expect(r.status).toBe(200);
        conversationId = r.body.conversationId;
      });

      it("refuses NUL in query values, path ids and body strings with 400 on interface A", async () => {
        expect400(await call(u(`/api/conversations/list?productSlug=demo%00&customerId=${CUSTOMER}`)), "list productSlug");
        expect400(await call(u(`/api/conversations/find?${q("&x=%00")}`)), "find extra query");
        expect400(await call(u(`/api/conversations/${conversationId}%00?${q()}`)), "detail id");
        expect400(
          await call(u(`/api/conversations/conv%00x/messages`), { body: { productSlug: "demo", customerId: CUSTOMER, message: "x" } }),
          "post id",
        );
        const bodies: Array<[string, string, Record<string, unknown>]> = [
          ["create message", "/api/conversations", { productSlug: "demo", customerId: CUSTOMER, message: "a\u0000b" }],
          ["create subject", "/api/conversations", { productSlug: "demo", customerId: CUSTOMER, message: "a", subject: "\u0000" }],
          ["create key", "/api/conversations", { productSlug: "demo", customerId: CUSTOMER, message: "a", "k\u0000": 1 }],
          ["create slug", "/api/conversations", { productSlug: "de\u0000mo", customerId: CUSTOMER, message: "a" }],
          [
            "post message",
            `/api/conversations/${conversationId}/messages`,
            { productSlug: "demo", customerId: CUSTOMER, message: "\u0000" },
          ],
          [
            "post clientMessageId",
            `/api/conversations/${conversationId}/messages`,
            { productSlug: "demo", customerId: CUSTOMER, message: "x", clientMessageId: "m\u0000" },
          ],
        ];
        for (const [what, path, body] of bodies) expect400(await call(u(path), { body }), what);
        // nothing was written by any of them
        const detail = await call(u(`/api/conversations/${conversationId}?${q()}`));
        expect(detail.body.comments).toEqual([]);
      });

      it("refuses NUL on interface B and the agent side, and cursors that are not positions this service wrote", async () => {
        const spi = { authorization: `Bearer ${SPI}` };
        const agent = { authorization: `Bearer ${AGENT}` };
        expect400(await call(u("/care/conversations?customerId=%00"), { headers: spi }), "care list");
        expect400(await call(u(`/care/conversations/${conversationId}%00?customerId=${CUSTOMER}`), { headers: spi }), "care detail");
        expect400(
          await call(u(`/care/conversations/${conversationId}/messages`), {
            headers: spi,
            body: { customerId: CUSTOMER, conversationId, body: "x\u0000" },
          }),
          "care post",
        );
        expect400(await call(u("/agent/conversations?productSlug=demo&label=l%00"), { headers: agent }), "agent label");
        expect400(await call(u("/agent/conversations?productSlug=demo&assignee=%00"), { headers: agent }), "agent assignee");
        for (const cursor of [
          b64([1.5, "conv_x"]),
          b64(["2030-01-01T00:00:00.000Z", "conv\u0000x"]),
          b64(["not a date", "conv_x"]),
          b64(["2030-01-01T00:00:00.000Z", ""]),
          "!!",
        ])
          expect400(await call(u(`/agent/conversations?productSlug=demo&cursor=${cursor}`), { headers: agent }), `agent cursor ${cursor}`);
        const ok = await call(u("/agent/conversations?productSlug=demo&limit=1"), { headers: agent });
        expect(ok.status).toBe(200);
      });
    });

    describe("memory", () => {
      it("refuses NUL in content, metadata (keys too), recall queries and ids with 400", async () => {
        const bodies: Array<[string, string, Record<string, unknown>]> = [
          ["content", "/v1/episodes", { content: "Alice\u0000 lives in Paris." }],
          ["metadata value", "/v1/episodes", { content: "x", metadata: { note: "a\u0000" } }],
          ["metadata key", "/v1/episodes", { content: "x", metadata: { "k\u0000": "v" } }],
          ["playbook", "/v1/episodes", { content: "x", metadata: { playbook: "p\u0000" } }],
          ["recall", "/v1/recall", { query: "Alice\u0000" }],
          ["invalidate reason", "/v1/edges/edge_x/invalidate", { reason: "\u0000" }],
        ];
        for (const [what, path, body] of bodies) expect400(await call(u(path), { headers: memoryAuth, body }), what);
        for (const path of ["/v1/episodes/ep%00", "/v1/edges/e%00", "/v1/entities/x%00", "/v1/playbooks/p%00"])
          expect400(await call(u(path), { headers: memoryAuth }), path);
        const list = await call(u("/v1/episodes"), { headers: memoryAuth });
        expect(list.status).toBe(200);
        expect(list.body.items).toEqual([]);
      });

      it("refuses cursors holding a fraction, 1e20, a negative time or a NUL id", async () => {
        for (const cursor of [b64([1.5, "ep_x"]), b64([1e20, "ep_x"]), b64([-1, "ep_x"]), b64([1, "ep\u0000"]), b64([1, "ep_x", 3])])
          for (const path of ["/v1/episodes", "/v1/playbooks"])
            expect400(await call(u(`${path}?cursor=${cursor}`), { headers: memoryAuth }), `${path} ${cursor}`);
      });
    });

    describe("entries", () => {
      it("refuses NUL in body strings, query filters and ids with 400", async () => {
        const headers = await entriesAuth();
        const bodies = [
          { name: "Fr\u0000ance", description: "d", customData: france },
          { name: "France", description: "d", customData: { ...france, officialName: "\u0000" } },
          { name: "France", description: "d", customData: france, tags: ["t\u0000"] },
        ];
        for (const body of bodies)
          expect400(await call(u("/api/v1/types/countries/data"), { headers, body }), JSON.stringify(body).slice(0, 60));
        for (const path of [
          "/api/v1/types/countries/data?tag=a%00",
          "/api/v1/types/countries/data?ownerId=%00",
          "/api/v1/types/countries/data?q=Fr%00",
          "/api/v1/types/countries/data/ent%00",
        ])
          expect400(await call(u(path), { headers }), path);
        const list = await call(u("/api/v1/types/countries/data"), { headers });
        expect(list.status).toBe(200);
        expect(list.body.items ?? list.body.data ?? list.body).not.toContainEqual(expect.objectContaining({ name: "Fr\u0000ance" }));
      });

      it("refuses list and inventory cursors that do not decode to a safe integer position", async () => {
        const headers = await entriesAuth();
        for (const cursor of [b64(["e", 1.5, "ent_x"]), b64(["e", 1e20, "ent_x"]), b64(["e", -5, "ent_x"]), b64(["e", 1, "ent\u0000"])])
          expect400(await call(u(`/api/v1/types/countries/data?cursor=${cursor}`), { headers }), `list ${cursor}`);
        for (const cursor of [b64(["o", 1.5]), b64(["o", 1e20])])
          expect400(await call(u(`/api/v1/types/apis/data/ent_x/inventory?cursor=${cursor}`), { headers }), `inventory ${cursor}`);
      });
    });
  },
);
