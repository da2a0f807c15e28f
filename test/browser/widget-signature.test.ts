// The support widget of a product that verifies customers (docs/support.md#verified-customers), in Chromium on a
// page of another origin, under Express, Fastify and fetch: the host page's `customer-id` and `customer-signature`
// (HMAC-SHA256 of the id with the product's secret) start a conversation and bring the agent's reply over the
// stream; a wrong signature shows a clear error and the server records nothing.
import { createHmac } from "node:crypto";
import { createSupportService, type SupportService } from "@mountkit/support";
import { supportWidgetScript } from "@mountkit/support-widget";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../harness.js";
import { FRAMEWORKS, listen, type Running } from "../servers.js";
import { describeInChromium, servePage } from "./browser.js";

const AGENT = "agent-token-widget-signature";
const SECRET = "widget-verify-secret-0123456789abcdef";
const sign = (customerId: string, secret = SECRET) => createHmac("sha256", secret).update(customerId).digest("hex");

describeInChromium("support widget with a verified customer in Chromium", (chromium) => {
  let browser: Browser;
  let apiUrl = "";
  /** The host page's signed-in customer: what the next page load renders into the widget's attributes. */
  let attrs = { customerId: "", signature: "" };
  let pageServer: Awaited<ReturnType<typeof servePage>>;

  beforeAll(async () => {
    browser = chromium.browser;
    pageServer = await servePage(
      () => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body>
<main><h1>A shop with signed-in customers</h1></main>
<script src="${apiUrl}/api/conversations/widget.js"></script>
<mountkit-support product="signed" heading="Shop support" customer-id="${attrs.customerId}" customer-signature="${attrs.signature}"></mountkit-support>
</body></html>`,
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
      /** Every request the API answered, with its status, as the browser saw them. */
      const answered: Array<{ url: string; status: number }> = [];
      /** Every request the page sent to the API (a stream's answer never ends, so it is seen by its request). */
      const sent: Array<{ url: string; signature: string | null }> = [];

      beforeAll(async () => {
        support = createSupportService({
          products: [{ slug: "signed", verifySecret: SECRET }],
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
        page.on("request", (r) => {
          if (r.url().startsWith(`${apiUrl}/api/conversations`) && r.method() !== "OPTIONS")
            sent.push({
              url: r.url(),
              signature: r.headers()["x-customer-signature"] ?? new URL(r.url()).searchParams.get("customerSignature"),
            });
        });
        page.on("response", (r) => {
          if (r.url().startsWith(`${apiUrl}/api/conversations`)) answered.push({ url: r.url(), status: r.status() });
        });
      });
      afterAll(async () => {
        await context?.close();
        await running?.close();
        await support?.dispose();
      });

      const widget = () => page.locator("mountkit-support");
      const agent = (path: string, body?: unknown) =>
        call(`${apiUrl}/agent${path}`, { headers: { authorization: `Bearer ${AGENT}` }, body });
      /** Every conversation of the product, any status. */
      const allConversations = async () =>
        (await agent("/conversations?productSlug=signed&limit=200")).body.items as Array<{ id: string; customerId: string }>;

      it("with the right signature: starts a conversation and receives the agent's reply over the stream", async () => {
        const customerId = `cust_${crypto.randomUUID()}`;
        attrs = { customerId, signature: sign(customerId) };
        await page.goto(pageServer.url);
        await widget().getByRole("button", { name: "Support" }).click();
        await widget().getByText("No conversations yet. Start one and we will answer here.").waitFor();
        await widget().getByRole("button", { name: "New conversation" }).click();
        const text = `My invoice is wrong (${framework})`;
        await widget().getByLabel("How can we help?").fill(text);
        await widget().getByRole("button", { name: "Send" }).click();
        await expect.poll(() => widget().getByRole("list", { name: "Messages" }).innerText()).toContain(text);
        // the host page's id, not one the widget made up
        const mine = (await allConversations()).filter((c) => c.customerId === customerId);
        expect(mine).toHaveLength(1);
        // the stream is open (the widget says live once `connected` came): the reply can only arrive over it
        const reply = `A corrected invoice is on its way (${framework}).`;
        const r = await agent(`/conversations/${mine[0]!.id}/messages`, { body: reply, author: "Ada" });
        expect(r.status).toBe(200);
        await widget().getByText(reply).waitFor({ timeout: 10_000 });
        expect(answered.filter((a) => a.status === 401)).toEqual([]);
        // every call, the stream included, carried the host page's signature (header, or query for an EventSource)
        expect(sent.some((x) => new URL(x.url).pathname.endsWith("/stream"))).toBe(true);
        for (const x of sent.filter((x) => !x.url.endsWith("/widget.js"))) expect(x, x.url).toMatchObject({ signature: sign(customerId) });
      });

      it("with a wrong signature: a clear error in the list and on send, and nothing recorded", async () => {
        const before = await allConversations();
        const customerId = `cust_${crypto.randomUUID()}`;
        // the signature of another customer: a well-formed hex HMAC that does not match this id
        attrs = { customerId, signature: sign(`cust_${crypto.randomUUID()}`) };
        answered.length = 0;
        await page.goto(pageServer.url);
        await widget().getByRole("button", { name: "Support" }).click();
        const listError = widget().getByRole("alert").filter({ hasText: "Could not load your conversations" });
        await listError.waitFor();
        expect(await listError.innerText()).toMatch(/signature/i);
        await widget().getByRole("button", { name: "New conversation" }).click();
        await widget().getByLabel("How can we help?").fill(`Refused (${framework})`);
        await widget().getByRole("button", { name: "Send" }).click();
        const sendError = widget()
          .getByRole("alert")
          .filter({ hasText: /signature/i });
        await sendError.waitFor();
        // the customer is not shown a conversation that does not exist
        expect(await widget().getByRole("list", { name: "Messages" }).count()).toBe(0);
        expect(answered.length).toBeGreaterThan(0);
        expect(answered.filter((a) => a.status !== 401 && !a.url.endsWith("/widget.js"))).toEqual([]);
        const after = await allConversations();
        expect(after.filter((c) => c.customerId === customerId)).toEqual([]);
        expect(after.map((c) => c.id).sort()).toEqual(before.map((c) => c.id).sort());
      });

      it("without a signature: refused as well", async () => {
        const customerId = `cust_${crypto.randomUUID()}`;
        attrs = { customerId, signature: "" };
        await page.goto(pageServer.url);
        await widget().getByRole("button", { name: "Support" }).click();
        const listError = widget().getByRole("alert").filter({ hasText: "Could not load your conversations" });
        await listError.waitFor();
        expect(await listError.innerText()).toMatch(/signature/i);
      });
    });
  }
});
