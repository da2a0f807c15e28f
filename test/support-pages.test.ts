// Support interface A under load from one client (issue #10, break 8), on every adapter and store: /list pages
// with `limit` and a cursor (next page in `Link`), /find stays two reads, a per-customer rate limit inside
// the product's.
import { createSupportService, spiBackend } from "@mountkit/support";
import { describe, expect, it } from "vitest";
import { call, forEachAdapter } from "./harness.js";

const SPI = "spi-token-pages";
const cust = () => `cust_${crypto.randomUUID()}`;
let selfUrl = "";

forEachAdapter(
  "support pages and per-customer limits",
  () => [
    createSupportService({
      products: ["demo", { slug: "metered", limits: { rateLimit: 10, customerRateLimit: 3, rateWindowMs: 60_000 } }],
      limits: { rateLimit: 100_000, customerRateLimit: 100_000 },
      spiToken: SPI,
    }),
    createSupportService({ products: ["demo"], basePath: "/sup", limits: { rateLimit: 100_000, customerRateLimit: 100_000 } }),
    // interface B has no pages: this backend cuts them from the remote's whole list
    createSupportService({
      products: [{ slug: "remote", backend: spiBackend({ baseUrl: () => selfUrl, token: SPI }) }],
      basePath: "/proxy",
      limits: { rateLimit: 100_000, customerRateLimit: 100_000 },
    }),
  ],
  (t) => {
    const u = (p: string) => `${t.url}${p}`;
    const create = async (customerId: string, o: { base?: string; productSlug?: string } = {}) => {
      const r = await call(u(`${o.base ?? ""}/api/conversations`), {
        body: { productSlug: o.productSlug ?? "demo", customerId, message: "hello" },
      });
      expect(r.status, r.text).toBe(200);
      return r.body.conversationId as string;
    };
    const list = (customerId: string, extra = "", o: { base?: string; productSlug?: string } = {}) =>
      call(u(`${o.base ?? ""}/api/conversations/list?productSlug=${o.productSlug ?? "demo"}&customerId=${customerId}${extra}`));
    const nextOf = (link: string | null) => (link ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined);

    /** Follows `Link: rel="next"` from the first page; answers every page's ids. */
    async function walk(first: string): Promise<string[][]> {
      const pages: string[][] = [];
      let url: string | undefined = first;
      while (url) {
        const r = await call(u(url));
        expect(r.status, r.text).toBe(200);
        expect(Object.keys(r.body)).toEqual(["conversations"]);
        pages.push(r.body.conversations.map((c: { id: string }) => c.id));
        url = nextOf(r.headers.get("link"));
        expect(pages.length).toBeLessThan(100);
      }
      return pages;
    }

    it("records the server url for the SPI client backend", () => {
      selfUrl = t.url;
    });

    describe("GET /api/conversations/list", () => {
      it("pages by `limit`, the next page's URL in Link, without gaps or repeats, most recent activity first", async () => {
        const c = cust();
        for (let i = 0; i < 7; i++) await create(c);
        const all = (await list(c, "&limit=200")).body.conversations.map((x: { id: string }) => x.id);
        expect(all).toHaveLength(7);
        const pages = await walk(`/api/conversations/list?productSlug=demo&customerId=${c}&limit=3`);
        expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
        expect(pages.flat()).toEqual(all);
        // another customer's conversations never appear, on any page
        const other = cust();
        await create(other);
        expect((await walk(`/api/conversations/list?productSlug=demo&customerId=${c}&limit=2`)).flat()).toEqual(all);
      });

      it("defaults to 50 per page and refuses a limit outside 1..200 or a foreign cursor with 400", async () => {
        const c = cust();
        for (let i = 0; i < 51; i++) await create(c);
        const first = await list(c);
        expect(first.body.conversations).toHaveLength(50);
        const next = nextOf(first.headers.get("link"));
        expect(next).toMatch(/^\/api\/conversations\/list\?productSlug=demo&customerId=cust_[^&]+&limit=50&cursor=[A-Za-z0-9_-]+$/);
        const rest = await call(u(next!));
        expect(rest.body.conversations).toHaveLength(1);
        expect(rest.headers.get("link")).toBeNull();
        expect((await list(c, "&limit=200")).body.conversations).toHaveLength(51);
        for (const bad of ["&limit=0", "&limit=201", "&limit=abc", "&limit=1.5", "&cursor=nope", "&cursor=WzEuNSwiYyJd"]) {
          const r = await list(c, bad);
          expect(r.status, bad).toBe(400);
          expect(typeof r.body.error, bad).toBe("string");
        }
      });

      it("writes the service's basePath into the Link URL", async () => {
        const c = cust();
        for (let i = 0; i < 3; i++) await create(c, { base: "/sup" });
        const r = await list(c, "&limit=2", { base: "/sup" });
        expect(nextOf(r.headers.get("link"))).toMatch(/^\/sup\/api\/conversations\/list\?/);
        expect((await walk(nextOf(r.headers.get("link"))!)).flat()).toHaveLength(1);
      });

      it("pages a remote SPI backend's whole answer the same way", async () => {
        const c = cust();
        for (let i = 0; i < 5; i++) await create(c, { base: "/proxy", productSlug: "remote" });
        const pages = await walk(`/proxy/api/conversations/list?productSlug=remote&customerId=${c}&limit=2`);
        expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
        expect(new Set(pages.flat()).size).toBe(5);
      });

      it("documents limit, cursor and the Link header in the OpenAPI document", async () => {
        const doc = (await call(u("/api/conversations/openapi.json"))).body;
        const op = doc.paths["/api/conversations/list"].get;
        const params = Object.fromEntries(op.parameters.map((p: { name: string }) => [p.name, p]));
        expect(params.limit).toMatchObject({
          in: "query",
          required: false,
          schema: { type: "integer", minimum: 1, maximum: 200, default: 50 },
        });
        expect(params.cursor).toMatchObject({ in: "query", required: false });
        expect(op.responses["200"].headers.Link.description).toMatch(/rel="next"/);
      });
    });

    describe("GET /api/conversations/find", () => {
      it("answers the first open conversation even when newer ones are all closed", async () => {
        const c = cust();
        const oldest = await create(c);
        for (let i = 0; i < 3; i++) {
          const id = await create(c);
          const r = await call(u(`/api/conversations/${id}/close`), { body: { productSlug: "demo", customerId: c, action: "close" } });
          expect(r.status).toBe(200);
        }
        expect((await call(u(`/api/conversations/find?productSlug=demo&customerId=${c}`))).body).toEqual({
          found: true,
          conversationId: oldest,
        });
        await call(u(`/api/conversations/${oldest}/close`), { body: { productSlug: "demo", customerId: c, action: "resolve" } });
        const newest = (await list(c, "&limit=1")).body.conversations[0].id;
        expect((await call(u(`/api/conversations/find?productSlug=demo&customerId=${c}`))).body).toEqual({
          found: true,
          conversationId: newest,
        });
        expect((await call(u(`/api/conversations/find?productSlug=demo&customerId=${cust()}`))).body).toEqual({ found: false });
      });
    });

    describe("per-customer rate limit", () => {
      it("throttles one customer with 429 while another still gets through", async () => {
        const greedy = cust();
        const statuses: number[] = [];
        let refused: Awaited<ReturnType<typeof call>> | undefined;
        for (let i = 0; i < 6; i++) {
          const r = await list(greedy, "", { productSlug: "metered" });
          statuses.push(r.status);
          if (r.status === 429) refused ??= r;
        }
        // a one-minute window, so a slow machine cannot slide it: exactly the customer's 3 get through
        expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
        expect(refused?.body.error).toBe("too many requests from this customer");
        expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThan(1);
        expect(refused?.headers.get("ratelimit-limit")).toBe("3");
        expect(refused?.headers.get("x-request-id")).toBe(refused?.body.requestId);
        const polite = await list(cust(), "", { productSlug: "metered" });
        expect(polite.status).toBe(200);
      });
    });
  },
);
