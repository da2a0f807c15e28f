// The example server's support configuration: external-backend products appear only with their variables,
// each group is all-or-nothing, and the SUPPORT_PRODUCTS products keep interface B.
import { manualClock, silentLogger } from "@mountkit/core";
import { withRemoteAddress } from "@mountkit/core/adapter";
import { describe, expect, it } from "vitest";
import { backendProductsFromEnv, limitsFromEnv, supportFromEnv } from "../src/services/support.js";

describe("support from the environment", () => {
  it("no extension variable: no external product", () => {
    expect(backendProductsFromEnv({}, silentLogger)).toEqual([]);
  });

  it("each backend group adds one product with its kind and default slug", () => {
    const products = backendProductsFromEnv(
      {
        SUPPORT_GITHUB_REPO: "acme/inbox",
        SUPPORT_GITHUB_TOKEN: "ghp_x",
        SUPPORT_GITHUB_WEBHOOK_SECRET: "s",
        SUPPORT_SLACK_BOT_TOKEN: "xoxb-x",
        SUPPORT_SLACK_SIGNING_SECRET: "s",
        SUPPORT_SLACK_CHANNEL: "C1",
        SUPPORT_SPI_URL: "http://127.0.0.1:9",
        SUPPORT_SPI_REMOTE_TOKEN: "t",
        SUPPORT_SPI_PRODUCT: "partner",
      },
      silentLogger,
    );
    expect(products.map((p) => [p.slug, p.backend?.kind])).toEqual([
      ["github", "github"],
      ["slack", "slack"],
      ["partner", "spi"],
    ]);
  });

  it("a half-configured group refuses to start, naming what is missing", () => {
    expect(() => backendProductsFromEnv({ SUPPORT_GITHUB_REPO: "acme/inbox" }, silentLogger)).toThrow(/SUPPORT_GITHUB_TOKEN/);
    expect(() => backendProductsFromEnv({ SUPPORT_SLACK_BOT_TOKEN: "xoxb" }, silentLogger)).toThrow(/SUPPORT_SLACK_CHANNEL/);
  });

  it("a slug on two backends is refused; built-in products stay first", async () => {
    const env = { SUPPORT_PRODUCTS: "github", SUPPORT_GITHUB_REPO: "a/b", SUPPORT_GITHUB_TOKEN: "t", SUPPORT_GITHUB_WEBHOOK_SECRET: "s" };
    await expect(supportFromEnv(env, { logger: silentLogger })).rejects.toThrow(/pick one/);
    const s = await supportFromEnv(
      { SUPPORT_GITHUB_REPO: "a/b", SUPPORT_GITHUB_TOKEN: "t", SUPPORT_GITHUB_WEBHOOK_SECRET: "s", SUPPORT_GITHUB_RECONCILE_SECONDS: "3600" },
      { logger: silentLogger },
    );
    try {
      const products = (s as unknown as { products: { list(): Array<{ slug: string; builtin: boolean }> } }).products.list();
      expect(products.map((p) => [p.slug, p.builtin])).toEqual([
        ["demo", true],
        ["github", false],
      ]);
    } finally {
      await s.dispose();
    }
  });

  it("SUPPORT_CUSTOMER_RATE_LIMIT sets the per-customer limit (default 5) inside SUPPORT_RATE_LIMIT", async () => {
    const clock = manualClock(1_000_000);
    const statuses = async (env: Record<string, string>, n: number) => {
      const s = await supportFromEnv(env, { logger: silentLogger, clock });
      try {
        const customer = `cust_${crypto.randomUUID()}`;
        const out: number[] = [];
        for (let i = 0; i < n; i++)
          out.push((await s.fetch(new Request(`http://x/api/conversations/list?productSlug=demo&customerId=${customer}`))).status);
        return out;
      } finally {
        await s.dispose();
      }
    };
    expect(await statuses({ SUPPORT_RATE_LIMIT: "100" }, 6)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(await statuses({ SUPPORT_RATE_LIMIT: "100", SUPPORT_CUSTOMER_RATE_LIMIT: "2" }, 3)).toEqual([200, 200, 429]);
    await expect(supportFromEnv({ SUPPORT_CUSTOMER_RATE_LIMIT: "0" }, { logger: silentLogger })).rejects.toThrow(/SUPPORT_CUSTOMER_RATE_LIMIT/);
  });

  it("SUPPORT_NEW_CUSTOMER_RATE_LIMIT bounds the new customer ids per client address, read from SUPPORT_CLIENT_ADDRESS_HEADER only when set", async () => {
    const clock = manualClock(1_000_000);
    const newIds = async (env: Record<string, string>, from: string[]) => {
      const s = await supportFromEnv({ SUPPORT_RATE_LIMIT: "100", ...env }, { logger: silentLogger, clock });
      try {
        const out: number[] = [];
        for (const xff of from) {
          const url = `http://x/api/conversations/list?productSlug=demo&customerId=cust_${crypto.randomUUID()}`;
          const request = withRemoteAddress(new Request(url, { headers: { "x-forwarded-for": xff } }), "10.0.0.1");
          out.push((await s.fetch(request)).status);
        }
        return out;
      } finally {
        await s.dispose();
      }
    };
    const spread = ["192.0.2.1", "192.0.2.2", "192.0.2.3"];
    expect(await newIds({ SUPPORT_NEW_CUSTOMER_RATE_LIMIT: "2" }, spread)).toEqual([200, 200, 429]);
    expect(await newIds({ SUPPORT_NEW_CUSTOMER_RATE_LIMIT: "2", SUPPORT_CLIENT_ADDRESS_HEADER: "X-Forwarded-For" }, spread)).toEqual([200, 200, 200]);
    // default: the customer's rate (5)
    expect(await newIds({}, Array(6).fill("192.0.2.1"))).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it("reads the other limit variables and refuses values it cannot use", () => {
    expect(limitsFromEnv({})).toEqual({
      limits: { rateLimit: 20, customerRateLimit: 5, rateWindowMs: 1000, newCustomerRateLimit: 5, newCustomerWindowMs: 1000, knownCustomerReserve: 0 },
    });
    const all = limitsFromEnv({
      SUPPORT_KNOWN_CUSTOMER_RESERVE: "8",
      SUPPORT_ADDRESS_RATE_LIMIT: "10",
      SUPPORT_CLIENT_ADDRESS_HEADER: "CF-Connecting-IP",
      SUPPORT_TRUSTED_PROXIES: "2",
    });
    expect(all).toMatchObject({ limits: { knownCustomerReserve: 8, addressRateLimit: 10 }, clientAddressHeader: "cf-connecting-ip", trustedProxies: 2 });
    expect(() => limitsFromEnv({ SUPPORT_KNOWN_CUSTOMER_RESERVE: "20" })).toThrow(/SUPPORT_KNOWN_CUSTOMER_RESERVE/);
    expect(() => limitsFromEnv({ SUPPORT_NEW_CUSTOMER_RATE_LIMIT: "0" })).toThrow(/SUPPORT_NEW_CUSTOMER_RATE_LIMIT/);
    expect(() => limitsFromEnv({ SUPPORT_ADDRESS_RATE_LIMIT: "x" })).toThrow(/SUPPORT_ADDRESS_RATE_LIMIT/);
    expect(() => limitsFromEnv({ SUPPORT_CLIENT_ADDRESS_HEADER: "x forwarded" })).toThrow(/SUPPORT_CLIENT_ADDRESS_HEADER/);
    expect(() => limitsFromEnv({ SUPPORT_TRUSTED_PROXIES: "2" })).toThrow(/SUPPORT_TRUSTED_PROXIES/);
  });
});
