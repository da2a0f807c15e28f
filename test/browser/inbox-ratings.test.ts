// The customers' ratings in the agent inbox (docs/support.md#ratings) in Chromium, under Express, Fastify and fetch:
// customers rate resolved conversations through interface A; the inbox's "Ratings" dialog lists them newest first with
// their summary (another product's never), filters by score and opens a rating's conversation, whose head shows the
// stars, the score and the comment as text.
import { type Service, silentLogger } from "@mountkit/core";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { supportFromEnv } from "../../examples/server/src/services/support.js";
import { call } from "../harness.js";
import { FRAMEWORKS, listen, type Running } from "../servers.js";
import { describeInChromium } from "./browser.js";

const TOKEN = "agent-token-inbox-ratings-0123456789";

describeInChromium("support inbox ratings in Chromium", (chromium) => {
  let browser: Browser;

  beforeAll(async () => {
    browser = chromium.browser;
  });

  for (const framework of FRAMEWORKS) {
    describe(framework, () => {
      let running: Running;
      let support: Service;
      let context: BrowserContext;
      let inbox: Page;
      let apiUrl = "";
      const tag = `${framework}-${crypto.randomUUID().slice(0, 6)}`;
      const pageErrors: string[] = [];
      // markup in a comment must show as text
      const kindComment = `Quick and <b>kind</b> ${tag}`;
      const app = () => inbox.locator("mountkit-inbox");
      const dialog = () => app().getByRole("dialog", { name: "Ratings" });
      const pane = () => app().getByRole("region", { name: "Conversation", exact: true });

      /** A conversation the customer opens, resolves and rates through interface A. */
      async function rate(productSlug: string, subject: string, score: number, comment?: string) {
        const customerId = `cust_${crypto.randomUUID()}`;
        const made = await call(`${apiUrl}/api/conversations`, { body: { productSlug, customerId, subject, message: `about ${subject}` } });
        expect(made.status, made.text).toBe(200);
        const id = made.body.conversationId as string;
        const closed = await call(`${apiUrl}/api/conversations/${id}/close`, { body: { productSlug, customerId, action: "resolve" } });
        expect(closed.status, closed.text).toBe(200);
        const rated = await call(`${apiUrl}/api/conversations/${id}/rating`, {
          body: { productSlug, customerId, score, ...(comment ? { comment } : {}) },
        });
        expect(rated.status, rated.text).toBe(200);
        await new Promise((r) => setTimeout(r, 5));
        return id;
      }

      beforeAll(async () => {
        support = await supportFromEnv(
          { SUPPORT_PRODUCTS: "demo,other", SUPPORT_AGENT_TOKEN: TOKEN, SUPPORT_RATE_LIMIT: "1000", SUPPORT_CUSTOMER_RATE_LIMIT: "100" },
          { logger: silentLogger },
        );
        running = await listen(framework, [support]);
        apiUrl = running.url;
        context = await browser.newContext();
        context.setDefaultTimeout(15_000);
        inbox = await context.newPage();
        inbox.on("console", (m) => {
          if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) pageErrors.push(m.text());
        });
        inbox.on("pageerror", (e) => pageErrors.push(String(e)));
      });
      afterAll(async () => {
        await context?.close();
        await running?.close();
        await support?.dispose?.();
      });

      let kind = "";
      it("lists the product's ratings newest first with the summary, never another product's", async () => {
        kind = await rate("demo", `Kind help ${tag}`, 4, kindComment);
        await rate("demo", `Slow help ${tag}`, 2);
        await rate("other", `Elsewhere ${tag}`, 5, `not for demo ${tag}`);
        await inbox.goto(`${apiUrl}/agent/inbox/?product=demo`);
        await app().getByLabel("Agent token").fill(TOKEN);
        await app().getByLabel("Your name (shown to customers)").fill("Ada");
        await app().getByRole("button", { name: "Sign in" }).click();
        await app().getByRole("list", { name: "Conversations" }).waitFor();

        await app().locator("header.top").getByRole("button", { name: "Ratings" }).click();
        await dialog().waitFor();
        await expect.poll(() => dialog().locator(".totals").innerText()).toBe("2 ratings · average 3.00 / 5");
        const rows = dialog().getByRole("list", { name: "Ratings" }).locator(".item");
        await expect.poll(() => rows.count()).toBe(2);
        // newest first: the slow one was rated last
        expect(await rows.nth(0).innerText()).toContain(`Slow help ${tag}`);
        expect(await rows.nth(1).innerText()).toContain(`Kind help ${tag}`);
        expect(await rows.nth(1).innerText()).toContain(kindComment);
        expect(await rows.nth(1).locator("b").count()).toBe(0);
        expect(await rows.nth(1).getByRole("img", { name: "4 out of 5" }).count()).toBe(1);
        expect(await dialog().innerText()).not.toContain(`not for demo ${tag}`);
        expect(await dialog().locator('.bars li[data-score="4"] .n').innerText()).toBe("1");
        expect(await dialog().locator('.bars li[data-score="5"] .n').innerText()).toBe("0");
      });

      it("filters by score, and a rating's row opens its conversation with the stars and the comment", async () => {
        await dialog().getByLabel("Score", { exact: true }).selectOption("4");
        await expect.poll(() => dialog().locator(".totals").innerText()).toBe("1 rating · average 4.00 / 5");
        const rows = dialog().getByRole("list", { name: "Ratings" }).locator(".item");
        await expect.poll(() => rows.count()).toBe(1);
        await rows.first().click();
        await expect.poll(() => dialog().isHidden()).toBe(true);
        await app()
          .getByRole("heading", { name: `Kind help ${tag}` })
          .waitFor();
        const rating = pane().locator(".rating");
        await rating.waitFor();
        expect(await rating.getAttribute("data-score")).toBe("4");
        expect(await rating.innerText()).toContain("4/5");
        expect(await rating.locator(".comment").innerText()).toBe(kindComment);
        expect(await rating.getByRole("img", { name: "4 out of 5" }).count()).toBe(1);
        const detail = await call(`${apiUrl}/agent/conversations/${kind}`, { headers: { authorization: `Bearer ${TOKEN}` } });
        expect(detail.body.rating).toMatchObject({ score: 4, comment: kindComment });
      });

      it("an unrated conversation shows no rating", async () => {
        const made = await call(`${apiUrl}/api/conversations`, {
          body: { productSlug: "demo", customerId: `cust_${crypto.randomUUID()}`, subject: `Unrated ${tag}`, message: "hello" },
        });
        expect(made.status, made.text).toBe(200);
        const row = app().getByRole("button", { name: new RegExp(`Unrated ${tag}`) });
        await row.click();
        await app()
          .getByRole("heading", { name: `Unrated ${tag}` })
          .waitFor();
        expect(await pane().locator(".rating").count()).toBe(0);
      });

      it("ran without a console error", () => {
        expect(pageErrors).toEqual([]);
      });
    });
  }
});
