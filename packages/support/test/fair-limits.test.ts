// The limits against a client that rotates customer ids (issue 24), in process on a manual clock: the new-id budget
// per client address, the reserve for known customers, the per-address limit, and where the client address comes from.
import { manualClock } from "@mountkit/core";
import { withRemoteAddress } from "@mountkit/core/adapter";
import { describe, expect, it } from "vitest";
import { createSupportService, type SupportService } from "../src/index.js";
import { cust, serviceMaker } from "./services.js";

const make = serviceMaker();

/** A list call as a fetch host would hand it over: the peer address beside the Request. */
async function list(s: SupportService, customerId: string, from: string | undefined, headers: Record<string, string> = {}) {
  const request = new Request(`http://kit/api/conversations/list?productSlug=demo&customerId=${customerId}`, { headers });
  const r = await s.fetch(withRemoteAddress(request, from));
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : undefined };
}

const statuses = async (n: number, call: (i: number) => Promise<{ status: number }>) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await call(i)).status);
  return out;
};
const count = (xs: number[], status: number) => xs.filter((x) => x === status).length;

describe("limits against rotating customer ids", () => {
  it("an address inventing an id per request gets one customer's share; known customers keep the rest of the product's", async () => {
    const clock = manualClock(1_000_000);
    const s = make({ clock, products: [{ slug: "demo", limits: { rateLimit: 20, customerRateLimit: 5 } }] });
    const known = [cust(), cust(), cust(), cust()];
    for (const c of known) expect((await list(s, c, "192.0.2.1")).status).toBe(200);
    clock.advance(1000);
    const attack = await statuses(50, () => list(s, cust(), "198.51.100.7"));
    expect(count(attack, 200)).toBe(5);
    const refused = await list(s, cust(), "198.51.100.7");
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: "too many new customers from this address", requestId: expect.any(String) });
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("ratelimit-limit")).toBe("5");
    // the 46 refused requests spent nothing of the product's 20: the known customers' 15 all fit
    const served = await statuses(15, (i) => list(s, known[i % 4]!, "192.0.2.1"));
    expect(served).toEqual(Array(15).fill(200));
    expect((await list(s, known[0]!, "192.0.2.1")).status).toBe(429);
  });

  it("an id refused as new is still new when sent again, and one admitted is known until knownCustomerMs has passed", async () => {
    const clock = manualClock(0);
    const s = make({
      clock,
      products: [
        { slug: "demo", limits: { rateLimit: 100, newCustomerRateLimit: 1, newCustomerWindowMs: 60_000, knownCustomerMs: 3_600_000 } },
      ],
    });
    const first = cust();
    const second = cust();
    expect((await list(s, first, "203.0.113.9")).status).toBe(200);
    expect((await list(s, second, "203.0.113.9")).status).toBe(429);
    clock.advance(1000);
    // sending a refused id again does not make it known
    expect((await list(s, second, "203.0.113.9")).status).toBe(429);
    // the admitted one no longer counts as new, from this address or another
    expect(await statuses(3, () => list(s, first, "203.0.113.9"))).toEqual([200, 200, 200]);
    expect((await list(s, first, "203.0.113.10")).status).toBe(200);
    clock.advance(60_000);
    expect((await list(s, second, "203.0.113.9")).status).toBe(200);
    // past knownCustomerMs an id is new again and spends its address's budget once more
    clock.advance(3_600_000);
    expect((await list(s, first, "203.0.113.9")).status).toBe(200);
    expect((await list(s, cust(), "203.0.113.9")).status).toBe(429);
  });

  it("an IPv6 client is one client across its /64; an IPv4-mapped address is the IPv4 one", async () => {
    const clock = manualClock(0);
    const s = make({
      clock,
      products: [{ slug: "demo", limits: { rateLimit: 100, newCustomerRateLimit: 2, newCustomerWindowMs: 60_000 } }],
    });
    expect((await list(s, cust(), "2001:db8:1:2::1")).status).toBe(200);
    expect((await list(s, cust(), "2001:db8:1:2:ffff::9")).status).toBe(200);
    expect((await list(s, cust(), "2001:db8:1:2:abcd::")).status).toBe(429);
    expect((await list(s, cust(), "2001:db8:1:3::1")).status).toBe(200);
    expect((await list(s, cust(), "192.0.2.44")).status).toBe(200);
    expect((await list(s, cust(), "::ffff:192.0.2.44")).status).toBe(200);
    expect((await list(s, cust(), "::ffff:c000:22c")).status).toBe(429);
  });

  it("knownCustomerReserve: new ids from many addresses at once never take the reserved part of the product's window", async () => {
    const clock = manualClock(0);
    const s = make({ clock, products: [{ slug: "demo", limits: { rateLimit: 20, knownCustomerReserve: 8 } }] });
    const known = [cust(), cust(), cust(), cust()];
    for (const [i, c] of known.entries()) expect((await list(s, c, `192.0.2.${i + 1}`)).status).toBe(200);
    clock.advance(1000);
    const botnet = await statuses(40, (i) => list(s, cust(), `10.0.${i >> 8}.${i & 255}`));
    expect(count(botnet, 200)).toBe(12);
    const refused = await list(s, cust(), "10.1.0.1");
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe("too many requests");
    expect(await statuses(8, (i) => list(s, known[i % 4]!, "192.0.2.1"))).toEqual(Array(8).fill(200));
    expect((await list(s, known[0]!, "192.0.2.1")).status).toBe(429);
  });

  it("addressRateLimit: an address rotating through ids it made known is capped as a whole", async () => {
    const clock = manualClock(0);
    const s = make({ clock, products: [{ slug: "demo", limits: { rateLimit: 100, customerRateLimit: 5, addressRateLimit: 6 } }] });
    const own = [cust(), cust(), cust()];
    for (const c of own) expect((await list(s, c, "198.51.100.1")).status).toBe(200);
    clock.advance(1000);
    const rotating = await statuses(12, (i) => list(s, own[i % 3]!, "198.51.100.1"));
    expect(rotating).toEqual([...Array(6).fill(200), ...Array(6).fill(429)]);
    const refused = await list(s, own[0]!, "198.51.100.1");
    expect(refused.body.error).toBe("too many requests from this address");
    expect((await list(s, own[1]!, "198.51.100.2")).status).toBe(200);
  });

  it("without an address (a fetch runtime that gives none) only the customer's and the product's windows apply", async () => {
    const clock = manualClock(0);
    const s = make({ clock, products: [{ slug: "demo", limits: { rateLimit: 10, newCustomerRateLimit: 1 } }] });
    expect(count(await statuses(12, () => list(s, cust(), undefined)), 200)).toBe(10);
  });

  it("refuses limits it cannot honour", () => {
    expect(() => createSupportService({ products: [{ slug: "a", limits: { rateLimit: 5, knownCustomerReserve: 5 } }] })).toThrow(/limits/);
    expect(() => createSupportService({ products: [{ slug: "a", limits: { newCustomerRateLimit: 0 } }] })).toThrow(/limits/);
    expect(() => createSupportService({ products: [{ slug: "a", limits: { addressRateLimit: 0 } }] })).toThrow(/limits/);
  });
});

