// The agent inbox signed in with the host's own identity (a JWT the example server verifies through
// SUPPORT_AGENT_HS256_SECRET) in Chromium, under Express, Fastify and fetch: the header names the agent from
// GET /agent/me, "Assign to me" writes their id and shows their name, their reply carries their name; the shared
// token still signs in (with a typed name), and sign-out forgets the token.

import { type Service, silentLogger } from "@mountkit/core";
import { signHs256 } from "@mountkit/entries";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { supportFromEnv } from "../../examples/server/src/services/support.js";
import { call } from "../harness.js";
import { FRAMEWORKS, listen, type Running } from "../servers.js";
import { describeInChromium } from "./browser.js";

const SHARED = "agent-token-identity-0123456789";
const JWT_SECRET = "inbox-identity-hs256-secret-0123456789abcdef";

describeInChromium("support inbox with agent identities in Chromium", (chromium) => {
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
      let conversationId = "";
      const grace = { sub: `agent-${crypto.randomUUID()}`, name: "Grace Hopper" };
      const linus = { sub: `agent-${crypto.randomUUID()}`, name: "Linus Pauling" };
      let graceToken = "";
      const subject = `Refund ${framework} ${crypto.randomUUID().slice(0, 6)} please`;
      const customerId = `cust_${crypto.randomUUID()}`;
      const pageErrors: string[] = [];

      const app = () => inbox.locator("mountkit-inbox");
      const header = () => app().locator("header.top");
      const pane = () => app().getByRole("region", { name: "Conversation", exact: true });
      const thread = () => app().getByRole("list", { name: "Messages" });
      const asAgent = (token: string, path: string, init: { method?: string; body?: unknown } = {}) =>
        call(`${apiUrl}/agent${path}`, { ...init, headers: { authorization: `Bearer ${token}` } });
      const detail = async () => (await asAgent(SHARED, `/conversations/${conversationId}`)).body;

      beforeAll(async () => {
        support = await supportFromEnv(
          {
            SUPPORT_PRODUCTS: "demo",
            SUPPORT_AGENT_TOKEN: SHARED,
            SUPPORT_AGENT_HS256_SECRET: JWT_SECRET,
            SUPPORT_RATE_LIMIT: "1000",
            SUPPORT_CUSTOMER_RATE_LIMIT: "100",
          },
          { logger: silentLogger },
        );
        running = await listen(framework, [support]);
        apiUrl = running.url;
        graceToken = await signHs256(JWT_SECRET, { ...grace, expiresInSec: 3600 }, Date.now());
        const made = await call(`${apiUrl}/api/conversations`, { body: { productSlug: "demo", customerId, message: subject } });
        expect(made.status, made.text).toBe(200);
        conversationId = made.body.conversationId;
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

      it("signs in with the agent's own token and no typed name: the header names the agent from /agent/me", async () => {
        const me = await asAgent(graceToken, "/me");
        expect(me.body).toEqual({ via: "identity", id: grace.sub, name: grace.name });
        await inbox.goto(`${apiUrl}/agent/inbox/?product=demo`);
        await app().getByLabel("Agent token").fill(graceToken);
        expect(await app().getByLabel("Your name (shown to customers)").inputValue()).toBe("");
        await app().getByRole("button", { name: "Sign in" }).click();
        await app().getByRole("list", { name: "Conversations" }).waitFor();
        await expect.poll(() => header().innerText()).toContain(`Signed in as ${grace.name}`);
        expect(await header().innerText()).not.toContain("shared token");
        expect(await inbox.evaluate(() => sessionStorage.getItem("mountkit.inbox.token"))).toBe(graceToken);
        // no name was typed, and none is stored for the next shared-token sign-in
        expect(await inbox.evaluate(() => localStorage.getItem("mountkit.inbox.author"))).toBeNull();
        // a reload stays signed in as the same agent
        await inbox.reload();
        await expect.poll(() => header().innerText()).toContain(`Signed in as ${grace.name}`);
      });

      it("Assign to me writes the agent's id and shows their name; Unassign clears it", async () => {
        await app()
          .getByRole("button", { name: new RegExp(subject) })
          .click();
        await app().getByRole("heading", { name: subject }).waitFor();
        await pane().getByText("Unassigned").waitFor();
        await app().getByRole("button", { name: "Assign to me" }).click();
        await expect.poll(async () => (await detail()).assignee).toBe(grace.sub);
        await pane().getByText(`Assigned to ${grace.name} (you)`).waitFor();
        expect(await pane().innerText()).not.toContain(`Assigned to ${grace.sub}`);
        // the list row names the agent, not the id
        const row = app().getByRole("button", { name: new RegExp(subject) });
        await expect.poll(() => row.innerText()).toContain(`→ ${grace.name}`);
        // the list filters by the id the inbox wrote
        const mine = await asAgent(graceToken, `/conversations?productSlug=demo&assignee=${encodeURIComponent(grace.sub)}`);
        expect(mine.body.items.map((x: { id: string }) => x.id)).toEqual([conversationId]);

        await app().getByRole("button", { name: "Unassign" }).click();
        await expect.poll(async () => (await detail()).assignee).toBeNull();
        await pane().getByText("Unassigned").waitFor();
        await expect.poll(() => app().getByRole("button", { name: "Unassign" }).isHidden()).toBe(true);
      });

      it("a reply from the inbox carries the agent's name for the customer and their id for agents", async () => {
        const text = `Your refund is on its way (${framework}).`;
        await app().getByLabel("Reply").fill(text);
        await app().getByRole("button", { name: "Send reply" }).click();
        await expect.poll(() => thread().innerText()).toContain(text);
        await expect.poll(() => thread().innerText()).toContain(`${grace.name} ·`);
        const d = await detail();
        expect(d.messages.at(-1)).toMatchObject({ author: grace.name, authorId: grace.sub, isCustomer: false });
        const customer = await call(`${apiUrl}/api/conversations/${conversationId}?productSlug=demo&customerId=${customerId}`);
        expect(customer.status).toBe(200);
        const seen = customer.body.comments.at(-1);
        expect(seen).toMatchObject({ author: grace.name, isCustomer: false });
      });

      it("another agent's assignment (over the stream) shows by that agent's name, read from their reply", async () => {
        const linusToken = await signHs256(JWT_SECRET, { ...linus, expiresInSec: 3600 }, Date.now());
        const text = `Linus here, taking this one (${framework}).`;
        expect((await asAgent(linusToken, `/conversations/${conversationId}/messages`, { body: { body: text } })).status).toBe(200);
        await expect.poll(() => thread().innerText()).toContain(`${linus.name} ·`);
        const put = await asAgent(linusToken, `/conversations/${conversationId}/assignee`, {
          method: "PUT",
          body: { assignee: linus.sub },
        });
        expect(put.body).toEqual({ assignee: linus.sub });
        await pane().getByText(`Assigned to ${linus.name}`).waitFor();
        expect(await pane().innerText()).not.toContain("(you)");
      });

      it("signs out: the token is forgotten and the sign-in form is back", async () => {
        await header().getByRole("button", { name: "Sign out" }).click();
        await app().getByLabel("Agent token").waitFor();
        expect(await inbox.evaluate(() => sessionStorage.getItem("mountkit.inbox.token"))).toBeNull();
        await inbox.reload();
        await app().getByLabel("Agent token").waitFor();
      });

      it("the shared token needs a typed name, then signs in under it and assigns by that name", async () => {
        await app().getByLabel("Agent token").fill(SHARED);
        await app().getByRole("button", { name: "Sign in" }).click();
        await app().getByText("Enter your name: the shared token does not say who you are.").waitFor();
        expect(await inbox.evaluate(() => sessionStorage.length)).toBe(0);
        await app().getByLabel("Your name (shown to customers)").fill("Ada");
        await app().getByRole("button", { name: "Sign in" }).click();
        await expect.poll(() => header().innerText()).toContain("Signed in as Ada (shared token)");
        await app()
          .getByRole("button", { name: new RegExp(subject) })
          .click();
        await app().getByRole("heading", { name: subject }).waitFor();
        await app().getByRole("button", { name: "Assign to me" }).click();
        await expect.poll(async () => (await detail()).assignee).toBe("Ada");
        await pane().getByText("Assigned to Ada (you)").waitFor();
        const text = `Ada with the shared token (${framework}).`;
        await app().getByLabel("Reply").fill(text);
        await app().getByRole("button", { name: "Send reply" }).click();
        await expect.poll(async () => (await detail()).messages.at(-1)).toMatchObject({ body: text, author: "Ada", authorId: null });
      });

      it("ran without a console error", () => {
        expect(pageErrors).toEqual([]);
      });
    });
  }
});
