// The support widget follows interface A's list paging in Chromium: the first page of 50 conversations, then an
// "Older conversations" button that follows the answer's `Link: rel="next"` until the last page.
import { createSupportService, type SupportService } from "@mountkit/support";
import { supportWidgetScript } from "@mountkit/support-widget";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen, type Running } from "../servers.js";
import { findChromium, launchChromium, servePage } from "./browser.js";

const chromium = findChromium();
const describeBrowser = "path" in chromium ? describe : describe.skip;
if ("skip" in chromium) console.log(`[mountkit] browser tests skipped: ${chromium.skip}`);

// skipped only where no Chromium is installed (the reason is printed above); CI=true makes that an error
describeBrowser("support widget list paging in Chromium", () => {
  let browser: Browser;
  let apiUrl = "";
  let pageServer: Awaited<ReturnType<typeof servePage>>;
  let running: Running;
  let support: SupportService;
  let context: BrowserContext;
  let page: Page;
  let tick = 0;

  beforeAll(async () => {
    browser = await launchChromium((chromium as { path: string }).path);
    pageServer = await servePage(
      () => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body><main><h1>Shop</h1></main>
<script src="${apiUrl}/api/conversations/widget.js"></script>
<mountkit-support product="demo" heading="Shop support"></mountkit-support></body></html>`,
    );
    // each conversation a second after the one before, so "most recent first" is one order
    support = createSupportService({
      products: ["demo"],
      corsOrigins: [pageServer.url],
      widgetScript: supportWidgetScript,
      clock: { now: () => Date.now() + tick * 1000 },
    });
    running = await listen("fetch", [support]);
    apiUrl = running.url;
    context = await browser.newContext();
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
  });
  afterAll(async () => {
    await context?.close();
    await running?.close();
    await support?.dispose();
    await browser?.close();
    await pageServer?.close();
  });

  it("shows the first 50 conversations, then the older ones through Link rel=next, and no button past the last page", async () => {
    const customerId = `cust_${crypto.randomUUID()}`;
    for (let i = 1; i <= 53; i++) {
      tick = i;
      await support.api.createConversation({ productSlug: "demo", customerId, message: `Order ${i}` });
    }
    const requests: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes("/api/conversations/list")) requests.push(r.url());
    });
    await page.addInitScript((id) => localStorage.setItem("mountkit.support.customerId", id), customerId);
    await page.goto(pageServer.url);
    const widget = page.locator("mountkit-support");
    await widget.getByRole("button", { name: "Support" }).click();
    const list = widget.getByRole("list", { name: "Your conversations" });
    const subjects = () => list.locator(".subject").allInnerTexts();
    await expect.poll(async () => (await subjects()).length).toBe(50);
    // most recent activity first: the newest 50
    expect((await subjects())[0]).toBe("Order 53");
    expect((await subjects())[49]).toBe("Order 4");
    const more = widget.getByRole("button", { name: "Older conversations" });
    await more.click();
    await expect.poll(async () => (await subjects()).length).toBe(53);
    expect(await subjects()).toEqual(Array.from({ length: 53 }, (_, i) => `Order ${53 - i}`));
    await expect.poll(() => more.isHidden()).toBe(true);
    // two requests: the first page, then exactly the URL the first answer's Link header named
    expect(requests).toHaveLength(2);
    expect(new URL(requests[1]!).searchParams.get("cursor")).toBeTruthy();
  });
});