describe("the client address", () => {
  const budgetOfOne = { products: [{ slug: "demo", limits: { rateLimit: 100, newCustomerRateLimit: 1, newCustomerWindowMs: 60_000 } }] };

  it("ignores forwarding headers unless one is configured", async () => {
    const s = make({ clock: manualClock(0), ...budgetOfOne });
    expect((await list(s, cust(), "192.0.2.1", { "x-forwarded-for": "203.0.113.1" })).status).toBe(200);
    const r = await list(s, cust(), "192.0.2.1", {
      "x-forwarded-for": "203.0.113.2",
      "x-real-ip": "203.0.113.2",
      forwarded: "for=203.0.113.2",
    });
    expect(r.status).toBe(429);
  });

  it("with clientAddressHeader, takes the entry the host's proxies wrote, never one the client put in front", async () => {
    const s = make({ clock: manualClock(0), clientAddressHeader: "X-Forwarded-For", ...budgetOfOne });
    const via = (xff: string) => list(s, cust(), "10.0.0.1", { "x-forwarded-for": xff });
    expect((await via("203.0.113.1")).status).toBe(200);
    expect((await via("203.0.113.2")).status).toBe(200);
    expect((await via("203.0.113.2")).status).toBe(429);
    // a forged entry on the left changes nothing: the proxy's own entry is the last one
    expect((await via("198.51.100.99, 203.0.113.2")).status).toBe(429);
    // no header (a request that did not come through the proxy): the peer address
    expect((await list(s, cust(), "10.0.0.1")).status).toBe(200);
    expect((await list(s, cust(), "10.0.0.1")).status).toBe(429);
    // a value that is no address: the peer address, never a key of the client's choosing
    expect((await via("unknown")).status).toBe(429);
  });

  it("counts trustedProxies entries from the right, and reads RFC 7239 Forwarded", async () => {
    const two = make({ clock: manualClock(0), clientAddressHeader: "x-forwarded-for", trustedProxies: 2, ...budgetOfOne });
    const via = (xff: string) => list(two, cust(), "10.0.0.1", { "x-forwarded-for": xff });
    expect((await via("198.51.100.1, 203.0.113.5, 10.0.0.2")).status).toBe(200);
    expect((await via("198.51.100.2, 203.0.113.5, 10.0.0.2")).status).toBe(429);
    expect((await via("203.0.113.6, 10.0.0.2")).status).toBe(200);
    const fwd = make({ clock: manualClock(0), clientAddressHeader: "forwarded", ...budgetOfOne });
    const by = (value: string) => list(fwd, cust(), "10.0.0.1", { forwarded: value });
    expect((await by('for="[2001:db8:cafe::17]:4711";proto=https')).status).toBe(200);
    expect((await by('for=192.0.2.60, for="[2001:db8:cafe::99]";by=203.0.113.43')).status).toBe(429);
    expect((await by("for=192.0.2.60;proto=http")).status).toBe(200);
  });
});
