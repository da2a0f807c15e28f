// The example server's support configuration: external-backend products appear only with their variables,
// each group is all-or-nothing, and the contract's built-in products keep interface B.
import { manualClock, silentLogger } from "@mountkit/core";
import { describe, expect, it } from "vitest";
import { backendProductsFromEnv, supportFromEnv } from "../src/services/support.js";

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
});
