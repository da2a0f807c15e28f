// Support's outbound events (docs/support.md#webhooks) under Express, Fastify and fetch, on real sockets; the SQL
// projects rerun it on SQLite and PostgreSQL, where each event's job is written in the transaction of the change it
// reports. (Inbound Slack and GitHub webhooks are test/support-webhooks.test.ts.)
import { createSupportService, stripMetadata } from "@mountkit/support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, forEachAdapter } from "./harness.js";
import { type Received, type Receiver, startReceiver } from "./webhook-receiver.js";

const SHOP = "spi-token-shop-0123456789";
const OTHER = "spi-token-other-0123456789";
const AGENT = "agent-token-0123456789";
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const cust = () => `cust_${crypto.randomUUID()}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function expectError(r: { status: number; body: any; text: string }, status: number) {
  expect(r.status, r.text).toBe(status);
  expect(r.body).toMatchObject({ error: expect.any(String), requestId: expect.any(String) });
  expect(r.text).not.toMatch(/at .*\.ts:\d+/);
}

/** The deliveries of one conversation, each event once (delivery is at least once), in arrival order. */
const ofConversation = (got: Received[], conversationId: string) =>
  got.filter((g, i) => g.payload.data.conversationId === conversationId && got.findIndex((o) => o.id === g.id) === i);

forEachAdapter(
  "support outbound webhooks",
  () => [
    createSupportService({
      products: ["shop", { slug: "other", spiToken: OTHER }],
      spiToken: SHOP,
      agentToken: AGENT,
      limits: { rateLimit: 100_000 },
      webhooks: { allowPrivate: true, retryScheduleMs: [100, 200, 300, 300, 300, 300, 300, 300, 300, 300], pollMs: 20 },
    }),
  ],
  (t) => {
    const hooks = (path = "") => `${t.url}/care/webhooks${path}`;
    const subscribe = (body: Record<string, unknown>, token = SHOP) => call(hooks(), { body, headers: bearer(token) });
    const create = async (productSlug: string, customerId: string, message = "My order is late") => {
      const r = await call(`${t.url}/api/conversations`, { body: { productSlug, customerId, message } });
      expect(r.status, r.text).toBe(200);
      return r.body.conversationId as string;
    };
    const post = async (id: string, productSlug: string, customerId: string, message: string) => {
      const r = await call(`${t.url}/api/conversations/${id}/messages`, { body: { productSlug, customerId, message } });
      expect(r.status, r.text).toBe(200);
      return r.body.id as string;
    };
    const agent = (path: string, method: string, body?: unknown) =>
      call(`${t.url}/agent/conversations${path}`, { method, headers: bearer(AGENT), ...(body === undefined ? {} : { body }) });

    let receiver: Receiver;
    let otherReceiver: Receiver;
    beforeEach(async () => {
      receiver = await startReceiver();
      otherReceiver = await startReceiver();
    });
    afterEach(async () => {
      // subscriptions go first, so no delivery is left aimed at a closed receiver
      for (const token of [SHOP, OTHER])
        for (const s of (await call(hooks(), { headers: bearer(token) })).body.data ?? [])
          await call(hooks(`/${s.id}`), { method: "DELETE", headers: bearer(token) });
      await Promise.all([receiver.close(), otherReceiver.close()]);
    });

    describe("subscriptions", () => {
      it("live under the SPI per product: another product's token gets 404 on them and an empty list; no token 401", async () => {
        const created = await subscribe({ url: receiver.url, events: ["conversation.created", "conversation.rated"], description: "crm" });
        expect(created.status, created.text).toBe(201);
        expect(created.body).toMatchObject({
          id: expect.stringMatching(/^whs_/),
          url: receiver.url,
          events: ["conversation.created", "conversation.rated"],
          enabled: true,
          secret: expect.stringMatching(/^whsec_/),
        });
        const id = created.body.id;
        expect((await call(hooks(), { headers: bearer(SHOP) })).body.data.map((s: { id: string }) => s.id)).toEqual([id]);
        expect((await call(hooks(`/${id}`), { headers: bearer(SHOP) })).body.description).toBe("crm");
        const rotated = await call(hooks(`/${id}`), { method: "PATCH", body: { rotateSecret: true }, headers: bearer(SHOP) });
        expect(rotated.status).toBe(200);
        expect(rotated.body.secret).not.toBe(created.body.secret);
        for (const [method, path] of [
          ["GET", `/${id}`],
          ["PATCH", `/${id}`],
          ["DELETE", `/${id}`],
          ["GET", `/${id}/deliveries`],
        ] as const) {
          const r = await call(hooks(path), {
            method,
            headers: bearer(OTHER),
            ...(method === "PATCH" ? { body: { enabled: false } } : {}),
          });
          expectError(r, 404);
        }
        expect((await call(hooks(), { headers: bearer(OTHER) })).body.data).toEqual([]);
        expect((await call(hooks(`/${id}`), { headers: bearer(SHOP) })).body.enabled).toBe(true);
        expectError(await call(hooks()), 401);
        expectError(await call(hooks(), { headers: bearer(AGENT) }), 401);
        expect((await call(hooks(`/${id}`), { method: "DELETE", headers: bearer(SHOP) })).status).toBe(204);
        expectError(await call(hooks(`/${id}`), { headers: bearer(SHOP) }), 404);
      });

      it("refuse bad URLs, unknown event types and unknown fields with 400 and the error body", async () => {
        for (const body of [
          { url: "ftp://example.com/x", events: ["message.created"] },
          { url: "http://169.254.169.254/latest", events: ["*"] },
          { url: "not a url", events: ["*"] },
          { url: "https://example.com/", events: ["conversation.exploded"] },
          { url: "https://example.com/", events: ["entry.created"] },
          { url: "https://example.com/", events: [] },
          { url: "https://example.com/", events: ["*"], extra: 1 },
        ]) {
          const r = await subscribe(body);
          expectError(r, 400);
        }
        expect((await call(hooks(), { headers: bearer(SHOP) })).body.data).toEqual([]);
      });
    });

    describe("deliveries", () => {
      it("every event type arrives signed, carrying what the API answers; the library's verifier accepts them; another product's never arrive", async () => {
        const s = (await subscribe({ url: receiver.url, events: ["*"] })).body;
        const o = (await subscribe({ url: otherReceiver.url, events: ["*"] }, OTHER)).body;
        const customer = cust();
        const id = await create("shop", customer);
        const second = await post(id, "shop", customer, "Any news?");
        const reply = await agent(`/${id}/messages`, "POST", { body: "On its way", author: "Ann" });
        expect(reply.status, reply.text).toBe(200);
        expect((await agent(`/${id}/assignee`, "PUT", { assignee: "ann" })).status).toBe(200);
        const early = await call(`${t.url}/api/conversations/${id}/rating`, {
          body: { productSlug: "shop", customerId: customer, score: 5 },
        });
        expectError(early, 409);
        expect(
          (await call(`${t.url}/api/conversations/${id}/close`, { body: { productSlug: "shop", customerId: customer, action: "resolve" } }))
            .status,
        ).toBe(200);
        const rated = await call(`${t.url}/api/conversations/${id}/rating`, {
          body: { productSlug: "shop", customerId: customer, score: 4, comment: "Quick" },
        });
        expect(rated.status, rated.text).toBe(200);
        expect(rated.body.rating).toMatchObject({ score: 4, comment: "Quick", ratedAt: expect.any(String) });

        await receiver.waitFor(9);
        const got = ofConversation(receiver.got, id);
        expect(got.map((g) => g.payload.type)).toEqual([
          "conversation.created",
          "message.created",
          "message.created",
          "conversation.status_changed",
          "message.created",
          "conversation.status_changed",
          "conversation.assigned",
          "conversation.status_changed",
          "conversation.rated",
        ]);
        for (const g of got) {
          expect(receiver.verify(g, s.secret)).toEqual(g.payload);
          expect(g.payload.data.conversationId).toBe(id);
        }
        expect(() => receiver.verify(got[0]!, o.secret)).toThrow();
        const [createdEvt, firstMsg, secondMsg, toAgent, replyMsg, toCustomer, assigned, resolved, ratedEvt] = got.map(
          (g) => g.payload.data,
        );
        expect(createdEvt.conversation).toMatchObject({
          id,
          productSlug: "shop",
          customerId: customer,
          status: "new",
          isOpen: true,
          assignee: null,
        });
        expect(createdEvt.message).toMatchObject({ author: "Customer", isCustomer: true });
        expect(firstMsg).toMatchObject({ id: createdEvt.message.id, isCustomer: true });
        expect(firstMsg.body).toContain("My order is late");
        expect(secondMsg).toMatchObject({ id: second, isCustomer: true });
        expect(toAgent).toMatchObject({ from: "new", to: "waiting-for-agent", conversation: { status: "waiting-for-agent" } });
        expect(replyMsg).toMatchObject({ id: reply.body.id, body: "On its way", author: "Ann", isCustomer: false });
        expect(toCustomer).toMatchObject({ from: "waiting-for-agent", to: "waiting-for-customer" });
        expect(assigned).toMatchObject({ assignee: "ann", previous: null, conversation: { assignee: "ann" } });
        expect(resolved).toMatchObject({ from: "waiting-for-customer", to: "resolved", conversation: { isOpen: false } });
        expect(ratedEvt).toMatchObject({ rating: rated.body.rating, conversation: { id, status: "resolved" } });
        // the rating shows where agents look: the agent detail and interface B's detail
        expect((await agent(`/${id}`, "GET")).body.rating).toEqual(rated.body.rating);
        const spi = await call(`${t.url}/care/conversations/${id}?customerId=${customer}`, { headers: bearer(SHOP) });
        expect(spi.body.rating).toEqual(rated.body.rating);

        // the other product's events reach its own subscription only
        const elsewhere = await create("other", cust(), "Not the shop's");
        const theirs = await otherReceiver.waitFor(2);
        expect(theirs.every((g) => g.payload.data.conversationId === elsewhere)).toBe(true);
        for (const g of theirs) expect(otherReceiver.verify(g, o.secret)).toEqual(g.payload);
        await sleep(300);
        expect(receiver.got.some((g) => g.payload.data.conversationId === elsewhere)).toBe(false);
        expect(otherReceiver.got.some((g) => g.payload.data.conversationId === id)).toBe(false);
      });

      it("a subscription gets only its event types; a disabled one gets none", async () => {
        const s = (await subscribe({ url: receiver.url, events: ["conversation.assigned"] })).body;
        const off = (await subscribe({ url: otherReceiver.url, events: ["*"], enabled: false })).body;
        const id = await create("shop", cust());
        await agent(`/${id}/assignee`, "PUT", { assignee: "bo" });
        await agent(`/${id}/assignee`, "PUT", { assignee: null });
        const got = ofConversation(await receiver.waitFor(2), id);
        expect(got.map((g) => [g.payload.type, g.payload.data.assignee, g.payload.data.previous])).toEqual([
          ["conversation.assigned", "bo", null],
          ["conversation.assigned", null, "bo"],
        ]);
        expect(receiver.verify(got[0]!, s.secret)).toEqual(got[0]!.payload);
        await sleep(200);
        expect(otherReceiver.requests()).toBe(0);
        expect(off.enabled).toBe(false);
      });

      it("deleting a message or a conversation deletes the events and deliveries naming it, sent or pending; others stay", async () => {
        const s = (await subscribe({ url: receiver.url, events: ["*"] })).body;
        const customer = cust();
        const id = await create("shop", customer, "Where is parcel Vexlomb?");
        const second = await post(id, "shop", customer, "The code is Quandrix-7781");
        const kept = await create("shop", cust(), "Another order");
        const log = async () => {
          const r = await call(hooks(`/${s.id}/deliveries?limit=100`), { headers: bearer(SHOP) });
          expect(r.status, r.text).toBe(200);
          return r.body.data as Array<{ subject: string; state: string; payload: unknown }>;
        };
        const naming = async (text: string) => (await log()).filter((d) => JSON.stringify(d.payload).includes(text));
        for (let i = 0; i < 500 && (await naming("Quandrix")).length === 0; i++) await sleep(10);
        await receiver.waitFor(5);
        // a reply while the receiver is down: its delivery stays pending, naming the conversation
        receiver.down = true;
        expect((await agent(`/${id}/messages`, "POST", { body: "Parcel Vexlomb left today", author: "Ann" })).status).toBe(200);
        for (let i = 0; i < 500 && !(await naming("left today")).length; i++) await sleep(10);
        expect((await naming("left today"))[0]!.state).toBe("pending");

        expect((await agent(`/${id}/messages/${second}`, "DELETE")).status).toBe(204);
        expect(await naming("Quandrix")).toEqual([]);
        expect((await naming("Vexlomb")).length).toBeGreaterThan(0);
        expect((await agent(`/${id}`, "DELETE")).status).toBe(204);
        expect((await log()).filter((d) => d.subject === id)).toEqual([]);
        expect((await log()).filter((d) => d.subject === kept).length).toBeGreaterThan(0);
        // nothing of the deleted conversation is sent once the receiver is back
        const before = receiver.got.length;
        receiver.down = false;
        await create("shop", cust(), "After the deletion");
        await receiver.waitFor(new Set(receiver.got.map((g) => g.id)).size + 2);
        expect(receiver.got.slice(before).filter((g) => g.payload.data.conversationId === id)).toEqual([]);
      });

      it("a receiver down for a while gets every event once back, in order per conversation; the log shows the failed attempts", async () => {
        const s = (await subscribe({ url: receiver.url, events: ["message.created", "conversation.status_changed"] })).body;
        receiver.down = true;
        const customers = [cust(), cust(), cust()];
        const ids: string[] = [];
        for (const c of customers) ids.push(await create("shop", c, "first"));
        for (let round = 1; round <= 2; round++)
          for (const [i, id] of ids.entries()) {
            await post(id, "shop", customers[i]!, `customer ${round}`);
            expect((await agent(`/${id}/messages`, "POST", { body: `agent ${round}`, author: "Ann" })).status).toBe(200);
          }
        await sleep(400);
        expect(receiver.got).toHaveLength(0);
        expect(receiver.requests()).toBeGreaterThan(0);
        receiver.down = false;
        // per conversation: the first message, then two rounds of (customer message, status, agent message, status)
        await receiver.waitFor(ids.length * 9);
        for (const id of ids) {
          const seen = ofConversation(receiver.got, id).map((g) =>
            g.payload.type === "message.created" ? stripMetadata(g.payload.data.body) : `${g.payload.data.from}>${g.payload.data.to}`,
          );
          expect(seen).toEqual([
            "first",
            "customer 1",
            "new>waiting-for-agent",
            "agent 1",
            "waiting-for-agent>waiting-for-customer",
            "customer 2",
            "waiting-for-customer>waiting-for-agent",
            "agent 2",
            "waiting-for-agent>waiting-for-customer",
          ]);
          for (const g of ofConversation(receiver.got, id)) expect(receiver.verify(g, s.secret)).toEqual(g.payload);
        }
        const settled = async () => {
          const r = await call(hooks(`/${s.id}/deliveries?limit=100`), { headers: bearer(SHOP) });
          return r.body.data.length === ids.length * 9 && r.body.data.every((d: { state: string }) => d.state === "delivered");
        };
        for (let i = 0; i < 100 && !(await settled()); i++) await sleep(20);
        const log = (await call(hooks(`/${s.id}/deliveries?limit=100`), { headers: bearer(SHOP) })).body.data;
        expect(log).toHaveLength(ids.length * 9);
        expect(log.every((d: { state: string }) => d.state === "delivered")).toBe(true);
        expect(log.some((d: { attempts: Array<{ status: number }> }) => d.attempts.some((a) => a.status === 503))).toBe(true);
        expectError(await call(hooks(`/${s.id}/deliveries`), { headers: bearer(OTHER) }), 404);
        const one = log[0];
        expectError(await call(hooks(`/${s.id}/deliveries/${one.id}/redeliver`), { method: "POST", headers: bearer(OTHER) }), 404);
        const before = receiver.got.length;
        expect((await call(hooks(`/${s.id}/deliveries/${one.id}/redeliver`), { method: "POST", headers: bearer(SHOP) })).status).toBe(202);
        for (let i = 0; i < 100 && receiver.got.length === before; i++) await sleep(20);
        expect(receiver.got.at(-1)!.id).toBe(one.eventId);
      });
    });

    describe("ratings", () => {
      it("one per conversation, changeable, by its own customer, 1 to 5; bad input answers 400 with the error body", async () => {
        const customer = cust();
        const id = await create("shop", customer);
        const rate = (body: Record<string, unknown>) => call(`${t.url}/api/conversations/${id}/rating`, { body });
        expect(
          (await call(`${t.url}/api/conversations/${id}/close`, { body: { productSlug: "shop", customerId: customer, action: "close" } }))
            .status,
        ).toBe(200);
        for (const bad of [
          { productSlug: "shop", customerId: customer, score: 0 },
          { productSlug: "shop", customerId: customer, score: 6 },
          { productSlug: "shop", customerId: customer, score: 2.5 },
          { productSlug: "shop", customerId: customer, score: "5" },
          { productSlug: "shop", customerId: customer },
          { productSlug: "shop", customerId: "nobody", score: 3 },
          { productSlug: "shop", customerId: customer, score: 3, comment: "" },
        ])
          expectError(await rate(bad), 400);
        expectError(await rate({ productSlug: "shop", customerId: cust(), score: 3 }), 404);
        expectError(await rate({ productSlug: "other", customerId: customer, score: 3 }), 404);
        expectError(await rate({ productSlug: "nope", customerId: customer, score: 3 }), 404);
        const first = await rate({ productSlug: "shop", customerId: customer, score: 2, comment: "Slow" });
        expect(first.body.rating).toMatchObject({ score: 2, comment: "Slow" });
        const second = await rate({ productSlug: "shop", customerId: customer, score: 5 });
        expect(second.body.rating).toMatchObject({ score: 5, comment: null });
        expect((await agent(`/${id}`, "GET")).body.rating).toEqual(second.body.rating);
      });
    });
  },
);
