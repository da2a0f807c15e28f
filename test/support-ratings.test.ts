// The ratings list for agents (GET /agent/ratings, docs/support.md#ratings) under Express, Fastify and fetch on real
// sockets; the SQL projects rerun it on SQLite and PostgreSQL. Customers rate through interface A; agents list the
// ratings newest first with filters, pages (`Link: rel="next"`) and a summary, and never see another product's.
import { createSupportService, spiBackend } from "@mountkit/support";
import { beforeAll, describe, expect, it } from "vitest";
import { call, forEachAdapter } from "./harness.js";

const SPI = "spi-token-ratings-0123456789";
const AGENT = "agent-token-ratings-0123456789";
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const cust = () => `cust_${crypto.randomUUID()}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nextOf = (link: string | null) => (link ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined);
let selfUrl = "";

forEachAdapter(
  "support ratings for agents",
  () => [
    createSupportService({
      products: ["rated", "other", "empty", { slug: "remote", backend: spiBackend({ baseUrl: () => selfUrl, token: SPI }) }],
      spiToken: SPI,
      agentToken: AGENT,
      limits: { rateLimit: 100_000, customerRateLimit: 100_000 },
    }),
  ],
  (t) => {
    const agent = (query: string) => call(`${t.url}/agent/ratings?${query}`, { headers: bearer(AGENT) });
    /** A conversation the customer opens, resolves and rates; answers what the rating route kept. */
    async function rated(productSlug: string, subject: string, score: number, comment?: string) {
      const customerId = cust();
      const c = await call(`${t.url}/api/conversations`, { body: { productSlug, customerId, subject, message: `about ${subject}` } });
      expect(c.status, c.text).toBe(200);
      const id = c.body.conversationId as string;
      const closed = await call(`${t.url}/api/conversations/${id}/close`, { body: { productSlug, customerId, action: "resolve" } });
      expect(closed.status, closed.text).toBe(200);
      const r = await call(`${t.url}/api/conversations/${id}/rating`, {
        body: { productSlug, customerId, score, ...(comment === undefined ? {} : { comment }) },
      });
      expect(r.status, r.text).toBe(200);
      // distinct ratedAt instants (ms), so newest-first is the order of creation
      await sleep(3);
      return { id, customerId, subject, ...(r.body.rating as { score: number; comment: string | null; ratedAt: string }) };
    }

    type Made = Awaited<ReturnType<typeof rated>>;
    const made: Made[] = [];
    let foreign: Made;
    beforeAll(async () => {
      selfUrl = t.url;
      for (const [i, score] of [5, 3, 4, 5, 1, 2, 5].entries()) made.push(await rated("rated", `Order ${i}`, score, i % 2 ? `comment ${i}` : undefined));
      foreign = await rated("other", "Elsewhere", 1, "not yours");
    });
    const newestFirst = () => [...made].reverse();
    const asListed = (m: Made) => ({
      conversationId: m.id,
      subject: m.subject,
      customerId: m.customerId,
      assignee: null,
      score: m.score,
      comment: m.comment,
      ratedAt: m.ratedAt,
    });

    it("lists a product's ratings newest first with a summary over the filter; another product's never", async () => {
      const r = await agent("productSlug=rated");
      expect(r.status, r.text).toBe(200);
      expect(r.body.items).toEqual(newestFirst().map(asListed));
      expect(r.body.next).toBeNull();
      expect(r.headers.get("link")).toBeNull();
      const sum = made.reduce((s, m) => s + m.score, 0);
      expect(r.body.summary).toEqual({
        count: made.length,
        average: Math.round((sum / made.length) * 100) / 100,
        byScore: { 1: 1, 2: 1, 3: 1, 4: 1, 5: 3 },
      });
      expect(JSON.stringify(r.body)).not.toContain(foreign.id);
      const other = await agent("productSlug=other");
      expect(other.body.items.map((x: { conversationId: string }) => x.conversationId)).toEqual([foreign.id]);
      expect(other.body.summary).toEqual({ count: 1, average: 1, byScore: { 1: 1, 2: 0, 3: 0, 4: 0, 5: 0 } });
      const none = await agent("productSlug=empty");
      expect(none.body).toEqual({ items: [], summary: { count: 0, average: null, byScore: { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0 } }, next: null });
    });

    it("filters by score and by a since/until window; the summary follows the filter", async () => {
      const fives = await agent("productSlug=rated&score=5");
      expect(fives.status, fives.text).toBe(200);
      expect(fives.body.items).toEqual(newestFirst().filter((m) => m.score === 5).map(asListed));
      expect(fives.body.summary).toEqual({ count: 3, average: 5, byScore: { 1: 0, 2: 0, 3: 0, 4: 0, 5: 3 } });
      // [made[2].ratedAt, made[5].ratedAt): the third to the fifth rating
      const since = made[2]!.ratedAt;
      const until = made[5]!.ratedAt;
      const window = await agent(`productSlug=rated&since=${since}&until=${until}`);
      expect(window.status, window.text).toBe(200);
      const inWindow = newestFirst().filter((m) => m.ratedAt >= since && m.ratedAt < until);
      expect(inWindow.map((m) => m.id)).toEqual([made[4]!.id, made[3]!.id, made[2]!.id]);
      expect(window.body.items).toEqual(inWindow.map(asListed));
      expect(window.body.summary).toMatchObject({ count: 3, byScore: { 1: 1, 2: 0, 3: 0, 4: 1, 5: 1 }, average: 3.33 });
      // a timestamp without milliseconds compares as the instant it names
      const later = new Date(Date.parse(made[6]!.ratedAt) + 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
      expect((await agent(`productSlug=rated&since=${later}`)).body.summary.count).toBe(0);
      expect((await agent(`productSlug=rated&until=${later}`)).body.summary.count).toBe(made.length);
    });

    it("pages with Link rel=next (same filter, a new cursor) and the summary on every page", async () => {
      const seen: string[] = [];
      let url: string | undefined = `${t.url}/agent/ratings?productSlug=rated&limit=2&score=5`;
      let pages = 0;
      while (url) {
        const r = await call(url, { headers: bearer(AGENT) });
        expect(r.status, r.text).toBe(200);
        expect(r.body.items.length).toBeLessThanOrEqual(2);
        expect(r.body.summary.count).toBe(3);
        seen.push(...r.body.items.map((x: { conversationId: string }) => x.conversationId));
        // the Link URL is the path under the service (same origin), with the filter kept
        const link = nextOf(r.headers.get("link"));
        const next = link ? new URL(link, t.url).href : undefined;
        if (next) {
          expect(new URL(next).searchParams.get("cursor")).toBe(r.body.next);
          expect(new URL(next).searchParams.get("score")).toBe("5");
        }
        else expect(r.body.next).toBeNull();
        url = next;
        pages++;
      }
      expect(pages).toBe(2);
      expect(seen).toEqual(newestFirst().filter((m) => m.score === 5).map((m) => m.id));
      const all: string[] = [];
      let cursor: string | null = null;
      do {
        const r = await agent(`productSlug=rated&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
        all.push(...r.body.items.map((x: { conversationId: string }) => x.conversationId));
        cursor = r.body.next;
      } while (cursor);
      expect(all).toEqual(newestFirst().map((m) => m.id));
    });

    it("shows a rating again replaced and the assignee; a deleted conversation's rating leaves the list", async () => {
      const m = await rated("empty", "Rerated", 2, "slow");
      const again = await call(`${t.url}/api/conversations/${m.id}/rating`, {
        body: { productSlug: "empty", customerId: m.customerId, score: 4, comment: "better now" },
      });
      expect(again.status, again.text).toBe(200);
      const assigned = await call(`${t.url}/agent/conversations/${m.id}/assignee`, {
        method: "PUT",
        headers: bearer(AGENT),
        body: { assignee: "ana" },
      });
      expect(assigned.status, assigned.text).toBe(200);
      const r = await agent("productSlug=empty");
      expect(r.body.items).toEqual([{ ...asListed(m), assignee: "ana", score: 4, comment: "better now", ratedAt: again.body.rating.ratedAt }]);
      expect(r.body.summary).toEqual({ count: 1, average: 4, byScore: { 1: 0, 2: 0, 3: 0, 4: 1, 5: 0 } });
      const del = await call(`${t.url}/agent/conversations/${m.id}`, { method: "DELETE", headers: bearer(AGENT) });
      expect(del.status, del.text).toBe(204);
      expect((await agent("productSlug=empty")).body).toMatchObject({ items: [], summary: { count: 0, average: null } });
    });

    describe("refusals", () => {
      it("401 without the agent token (or with another token), 404 for an unknown product, 501 on an external backend", async () => {
        for (const headers of [{}, bearer(SPI), bearer("nope")]) {
          const r = await call(`${t.url}/agent/ratings?productSlug=rated`, { headers });
          expect(r.status, r.text).toBe(401);
          expect(r.text).not.toContain("Order");
        }
        expect((await agent("productSlug=nowhere")).status).toBe(404);
        const remote = await agent("productSlug=remote");
        expect(remote.status, remote.text).toBe(501);
        expect(remote.body).toMatchObject({ error: expect.any(String), requestId: expect.any(String) });
      });

      it("400 for a score outside 1..5, a bad instant, a bad limit or a cursor this API did not write", async () => {
        for (const q of ["score=0", "score=6", "score=x", "since=yesterday", "until=2026-13-01T00:00:00Z", "limit=0", "limit=201", "cursor=abc"]) {
          const r = await agent(`productSlug=rated&${q}`);
          expect(r.status, `${q}: ${r.text}`).toBe(400);
        }
      });
    });
  },
);
