// Support's wire against its own OpenAPI documents (A, B, agent): every route's success and documented errors, on every host.
import { randomUUID } from "node:crypto";
import { createSupportService } from "@mountkit/support";
import { beforeAll, expect, it } from "vitest";
import { exchange } from "./exchange.js";
import { forEachHost } from "./hosts.js";
import { OpenApiContract } from "./openapi-check.js";

const SPI = "spi-token-contract";
const AGENT = "agent-token-contract";
const cust = () => `cust_${randomUUID()}`;

forEachHost(
  "support contract",
  () => [
    createSupportService({
      products: ["demo", { slug: "tiny", limits: { rateLimit: 1, rateWindowMs: 60_000 } }],
      limits: { rateLimit: 100_000 },
      spiToken: SPI,
      agentToken: AGENT,
      basePath: "/svc",
    }),
  ],
  (h) => {
    let A: OpenApiContract;
    let B: OpenApiContract;
    let G: OpenApiContract;
    const svc = "/svc";
    const spi = { authorization: `Bearer ${SPI}` };
    const agent = { authorization: `Bearer ${AGENT}` };
    const q = (customerId: string, productSlug = "demo") => `productSlug=${productSlug}&customerId=${encodeURIComponent(customerId)}`;

    beforeAll(async () => {
      const load = async (path: string, id: string) => {
        const r = await fetch(`${h.base}${svc}${path}`);
        expect(r.status).toBe(200);
        const doc = await r.json();
        // the document points its clients at the framework mount; its paths carry the service's basePath
        expect(doc.servers).toEqual([{ url: h.prefix || "/" }]);
        return new OpenApiContract(doc, id);
      };
      A = await load("/api/conversations/openapi.json", "a.json");
      B = await load("/care/openapi.json", "b.json");
      G = await load("/agent/openapi.json", "agent.json");
    });

    it("interface A: every route's success, its documented errors and the edge cases of issue 17", async () => {
      const c = cust();
      const base = `${svc}/api/conversations`;
      // subject and clientMessageId as JSON null: the same as leaving them out
      const created = await exchange(A, h.base, base, {
        body: { productSlug: "demo", customerId: c, message: "First line\nmore", subject: null, clientMessageId: null },
        valid: true,
      });
      expect(created.status).toBe(200);
      const id = created.body.conversationId as string;
      const detail = await exchange(A, h.base, `${base}/${id}?${q(c)}`);
      expect(detail.body.issue.title).toBe("First line");
      // whitespace-only subject: the default, as on interface B
      const blank = await exchange(A, h.base, base, {
        body: { productSlug: "demo", customerId: c, message: "Hi there", subject: "   " },
        valid: true,
      });
      expect((await exchange(A, h.base, `${base}/${blank.body.conversationId}?${q(c)}`)).body.issue.title).toBe("Hi there");
      // any clientMessageId of 1..200 characters, even one that looks like the hidden block's syntax
      const odd = "msg/1+2;x=y --> <!-- cs:évil";
      const sent = await exchange(A, h.base, `${base}/${id}/messages`, {
        body: { productSlug: "demo", customerId: c, message: "second", clientMessageId: odd },
        valid: true,
      });
      expect(sent.status).toBe(200);
      const again = await exchange(A, h.base, `${base}/${id}/messages`, {
        body: { productSlug: "demo", customerId: c, message: "second", clientMessageId: odd },
        valid: true,
      });
      expect(again.body).toEqual(sent.body);
      const stored = (await exchange(A, h.base, `${base}/${id}?${q(c)}`)).body.comments.at(-1).body as string;
      expect(stored.startsWith("second\n\n<!-- cs:")).toBe(true);
      expect(stored.match(/<!-- cs:/g)).toHaveLength(1);
      expect(stored).toContain(`clientMessageId=${encodeURIComponent(odd)}`);
      const tooLong = await exchange(A, h.base, `${base}/${id}/messages`, {
        body: { productSlug: "demo", customerId: c, message: "x", clientMessageId: "m".repeat(201) },
        valid: false,
      });
      expect(tooLong.status).toBe(400);

      expect((await exchange(A, h.base, `${base}/list?${q(c)}`)).body.conversations).toHaveLength(2);
      expect((await exchange(A, h.base, `${base}/find?${q(c)}`)).body).toEqual({ found: true, conversationId: expect.any(String) });
      const stream = await exchange(A, h.base, `${base}/${id}/stream?${q(c)}`);
      expect(stream.status).toBe(200);
      expect(stream.text).toContain("retry:");

      // documented errors
      expect(
        (await exchange(A, h.base, base, { body: { productSlug: "demo", customerId: "nope", message: "x" }, valid: false })).status,
      ).toBe(400);
      expect((await exchange(A, h.base, base, { raw: "{not json", headers: { "content-type": "application/json" } })).status).toBe(400);
      expect((await exchange(A, h.base, base, { raw: "a=b", headers: { "content-type": "text/plain" } })).status).toBe(415);
      expect((await exchange(A, h.base, base, { body: { productSlug: "demo", customerId: c, message: "x".repeat(70_000) } })).status).toBe(
        413,
      );
      expect((await exchange(A, h.base, base, { body: { productSlug: "nope", customerId: c, message: "x" }, valid: true })).status).toBe(
        404,
      );
      expect((await exchange(A, h.base, `${base}/list?productSlug=demo`)).status).toBe(400);
      expect((await exchange(A, h.base, `${base}/find?${q(c, "nope")}`)).status).toBe(404);
      expect((await exchange(A, h.base, `${base}/missing?${q(c)}`)).status).toBe(404);
      expect((await exchange(A, h.base, `${base}/missing/stream?${q(c)}`)).status).toBe(404);
      expect(
        (await exchange(A, h.base, `${base}/${id}/messages`, { body: { productSlug: "demo", customerId: cust(), message: "x" } })).status,
      ).toBe(404);
      const closed = await exchange(A, h.base, `${base}/${id}/close`, {
        body: { productSlug: "demo", customerId: c, action: "close" },
        valid: true,
      });
      expect(closed.status).toBe(200);
      expect(
        (await exchange(A, h.base, `${base}/${id}/messages`, { body: { productSlug: "demo", customerId: c, message: "late" } })).status,
      ).toBe(409);
      expect(
        (await exchange(A, h.base, `${base}/${id}/close`, { body: { productSlug: "demo", customerId: c, action: "shut" }, valid: false }))
          .status,
      ).toBe(400);
      // rate limit: 429 with Retry-After, documented
      const t = cust();
      await exchange(A, h.base, `${base}/list?${q(t, "tiny")}`);
      const limited = await exchange(A, h.base, `${base}/list?${q(t, "tiny")}`);
      expect(limited.status).toBe(429);
    });

    it("interface B: body null is an empty message, whitespace subject gets the default, every documented error", async () => {
      const c = cust();
      const base = `${svc}/care/conversations`;
      const created = await exchange(B, h.base, base, { headers: spi, body: { customerId: c, subject: "  ", body: null }, valid: true });
      expect(created.status).toBe(200);
      const id = created.body.conversationId as string;
      const d = await exchange(B, h.base, `${base}/${id}?customerId=${c}`, { headers: spi });
      expect(d.body.subject).toBe("Support request");
      expect(d.body.messages[0].body).toBe("");
      const posted = await exchange(B, h.base, `${base}/${id}/messages`, {
        headers: spi,
        body: { customerId: c, conversationId: id, body: null },
        valid: true,
      });
      expect(posted.status).toBe(200);
      expect((await exchange(B, h.base, `${base}?customerId=${c}`, { headers: spi })).body.conversations).toHaveLength(1);
      expect(
        (
          await exchange(B, h.base, `${base}/${id}/close`, {
            headers: spi,
            body: { customerId: c, conversationId: id, action: "resolve" },
            valid: true,
          })
        ).status,
      ).toBe(204);

      expect((await exchange(B, h.base, `${base}?customerId=${c}`)).status).toBe(401);
      expect((await exchange(B, h.base, `${base}?customerId=bad`, { headers: spi })).status).toBe(400);
      expect((await exchange(B, h.base, `${base}/nope?customerId=${c}`, { headers: spi })).status).toBe(404);
      const mismatch = await exchange(B, h.base, `${base}/${id}/messages`, {
        headers: spi,
        body: { customerId: c, conversationId: "other", body: "x" },
        valid: true,
      });
      expect(mismatch.status).toBe(400);
      expect((await exchange(B, h.base, base, { headers: { ...spi, "content-type": "text/plain" }, raw: "x" })).status).toBe(415);
      expect(
        (await exchange(B, h.base, base, { headers: spi, body: { customerId: c, subject: "s", body: "x".repeat(70_000) } })).status,
      ).toBe(413);
      expect(
        (await exchange(B, h.base, base, { headers: spi, body: { customerId: c, subject: "s", body: "" }, valid: false })).status,
      ).toBe(400);
    });

    it("agent side: every route's success and its documented errors", async () => {
      const c = cust();
      const id = (await exchange(A, h.base, `${svc}/api/conversations`, { body: { productSlug: "demo", customerId: c, message: "help" } }))
        .body.conversationId as string;
      const base = `${svc}/agent/conversations`;
      expect((await exchange(G, h.base, `${base}?productSlug=demo`, { headers: agent })).status).toBe(200);
      const found = (await exchange(G, h.base, `${base}?productSlug=demo&q=${c}`, { headers: agent })).body.items;
      expect(found.map((x: { id: string }) => x.id)).toEqual([id]);
      expect((await exchange(G, h.base, `${base}/${id}`, { headers: agent })).body.customerId).toBe(c);
      const reply = await exchange(G, h.base, `${base}/${id}/messages`, {
        headers: agent,
        body: { body: "on it", author: "ann" },
        valid: true,
      });
      expect(reply.status).toBe(200);
      const mid = reply.body.id as string;
      expect(
        (
          await exchange(G, h.base, `${base}/${id}/messages/${mid}`, {
            method: "PATCH",
            headers: agent,
            body: { body: "edited" },
            valid: true,
          })
        ).status,
      ).toBe(200);
      expect((await exchange(G, h.base, `${base}/${id}/messages/${mid}`, { method: "DELETE", headers: agent })).status).toBe(204);
      expect(
        (await exchange(G, h.base, `${base}/${id}/labels`, { method: "PUT", headers: agent, body: { labels: ["vip"] }, valid: true }))
          .status,
      ).toBe(200);
      expect(
        (await exchange(G, h.base, `${base}/${id}/assignee`, { method: "PUT", headers: agent, body: { assignee: null }, valid: true }))
          .status,
      ).toBe(200);
      expect(
        (await exchange(G, h.base, `${base}/${id}/status`, { method: "PUT", headers: agent, body: { status: "resolved" }, valid: true }))
          .status,
      ).toBe(200);
      expect(
        (await exchange(G, h.base, `${base}/${id}/status`, { method: "PUT", headers: agent, body: { status: "nope" }, valid: false }))
          .status,
      ).toBe(400);
      expect((await exchange(G, h.base, `${base}?productSlug=demo`)).status).toBe(401);
      expect((await exchange(G, h.base, `${base}?productSlug=demo&limit=0`, { headers: agent })).status).toBe(400);
      expect((await exchange(G, h.base, `${base}/missing`, { headers: agent })).status).toBe(404);
      expect(
        (await exchange(G, h.base, `${base}/${id}/messages`, { headers: { ...agent, "content-type": "text/plain" }, raw: "x" })).status,
      ).toBe(415);
      expect((await exchange(G, h.base, `${base}/${id}`, { method: "DELETE", headers: agent })).status).toBe(204);
      expect((await exchange(G, h.base, `${base}/${id}`, { headers: agent })).status).toBe(404);
    });
  },
);
