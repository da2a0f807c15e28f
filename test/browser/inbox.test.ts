// The agent inbox page in a real browser, with the widget on a page of another origin, under Express, Fastify
// and fetch, on the example server's support service: the reply round trip, live customer messages, label,
// assign, resolve and close from the inbox, sign-in rules, axe, screenshots.
import { loadavg } from "node:os";
import { type Service, silentLogger } from "@mountkit/core";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { supportFromEnv } from "../../examples/server/src/services/support.js";
import { call } from "../harness.js";
import { FRAMEWORKS, listen, type Running } from "../servers.js";
import { accessibilityViolations, findChromium, launchChromium, screenshots, servePage } from "./browser.js";

const AGENT = "agent-token-inbox-0123456789";
const chromium = findChromium();
const describeBrowser = "path" in chromium ? describe : describe.skip;
if ("skip" in chromium) console.log(`[mountkit] browser tests skipped: ${chromium.skip}`);

// skipped only where no Chromium is installed (the reason is printed above); CI=true makes that an error
describeBrowser("support agent inbox in Chromium", () => {
  let browser: Browser;
  let apiUrl = "";
  let shop: Awaited<ReturnType<typeof servePage>>;

  beforeAll(async () => {
    browser = await launchChromium((chromium as { path: string }).path);
    shop = await servePage(
      () => `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Shop</title></head><body><main><h1>A shop on another origin</h1></main>
<script src="${apiUrl}/api/conversations/widget.js"></script>
<mountkit-support product="demo" heading="Shop support"></mountkit-support></body></html>`,
    );
  });
  afterAll(async () => {
    await browser?.close();
    await shop?.close();
  });

  for (const framework of FRAMEWORKS) {
    describe(framework, () => {
      let running: Running;
      let support: Service;
      let customerContext: BrowserContext;
      let agentContext: BrowserContext;
      let customer: Page;
      let inbox: Page;
      const subject = `Parcel ${framework} ${crypto.randomUUID().slice(0, 6)} is late`;
      let conversationId = "";
      /** Console errors and uncaught exceptions of the inbox page (a CSP violation or a script error shows here). */
      const pageErrors: string[] = [];

      beforeAll(async () => {
        // the example server's support service, from its environment variables
        support = await supportFromEnv(
          {
            SUPPORT_PRODUCTS: "demo",
            SUPPORT_AGENT_TOKEN: AGENT,
            SUPPORT_CORS_ORIGINS: shop.url,
            SUPPORT_RATE_LIMIT: "1000",
            SUPPORT_CUSTOMER_RATE_LIMIT: "100",
          },
          { logger: silentLogger },
        );
        running = await listen(framework, [support]);
        apiUrl = running.url;
        customerContext = await browser.newContext();
        agentContext = await browser.newContext();
        for (const c of [customerContext, agentContext]) c.setDefaultTimeout(15_000);
        customer = await customerContext.newPage();
        inbox = await agentContext.newPage();
        inbox.on("console", (m) => {
          // a refused token's 401 and the missing favicon are answers, not faults of the page
          if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) pageErrors.push(m.text());
        });
        inbox.on("pageerror", (e) => pageErrors.push(String(e)));
      });
      afterAll(async () => {
        await customerContext?.close();
        await agentContext?.close();
        await running?.close();
        await support?.dispose?.();
      });

      const widget = () => customer.locator("mountkit-support");
      const app = () => inbox.locator("mountkit-inbox");
      const agentApi = (path: string) => call(`${apiUrl}/agent${path}`, { headers: { authorization: `Bearer ${AGENT}` } });
      const thread = () => app().getByRole("list", { name: "Messages" });
      const pane = () => app().getByRole("region", { name: "Conversation", exact: true });
      /** The `/` suggestion of a canned reply under the reply box. */
      const suggestion = (shortcut: string) =>
        app()
          .getByRole("listbox", { name: "Canned responses" })
          .getByRole("option", { name: new RegExp(shortcut) });

      it("serves the page under /agent/inbox/ with its CSP; a wrong token is refused and nothing is kept", async () => {
        const r = await fetch(`${apiUrl}/agent/inbox/`);
        expect(r.status).toBe(200);
        expect(r.headers.get("content-security-policy")).toContain("default-src 'self'");
        expect(await r.text()).toContain("<mountkit-inbox>");
        const redirect = await fetch(`${apiUrl}/agent/inbox`, { redirect: "manual" });
        expect(redirect.status).toBe(308);
        await inbox.goto(`${apiUrl}/agent/inbox/?product=demo`);
        await app().getByLabel("Agent token").fill("not-the-token");
        await app().getByLabel("Your name (shown to customers)").fill("Ada");
        await app().getByRole("button", { name: "Sign in" }).click();
        await app().getByText("That token was refused.").waitFor();
        expect(await inbox.evaluate(() => sessionStorage.length)).toBe(0);
      });

      it("signs in with the agent token, kept in sessionStorage and never in the URL", async () => {
        await app().getByLabel("Agent token").fill(AGENT);
        await app().getByRole("button", { name: "Sign in" }).click();
        await app().getByRole("list", { name: "Conversations" }).waitFor();
        await app().getByText("Live", { exact: true }).waitFor();
        expect(await inbox.evaluate(() => sessionStorage.getItem("mountkit.inbox.token"))).toBe(AGENT);
        expect(await inbox.evaluate(() => localStorage.getItem("mountkit.inbox.token"))).toBeNull();
        expect(inbox.url()).not.toContain(AGENT);
        // a reload stays signed in (same tab session)
        await inbox.reload();
        await app().getByRole("list", { name: "Conversations" }).waitFor();
        await app().getByText("Live", { exact: true }).waitFor();
      });

      it("shows a new conversation from the widget (another origin) in the open inbox without reload", async () => {
        await inbox.evaluate(() => {
          (window as unknown as { __same: boolean }).__same = true;
        });
        await customer.goto(shop.url);
        await widget().getByRole("button", { name: "Support" }).click();
        await widget().getByRole("button", { name: "New conversation" }).click();
        await widget().getByLabel("How can we help?").fill(subject);
        await widget().getByRole("button", { name: "Send" }).click();
        await expect.poll(() => widget().getByRole("list", { name: "Messages" }).innerText()).toContain(subject);
        const item = app().getByRole("button", { name: new RegExp(subject) });
        await item.waitFor({ timeout: 5000 });
        expect(await inbox.evaluate(() => (window as unknown as { __same?: boolean }).__same)).toBe(true);
        const list = await agentApi(`/conversations?productSlug=demo&q=${encodeURIComponent(subject)}`);
        expect(list.body.items).toHaveLength(1);
        conversationId = list.body.items[0].id;
        await item.click();
        await app().getByRole("heading", { name: subject }).waitFor();
        await expect.poll(() => thread().innerText()).toContain(subject);
      });

      it("sends the agent's reply from the inbox; the widget shows it live", async () => {
        const text = `On its way, ${framework}.`;
        await app().getByLabel("Reply").fill(text);
        // time from the click to the reply in the customer's widget, both read from the same clock
        await customer.evaluate((t) => {
          const w = window as unknown as { __seenAt?: number };
          const host = document.querySelector("mountkit-support")!;
          const check = () => {
            if (!w.__seenAt && host.shadowRoot?.textContent?.includes(t)) w.__seenAt = Date.now();
          };
          new MutationObserver(check).observe(host.shadowRoot!, { subtree: true, childList: true, characterData: true });
        }, text);
        const clickedAt = Date.now();
        await app().getByRole("button", { name: "Send reply" }).click();
        await widget().getByText(text).waitFor({ timeout: 5000 });
        const seenAt = await customer.evaluate(() => (window as unknown as { __seenAt?: number }).__seenAt);
        const ms = (seenAt ?? Date.now()) - clickedAt;
        console.log(`[inbox ${framework}] reply sent in the inbox shown in the widget after ${ms} ms (load ${loadAverage()})`);
        expect(ms).toBeGreaterThanOrEqual(0);
        await expect.poll(() => thread().innerText()).toContain(text);
        const d = await agentApi(`/conversations/${conversationId}`);
        expect(d.body.messages.at(-1)).toMatchObject({ author: "Ada", isCustomer: false });
        expect(d.body.status).toBe("waiting-for-customer");
        await pane().getByText("Waiting for customer").waitFor();
      });

      it("shows a new customer message in the open thread without reload", async () => {
        const text = `Thanks! Which carrier? (${framework})`;
        await widget().getByLabel("Your message").fill(text);
        await widget().getByRole("button", { name: "Send" }).click();
        await expect.poll(() => thread().innerText(), { timeout: 5000 }).toContain(text);
        expect(await inbox.evaluate(() => (window as unknown as { __same?: boolean }).__same)).toBe(true);
        // once, though the reply and the stream both know it
        expect((await thread().innerText()).split(text).length - 1).toBe(1);
        expect(await thread().innerText()).not.toContain("cs:");
      });

      it("inserts a canned reply by typing /shortcut, sends it, and the widget shows it", async () => {
        const body = `Your parcel left our warehouse today (${framework}).`;
        const made = await call(`${apiUrl}/agent/canned-replies?productSlug=demo`, {
          headers: { authorization: `Bearer ${AGENT}` },
          body: { shortcut: `shipped-${framework}`, title: "Parcel shipped", body },
        });
        expect(made.status, made.text).toBe(201);
        const box = app().getByLabel("Reply");
        await box.fill("");
        await box.pressSequentially(`/shipped-${framework.slice(0, 2)}`);
        await suggestion(`/shipped-${framework}`).waitFor({ timeout: 5000 });
        await box.press("Enter");
        expect(await box.inputValue()).toBe(body);
        await app().getByRole("button", { name: "Send reply" }).click();
        await widget().getByText(body).waitFor({ timeout: 5000 });
        await expect.poll(() => box.inputValue()).toBe("");
        const d = await agentApi(`/conversations/${conversationId}`);
        expect(d.body.messages.at(-1)).toMatchObject({ body, author: "Ada", isCustomer: false });
        // the picker inserts at the cursor too
        await app()
          .getByLabel("Insert a canned response")
          .selectOption({ label: `/shipped-${framework} · Parcel shipped` });
        expect(await box.inputValue()).toBe(body);
        await box.fill("");
      });

      it("suggests a shortcut typed while the product's canned replies are still being read", async () => {
        const body = `It will arrive tomorrow (${framework}).`;
        const made = await call(`${apiUrl}/agent/canned-replies?productSlug=demo`, {
          headers: { authorization: `Bearer ${AGENT}` },
          body: { shortcut: `tomorrow-${framework}`, title: "Arrives tomorrow", body },
        });
        expect(made.status, made.text).toBe(201);
        // the inbox's read of the list is held until the shortcut is typed: the read an opened conversation starts
        let release = () => {};
        const held = new Promise<void>((r) => {
          release = r;
        });
        let reads = 0;
        const list = "**/agent/canned-replies?*";
        await inbox.route(list, async (route) => {
          reads++;
          await held;
          await route.continue();
        });
        try {
          await inbox.reload();
          await app()
            .getByRole("button", { name: new RegExp(subject) })
            .click();
          await app().getByRole("heading", { name: subject }).waitFor();
          const box = app().getByLabel("Reply");
          await box.pressSequentially(`/tomorrow-${framework.slice(0, 2)}`);
          await expect.poll(() => reads).toBeGreaterThan(0);
          expect(await app().getByRole("listbox", { name: "Canned responses" }).isVisible()).toBe(false);
          release();
          await suggestion(`/tomorrow-${framework}`).waitFor({ timeout: 5000 });
          await box.press("Enter");
          expect(await box.inputValue()).toBe(body);
          await box.fill("");
        } finally {
          release();
          await inbox.unroute(list);
        }
      });

      it("adds a private note that the inbox shows and the customer's widget never does", async () => {
        const note = `Courier claim #${framework}-4411 opened; do not promise a date.`;
        await app().getByLabel("Reply").fill(note);
        await app().getByRole("button", { name: "Add private note" }).click();
        await expect.poll(() => thread().innerText(), { timeout: 5000 }).toContain(note);
        await expect.poll(() => thread().innerText()).toContain("Private note · Ada");
        const d = await agentApi(`/conversations/${conversationId}`);
        expect(d.body.notes.at(-1)).toMatchObject({ body: note, author: "Ada" });
        expect(d.body.messages.map((m: { body: string }) => m.body)).not.toContain(note);
        // a reply after the note reaches the widget: the note, written before it, would have too
        const after = `We have opened a claim with the courier (${framework}).`;
        await app().getByLabel("Reply").fill(after);
        await app().getByRole("button", { name: "Send reply" }).click();
        await widget().getByText(after).waitFor({ timeout: 5000 });
        expect(await widget().innerText()).not.toContain("Courier claim");
        expect(await customer.content()).not.toContain("Courier claim");
      });

      it("labels, assigns, resolves and closes from the inbox, and filters by them", async () => {
        await app().getByLabel("Labels (comma-separated)").fill("shipping, vip");
        await app().getByRole("button", { name: "Save labels" }).click();
        await expect
          .poll(async () => (await agentApi(`/conversations/${conversationId}`)).body.labels)
          .toEqual(expect.arrayContaining(["shipping", "vip"]));
        await app().getByRole("button", { name: "Assign to me" }).click();
        await expect.poll(async () => (await agentApi(`/conversations/${conversationId}`)).body.assignee).toBe("Ada");
        await pane().getByText("Assigned to Ada").waitFor();

        await app().getByRole("button", { name: "Resolve" }).click();
        await expect.poll(async () => (await agentApi(`/conversations/${conversationId}`)).body.status).toBe("resolved");
        await widget().getByText("Resolved", { exact: true }).waitFor();
        await app().getByRole("button", { name: "Reopen" }).waitFor();

        // filters: resolved is not "All open"; the label, assignee and search find it under "Any status"
        const item = app().getByRole("button", { name: new RegExp(subject) });
        await expect.poll(() => item.count()).toBe(0);
        await app().getByLabel("Status", { exact: true }).selectOption({ label: "Any status" });
        await item.waitFor();
        await app().getByLabel("With label").fill("vip");
        await item.waitFor();
        await app().getByLabel("With label").fill("no-such-label");
        await expect.poll(() => item.count()).toBe(0);
        await app().getByLabel("With label").fill("");
        await app().getByLabel("Assigned to").fill("Ada");
        await item.waitFor();
        await app().getByLabel("Assigned to").fill("");
        await app().getByLabel("Search").fill("which CARRIER");
        await item.waitFor();
        await expect.poll(() => app().getByRole("list", { name: "Conversations" }).getByRole("listitem").count()).toBe(1);
        await app().getByLabel("Search").fill("");

        await app().getByRole("button", { name: "Close", exact: true }).click();
        await expect.poll(async () => (await agentApi(`/conversations/${conversationId}`)).body.status).toBe("closed");
        await widget().getByText("Closed", { exact: true }).waitFor();
        // the inbox learns of the close from its own answer and stream, which may come after the widget's
        await expect.poll(() => app().getByLabel("Reply").isDisabled(), { timeout: 15_000 }).toBe(true);
      });

      it("pages the list with Load more, and keeps the loaded pages through a live change", async () => {
        const other = `cust_${crypto.randomUUID()}`;
        for (let i = 1; i <= 3; i++)
          expect(
            (
              await call(`${apiUrl}/api/conversations`, {
                body: { productSlug: "demo", customerId: other, message: `Paged ${framework} ${i}` },
              })
            ).status,
          ).toBe(200);
        await inbox.goto(`${apiUrl}/agent/inbox/?product=demo&pageSize=2`);
        const items = app()
          .getByRole("list", { name: "Conversations" })
          .getByRole("button", { name: /Paged|Parcel/ });
        await app().getByLabel("Status", { exact: true }).selectOption({ label: "Any status" });
        await expect.poll(() => items.count()).toBe(2);
        await app().getByRole("button", { name: "Load more" }).click();
        await expect.poll(() => items.count()).toBe(4);
        // a new conversation arrives: the two loaded pages are read again, not one
        await call(`${apiUrl}/api/conversations`, { body: { productSlug: "demo", customerId: other, message: `Paged ${framework} 4` } });
        await app()
          .getByRole("button", { name: new RegExp(`Paged ${framework} 4`) })
          .waitFor();
        await expect.poll(() => items.count()).toBe(4);
        await app().getByRole("button", { name: "Load more" }).click();
        await expect.poll(() => items.count()).toBe(5);
        await expect.poll(() => app().getByRole("button", { name: "Load more" }).count()).toBe(0);
      });

      it("ran under its CSP without a console error", () => {
        expect(pageErrors).toEqual([]);
      });

      it("has no serious or critical accessibility violation, signed out and signed in", async () => {
        // axe is injected as an inline script, which the page's CSP rightly blocks: this context bypasses it
        const axeContext = await browser.newContext({ bypassCSP: true });
        axeContext.setDefaultTimeout(15_000);
        try {
          const page = await axeContext.newPage();
          const a = page.locator("mountkit-inbox");
          await page.goto(`${apiUrl}/agent/inbox/?product=demo`);
          await a.getByLabel("Agent token").waitFor();
          expect(await accessibilityViolations(page)).toEqual([]);
          await a.getByLabel("Agent token").fill(AGENT);
          await a.getByLabel("Your name (shown to customers)").fill("Ada");
          await a.getByRole("button", { name: "Sign in" }).click();
          await a.getByLabel("Status", { exact: true }).selectOption({ label: "Any status" });
          await a.getByRole("button", { name: new RegExp(subject) }).click();
          await a.getByRole("heading", { name: subject }).waitFor();
          await expect.poll(() => a.getByRole("list", { name: "Messages" }).innerText()).toContain("Which carrier");
          expect(await accessibilityViolations(page)).toEqual([]);
          await page.setViewportSize({ width: 360, height: 740 });
          expect(await accessibilityViolations(page)).toEqual([]);
        } finally {
          await axeContext.close();
        }
      });

      if (framework === FRAMEWORKS[0])
        it("writes screenshots of the inbox (desktop and 360 px)", async () => {
          const files = await screenshots(inbox, "support-inbox", async (p) => {
            await p.goto(`${apiUrl}/agent/inbox/?product=demo`);
            await app().getByLabel("Status", { exact: true }).selectOption({ label: "Any status" });
            await app()
              .getByRole("button", { name: new RegExp(subject) })
              .click();
            await app().getByRole("heading", { name: subject }).waitFor();
            await expect.poll(() => thread().innerText()).toContain("Which carrier");
          });
          expect(files).toHaveLength(2);
          // at 360 px the thread fills the screen: nothing wider than the viewport
          const wide = await inbox.evaluate(() => {
            const out: string[] = [];
            const walk = (root: Document | ShadowRoot) => {
              for (const el of root.querySelectorAll("*")) {
                const r = el.getBoundingClientRect();
                if (r.right > 361) out.push(`${el.tagName.toLowerCase()}.${el.className} right=${Math.round(r.right)}`);
                if (el.shadowRoot) walk(el.shadowRoot);
              }
            };
            walk(document);
            return out;
          });
          expect(wide).toEqual([]);
        });
    });
  }
});

const loadAverage = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(" ");
