// The support widget's satisfaction rating in Chromium under Express, Fastify and fetch: an agent resolves the
// conversation, "How did we do?" appears over the stream, the customer rates 4 with a comment (the agent detail shows
// it), changes it by keyboard alone (re-rating replaces), sees it again after a reload, and axe finds nothing serious;
// a backend that keeps no ratings (501) hides the prompt after the first refusal.
import { createSupportService, type SupportService } from "@mountkit/support";
import { supportWidgetScript } from "@mountkit/support-widget";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../harness.js";
import { FRAMEWORKS, listen, type Running } from "../servers.js";
import { accessibilityViolations, describeInChromium, servePage } from "./browser.js";

const AGENT = "agent-token-widget-rating";

describeInChromium("support widget rating in Chromium", (chromium) => {
  let browser: Browser;
  let apiUrl = "";
  let pageServer: Awaited<ReturnType<typeof servePage>>;

  beforeAll(async () => {
    browser = chromium.browser;
    pageServer = await servePage(
      () => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body><main><h1>Shop</h1></main>
<script src="${apiUrl}/api/conversations/widget.js"></script>
<mountkit-support product="demo" heading="Shop support"></mountkit-support></body></html>`,
    );
  });
  afterAll(async () => {
    await pageServer?.close();
  });

  for (const framework of FRAMEWORKS) {
    describe(framework, () => {
      let running: Running;
      let support: SupportService;
      let context: BrowserContext;
      let page: Page;
      const customerId = `cust_${crypto.randomUUID()}`;
      let conversationId = "";

      beforeAll(async () => {
        support = createSupportService({
          products: ["demo"],
          agentToken: AGENT,
          corsOrigins: [pageServer.url],
          widgetScript: supportWidgetScript,
          heartbeatMs: 1000,
        });
        running = await listen(framework, [support]);
        apiUrl = running.url;
        context = await browser.newContext();
        context.setDefaultTimeout(15_000);
        page = await context.newPage();
        await page.addInitScript((id) => localStorage.setItem("mountkit.support.customerId", id), customerId);
      });
      afterAll(async () => {
        await context?.close();
        await running?.close();
        await support?.dispose();
      });

      const agent = (path: string, body?: unknown, method?: string) =>
        call(`${apiUrl}/agent${path}`, { headers: { authorization: `Bearer ${AGENT}` }, body, ...(method ? { method } : {}) });
      const widget = () => page.locator("mountkit-support");
      const prompt = () => widget().getByRole("radiogroup", { name: "How did we do?" });
      // the star a pointer clicks: the label around the radio
      const star = (name: string) => prompt().locator("label.star").filter({ hasText: name });
      const openThread = async (subject: RegExp) => {
        await page.goto(pageServer.url);
        await widget().getByRole("button", { name: "Support" }).click();
        await widget().getByRole("button", { name: subject }).click();
      };

      it("asks over the stream once an agent resolves, and sends 4 with a comment that the agent detail shows", async () => {
        const created = await support.api.createConversation({ productSlug: "demo", customerId, message: "My parcel is late" });
        conversationId = created.conversationId;
        await openThread(/My parcel is late/);
        await widget().getByText("My parcel is late").first().waitFor();
        expect(await prompt().count()).toBe(0);

        const r = await agent(`/conversations/${conversationId}/status`, { status: "resolved" }, "PUT");
        expect(r.status).toBe(200);
        await prompt().waitFor();
        // five radios labelled 1 poor … 5 great, none chosen yet
        const radios = prompt().getByRole("radio");
        expect(await radios.count()).toBe(5);
        for (const name of ["1 poor", "2 fair", "3 okay", "4 good", "5 great"]) await prompt().getByRole("radio", { name }).waitFor();
        expect(await accessibilityViolations(page)).toEqual([]);

        await star("4 good").click();
        await expect.poll(() => prompt().getByRole("radio", { name: "4 good" }).isChecked()).toBe(true);
        await widget().getByLabel("Comment (optional)").fill("Quick & <b>kind</b>");
        await widget().getByRole("button", { name: "Send rating" }).click();
        await widget().getByText("Thanks! You rated this conversation 4 of 5 (good).").waitFor();
        // the comment is text, never markup
        await widget().getByText("Quick & <b>kind</b>").waitFor();
        const detail = await agent(`/conversations/${conversationId}`);
        expect(detail.body.rating).toMatchObject({ score: 4, comment: "Quick & <b>kind</b>" });
        expect(await accessibilityViolations(page)).toEqual([]);
      });

      it("changes the rating by keyboard alone (re-rating replaces) and shows it again after a reload", async () => {
        const change = widget().getByRole("button", { name: "Change" });
        // focus moved to Change after the send
        await expect.poll(() => change.evaluate((el) => el === (el.getRootNode() as ShadowRoot).activeElement)).toBe(true);
        await page.keyboard.press("Enter");
        // the chosen score has focus; arrows move the choice within the group
        await expect
          .poll(() =>
            prompt()
              .getByRole("radio", { name: "4 good" })
              .evaluate((el) => el === (el.getRootNode() as ShadowRoot).activeElement),
          )
          .toBe(true);
        await page.keyboard.press("ArrowRight");
        await expect.poll(() => prompt().getByRole("radio", { name: "5 great" }).isChecked()).toBe(true);
        await page.keyboard.press("Tab");
        await page.keyboard.press("ControlOrMeta+A");
        await page.keyboard.type("Solved in a day");
        await page.keyboard.press("Tab");
        await page.keyboard.press("Enter");
        await widget().getByText("Thanks! You rated this conversation 5 of 5 (great).").waitFor();
        await expect
          .poll(async () => (await agent(`/conversations/${conversationId}`)).body.rating)
          .toMatchObject({
            score: 5,
            comment: "Solved in a day",
          });

        await page.reload();
        await widget().getByRole("button", { name: "Support" }).click();
        await widget()
          .getByRole("button", { name: /My parcel is late/ })
          .click();
        await widget().getByText("Thanks! You rated this conversation 5 of 5 (great).").waitFor();
        await widget().getByText("Solved in a day").waitFor();
        expect(await prompt().isVisible()).toBe(false);
      });

      if (framework === FRAMEWORKS[0])
        it("shows the prompt on a conversation closed before it opened, and hides it for good after a 501", async () => {
          const a = await support.api.createConversation({ productSlug: "demo", customerId, message: "Closed one" });
          await support.api.closeConversation({ productSlug: "demo", customerId, conversationId: a.conversationId, action: "close" });
          const b = await support.api.createConversation({ productSlug: "demo", customerId, message: "Resolved one" });
          await support.api.closeConversation({ productSlug: "demo", customerId, conversationId: b.conversationId, action: "resolve" });
          // stands in for a product whose backend keeps no ratings
          let refused = 0;
          await page.route("**/rating", async (route) => {
            if (route.request().method() !== "POST") return route.continue();
            refused++;
            await route.fulfill({
              status: 501,
              headers: { "access-control-allow-origin": "*", "content-type": "application/json" },
              body: JSON.stringify({ error: "this product's backend keeps no ratings" }),
            });
          });
          await openThread(/Closed one/);
          await prompt().waitFor();
          await star("3 okay").click();
          await widget().getByRole("button", { name: "Send rating" }).click();
          await expect.poll(() => widget().getByRole("region", { name: "Your rating" }).count()).toBe(0);
          expect(refused).toBe(1);
          // no error shown: quietly hidden
          expect(await widget().getByRole("alert").filter({ hasText: /rat/ }).count()).toBe(0);
          await widget().getByRole("button", { name: "Back to conversations" }).click();
          await widget()
            .getByRole("button", { name: /Resolved one/ })
            .click();
          await widget().getByText("Resolved one").first().waitFor();
          await widget().getByText("Resolved", { exact: true }).waitFor();
          expect(await prompt().count()).toBe(0);
          await page.unroute("**/rating");
        });
    });
  }
});
