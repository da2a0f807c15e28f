// Issue 24 on real sockets under every adapter: a client inventing a customer id per request cannot take a product's
// budget from its existing customers, and the client address comes from a forwarding header only when configured.
import { createSupportService } from "@mountkit/support";
import { expect, it } from "vitest";
import { call, forEachAdapter } from "./harness.js";

const cust = () => `cust_${crypto.randomUUID()}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** One new id per address a minute, so the header cases never depend on timing. */
const oneNewIdAMinute = { rateLimit: 1000, newCustomerRateLimit: 1, newCustomerWindowMs: 60_000 };

forEachAdapter(
  "support limits against rotating customer ids",
  () => [
    // the product's defaults but for its rate: 20 a second, 5 per customer, 5 new ids per address a second
    createSupportService({ products: [{ slug: "demo", limits: { rateLimit: 20 } }] }),
    createSupportService({ products: [{ slug: "demo", limits: oneNewIdAMinute }], basePath: "/direct" }),
    createSupportService({
      products: [{ slug: "demo", limits: oneNewIdAMinute }],
      basePath: "/proxied",
      clientAddressHeader: "x-forwarded-for",
    }),
  ],
  (t) => {
    const list = (customerId: string, base = "", headers: Record<string, string> = {}) =>
      call(`${t.url}${base}/api/conversations/list?productSlug=demo&customerId=${customerId}`, { headers });

    it("16 loops inventing an id per request leave existing customers at least half their requests", async () => {
      const existing = [cust(), cust(), cust(), cust()];
      for (const c of existing) {
        const r = await call(`${t.url}/api/conversations`, { body: { productSlug: "demo", customerId: c, message: "before the attack" } });
        expect(r.status).toBe(200);
      }
      await sleep(1100);
      const started = Date.now();
      const until = started + 4000;
      const attacker: number[] = [];
      let refused: Awaited<ReturnType<typeof call>> | undefined;
      const attackLoop = async () => {
        while (Date.now() < until) {
          const r = await list(cust());
          attacker.push(r.status);
          if (r.status === 429) refused ??= r;
        }
      };
      const customers: number[] = [];
      const customerLoop = async (c: string) => {
        while (Date.now() < until) {
          customers.push((await list(c)).status);
          await sleep(400);
        }
      };
      await Promise.all([...Array.from({ length: 16 }, attackLoop), ...existing.map(customerLoop)]);
      const seconds = (Date.now() - started) / 1000;
      const answered = customers.filter((s) => s === 200).length;
      expect(customers.every((s) => s === 200 || s === 429)).toBe(true);
      expect(attacker.every((s) => s === 200 || s === 429)).toBe(true);
      expect(customers.length).toBeGreaterThanOrEqual(8);
      expect(answered / customers.length, `existing customers answered ${answered} of ${customers.length}`).toBeGreaterThanOrEqual(0.5);
      // no one-second window admits more than 5 new ids from the attacker's address
      expect(attacker.filter((s) => s === 200).length).toBeLessThanOrEqual(5 * Math.ceil(seconds + 1));
      expect(attacker.filter((s) => s === 429).length).toBeGreaterThan(attacker.length / 2);
      expect(refused).toBeDefined();
      expect(refused!.body).toEqual({ error: "too many new customers from this address", requestId: expect.any(String) });
      expect(refused!.headers.get("x-request-id")).toBe(refused!.body.requestId);
      expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    });

    it("ignores X-Forwarded-For unless the service is configured to trust it", async () => {
      expect((await list(cust(), "/direct", { "x-forwarded-for": "203.0.113.1" })).status).toBe(200);
      const second = await list(cust(), "/direct", { "x-forwarded-for": "203.0.113.2" });
      expect(second.status).toBe(429);
      expect(second.body.error).toBe("too many new customers from this address");
      expect(Number(second.headers.get("retry-after"))).toBeGreaterThan(1);
    });

    it("with clientAddressHeader, each forwarded client has its own budget and a forged entry in front changes nothing", async () => {
      expect((await list(cust(), "/proxied", { "x-forwarded-for": "203.0.113.1" })).status).toBe(200);
      expect((await list(cust(), "/proxied", { "x-forwarded-for": "203.0.113.2" })).status).toBe(200);
      expect((await list(cust(), "/proxied", { "x-forwarded-for": "203.0.113.2" })).status).toBe(429);
      expect((await list(cust(), "/proxied", { "x-forwarded-for": "198.51.100.9, 203.0.113.2" })).status).toBe(429);
      // no header: the socket's address, a client of its own
      expect((await list(cust(), "/proxied")).status).toBe(200);
      expect((await list(cust(), "/proxied")).status).toBe(429);
    });
  },
);
