// Support's private notes and canned replies (docs/support.md#private-notes, #canned-replies) under Express, Fastify
// and fetch on real sockets; the SQL projects rerun it on SQLite and PostgreSQL. A note must never reach interface A,
// its stream, interface B or an outbound event: each is read or listened to with the note's text as the needle.
import { createSupportService } from "@mountkit/support";
import { EventSource } from "eventsource";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, forEachAdapter } from "./harness.js";
import { waitFor, watch } from "./support/sse.js";
import { type Receiver, startReceiver } from "./webhook-receiver.js";

const SPI = "spi-token-desk-0123456789";
const AGENT = "agent-token-desk-0123456789";
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const cust = () => `cust_${crypto.randomUUID()}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function expectError(r: { status: number; body: any; text: string; headers: Headers }, status: number) {
  expect(r.status, r.text).toBe(status);
  expect(r.body).toMatchObject({ error: expect.any(String), requestId: expect.any(String) });
  expect(r.headers.get("x-request-id")).toBe(r.body.requestId);
}

/** A real EventSource on an agent stream (bearer token through its fetch), recording each frame's JSON. */
function agentWatch(url: string) {
  const events: Array<{ type: string; data: any }> = [];
  const raw: string[] = [];
  const es = new EventSource(url, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...bearer(AGENT) } }),
  });
  es.onmessage = (m) => {
    raw.push(m.data);
    events.push(JSON.parse(m.data));
  };
  return { events, raw, close: () => es.close() };
}

forEachAdapter(
  "support private notes and canned replies",
  () => [
    createSupportService({
      products: ["desk", "elsewhere"],
      spiToken: SPI,
      agentToken: AGENT,
      limits: { rateLimit: 100_000 },
      heartbeatMs: 300,
      webhooks: { allowPrivate: true, retryScheduleMs: [100, 200, 300], pollMs: 20 },
    }),
  ],
  (t) => {
    const agent = (path: string, method = "GET", body?: unknown) =>
      call(`${t.url}/agent${path}`, { method, headers: bearer(AGENT), ...(body === undefined ? {} : { body }) });
    const create = async (customerId: string, message = "My parcel is late", productSlug = "desk") => {
      const r = await call(`${t.url}/api/conversations`, { body: { productSlug, customerId, message } });
      expect(r.status, r.text).toBe(200);
      return r.body.conversationId as string;
    };
    const scope = (customerId: string, productSlug = "desk") => `productSlug=${productSlug}&customerId=${encodeURIComponent(customerId)}`;

    describe("private notes", () => {
      let receiver: Receiver;
      beforeEach(async () => {
        receiver = await startReceiver();
      });
      afterEach(async () => {
        for (const s of (await call(`${t.url}/care/webhooks`, { headers: bearer(SPI) })).body.data ?? [])
          await call(`${t.url}/care/webhooks/${s.id}`, { method: "DELETE", headers: bearer(SPI) });
        await receiver.close();
      });

      it("reach agents (detail, list, inbox stream) and never interface A, its stream, interface B or a webhook", async () => {
        const sub = await call(`${t.url}/care/webhooks`, { body: { url: receiver.url, events: ["*"] }, headers: bearer(SPI) });
        expect(sub.status, sub.text).toBe(201);
        const customerId = cust();
        const id = await create(customerId);
        const secret = `NOTE-${crypto.randomUUID()}`;
        const customerStream = watch(`${t.url}/api/conversations/${id}/stream?${scope(customerId)}`);
        const agentStream = agentWatch(`${t.url}/agent/conversations/${id}/stream`);
        const inbox = agentWatch(`${t.url}/agent/conversations/stream?productSlug=desk`);
        try {
          await waitFor(() => customerStream.events.some((e) => e.type === "connected"), 8000, "customer stream");
          await waitFor(() => agentStream.events.some((e) => e.type === "connected"), 8000, "agent stream");
          await waitFor(() => inbox.events.some((e) => e.type === "connected"), 8000, "inbox stream");
          const added = await agent(`/conversations/${id}/notes`, "POST", { body: `Refund approved by Sam. ${secret}`, author: "Ana" });
          expect(added.status, added.text).toBe(201);
          expect(added.body).toMatchObject({ id: expect.any(String), author: "Ana", body: `Refund approved by Sam. ${secret}` });
          await waitFor(() => inbox.events.some((e) => e.type === "notes_changed"), 8000, "notes_changed");
          expect(inbox.events.find((e) => e.type === "notes_changed")?.data).toEqual({ conversationId: id });

          // later events on every channel: whatever a note would have sent is delivered before these
          const reply = await agent(`/conversations/${id}/messages`, "POST", { body: "We are on it.", author: "Ana" });
          expect(reply.status, reply.text).toBe(200);
          const posted = await call(`${t.url}/api/conversations/${id}/messages`, {
            body: { productSlug: "desk", customerId, message: "thanks" },
          });
          expect(posted.status).toBe(200);
          const isBody = (body: string) => (e: { type: string; data: any }) => e.type === "new_comment" && e.data?.body?.startsWith(body);
          await waitFor(() => customerStream.events.some(isBody("thanks")), 8000, "customer stream's later message");
          await waitFor(() => agentStream.events.some(isBody("thanks")), 8000, "agent stream's later message");
          const deliveries = await receiver.waitFor(4);
          expect(deliveries.map((d) => d.payload.type)).toContain("message.created");

          expect(JSON.stringify(customerStream.events)).not.toContain(secret);
          expect(customerStream.events.map((e) => e.type)).not.toContain("notes_changed");
          expect(agentStream.raw.join("\n")).not.toContain(secret);
          await sleep(200);
          expect(receiver.got.map((d) => d.body).join("\n")).not.toContain(secret);

          // interface A: detail and list; the note moved neither updatedAt nor the status
          const a = await call(`${t.url}/api/conversations/${id}?${scope(customerId)}`);
          expect(a.status).toBe(200);
          expect(a.text).not.toContain(secret);
          expect(a.body.comments.map((c: { body: string }) => c.body)).toEqual(["We are on it.", expect.stringContaining("thanks")]);
          const listA = await call(`${t.url}/api/conversations/list?${scope(customerId)}`);
          expect(listA.text).not.toContain(secret);
          // interface B: detail and list
          const b = await call(`${t.url}/care/conversations/${id}?customerId=${customerId}`, { headers: bearer(SPI) });
          expect(b.status, b.text).toBe(200);
          expect(b.text).not.toContain(secret);
          expect(b.body).not.toHaveProperty("notes");
          const listB = await call(`${t.url}/care/conversations?customerId=${customerId}`, { headers: bearer(SPI) });
          expect(listB.status).toBe(200);
          expect(listB.text).not.toContain(secret);

          // the agent side has it: the detail and the notes list
          const d = await agent(`/conversations/${id}`);
          expect(d.body.notes).toEqual([added.body]);
          expect(d.body.messages.map((m: { body: string }) => m.body).join("\n")).not.toContain(secret);
          expect((await agent(`/conversations/${id}/notes`)).body).toEqual({ items: [added.body] });
        } finally {
          customerStream.close();
          agentStream.close();
          inbox.close();
        }
      });

      it("a note leaves interface A's updatedAt and the status as they were", async () => {
        const customerId = cust();
        const id = await create(customerId);
        const before = await call(`${t.url}/api/conversations/${id}?${scope(customerId)}`);
        await sleep(15);
        expect((await agent(`/conversations/${id}/notes`, "POST", { body: "internal", author: "Ana" })).status).toBe(201);
        const after = await call(`${t.url}/api/conversations/${id}?${scope(customerId)}`);
        expect(after.body.issue.updatedAt).toBe(before.body.issue.updatedAt);
        expect(after.body.issue.status).toBe(before.body.issue.status);
        expect((await agent(`/conversations/${id}`)).body.updatedAt).toBe(before.body.issue.updatedAt);
      });

      it("are edited and deleted; a missing note or another conversation's note answers 404; bad bodies 400; no token 401", async () => {
        const id = await create(cust());
        const other = await create(cust());
        const n = (await agent(`/conversations/${id}/notes`, "POST", { body: "first take", author: "Ana" })).body;
        await sleep(5);
        const n2 = (await agent(`/conversations/${id}/notes`, "POST", { body: "second", author: "Bo" })).body;
        const edited = await agent(`/conversations/${id}/notes/${n.id}`, "PATCH", { body: "second take" });
        expect(edited.status, edited.text).toBe(200);
        expect(edited.body).toMatchObject({ id: n.id, body: "second take", author: "Ana", createdAt: n.createdAt });
        expect((await agent(`/conversations/${id}/notes`)).body.items.map((x: { id: string }) => x.id)).toEqual([n.id, n2.id]);

        expectError(await agent(`/conversations/${other}/notes/${n.id}`, "PATCH", { body: "x" }), 404);
        expectError(await agent(`/conversations/${other}/notes/${n.id}`, "DELETE"), 404);
        expectError(await agent(`/conversations/${id}/notes/note_missing`, "PATCH", { body: "x" }), 404);
        expectError(await agent(`/conversations/conv_missing/notes`, "POST", { body: "x", author: "Ana" }), 404);
        expectError(await agent(`/conversations/conv_missing/notes`), 404);
        const empty = await agent(`/conversations/${id}/notes`, "POST", { body: "", author: "Ana" });
        expectError(empty, 400);
        expect(empty.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: "body" })]));
        expectError(await agent(`/conversations/${id}/notes`, "POST", { body: "x".repeat(20_001), author: "Ana" }), 400);
        expectError(await agent(`/conversations/${id}/notes`, "POST", { body: "no author" }), 400);
        expectError(await call(`${t.url}/agent/conversations/${id}/notes`), 401);
        expectError(await call(`${t.url}/agent/conversations/${id}/notes`, { body: { body: "x", author: "A" } }), 401);

        const del = await agent(`/conversations/${id}/notes/${n.id}`, "DELETE");
        expect(del.status).toBe(204);
        expectError(await agent(`/conversations/${id}/notes/${n.id}`, "DELETE"), 404);
        expect((await agent(`/conversations/${id}`)).body.notes).toEqual([n2]);

        // deleting the conversation takes its notes
        expect((await agent(`/conversations/${id}`, "DELETE")).status).toBe(204);
        expectError(await agent(`/conversations/${id}/notes`), 404);
      });
    });

    describe("canned replies", () => {
      const canned = (productSlug: string, path = "", method = "GET", body?: unknown) =>
        agent(`/canned-replies${path}?productSlug=${productSlug}`, method, body);

      it("are created, listed by shortcut, read, edited and deleted per product", async () => {
        const refund = await canned("desk", "", "POST", {
          shortcut: "Refund",
          title: "Refund on its way",
          body: "Your refund is on its way.",
        });
        expect(refund.status, refund.text).toBe(201);
        expect(refund.body).toMatchObject({ id: expect.any(String), shortcut: "refund", title: "Refund on its way" });
        const late = await canned("desk", "", "POST", { shortcut: "late-parcel", title: "Late parcel", body: "Sorry for the wait." });
        expect(late.status).toBe(201);
        const list = await canned("desk");
        expect(list.body.items.map((r: { shortcut: string }) => r.shortcut)).toEqual(["late-parcel", "refund"]);
        expect((await canned("desk", `/${refund.body.id}`)).body).toEqual(refund.body);
        const edited = await canned("desk", `/${refund.body.id}`, "PATCH", { body: "Refunded today." });
        expect(edited.status, edited.text).toBe(200);
        expect(edited.body).toMatchObject({ shortcut: "refund", title: "Refund on its way", body: "Refunded today." });
        const renamed = await canned("desk", `/${refund.body.id}`, "PATCH", { shortcut: "refunded" });
        expect(renamed.body.shortcut).toBe("refunded");
        expect((await canned("desk", `/${late.body.id}`, "DELETE")).status).toBe(204);
        expect((await canned("desk")).body.items.map((r: { id: string }) => r.id)).toEqual([refund.body.id]);
        expect((await canned("desk", `/${refund.body.id}`, "DELETE")).status).toBe(204);
        expect((await canned("desk")).body.items).toEqual([]);
      });

      it("keep a shortcut unique within a product (case-insensitively), answering 409; another product may reuse it", async () => {
        const first = await canned("desk", "", "POST", { shortcut: "hello", title: "Hello", body: "Hi there!" });
        expect(first.status).toBe(201);
        const clash = await canned("desk", "", "POST", { shortcut: "HELLO", title: "Hello again", body: "Hey!" });
        expectError(clash, 409);
        expect(clash.body.details).toEqual([expect.objectContaining({ path: "shortcut" })]);
        const racing = await Promise.all(
          Array.from({ length: 4 }, (_, i) => canned("desk", "", "POST", { shortcut: "race", title: `t${i}`, body: "b" })),
        );
        expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
        const second = await canned("desk", "", "POST", { shortcut: "bye", title: "Bye", body: "Bye!" });
        expectError(await canned("desk", `/${second.body.id}`, "PATCH", { shortcut: "hello" }), 409);
        expect((await canned("desk", `/${second.body.id}`)).body.shortcut).toBe("bye");
        expect((await canned("elsewhere", "", "POST", { shortcut: "hello", title: "Hello", body: "Hi" })).status).toBe(201);
        for (const product of ["desk", "elsewhere"])
          for (const r of (await canned(product)).body.items) expect((await canned(product, `/${r.id}`, "DELETE")).status).toBe(204);
      });

      it("answer 404 to another product's slug, 404 to an unknown product, 400 to bad input, 401 without the token", async () => {
        const r = await canned("desk", "", "POST", { shortcut: "secret", title: "Desk only", body: "desk text" });
        expect(r.status).toBe(201);
        const id = r.body.id;
        expectError(await canned("elsewhere", `/${id}`), 404);
        expectError(await canned("elsewhere", `/${id}`, "PATCH", { body: "hijacked" }), 404);
        expectError(await canned("elsewhere", `/${id}`, "DELETE"), 404);
        expect((await canned("elsewhere")).text).not.toContain("desk text");
        expect((await canned("desk", `/${id}`)).body.body).toBe("desk text");
        expectError(await canned("nope"), 404);
        expectError(await canned("nope", "", "POST", { shortcut: "x", title: "x", body: "x" }), 404);
        expectError(await canned("desk", "/canned_missing"), 404);
        expectError(await agent("/canned-replies"), 400);
        for (const bad of [
          { shortcut: "has space", title: "t", body: "b" },
          { shortcut: "/slash", title: "t", body: "b" },
          { shortcut: "ok", title: "", body: "b" },
          { shortcut: "ok", title: "t", body: "" },
          { shortcut: "ok", title: "t", body: "x".repeat(20_001) },
          { title: "t", body: "b" },
        ]) {
          const res = await canned("desk", "", "POST", bad);
          expectError(res, 400);
          expect(Array.isArray(res.body.details)).toBe(true);
        }
        expectError(await canned("desk", `/${id}`, "PATCH", {}), 400);
        expectError(await call(`${t.url}/agent/canned-replies?productSlug=desk`), 401);
        expectError(await call(`${t.url}/agent/canned-replies/${id}?productSlug=desk`, { method: "DELETE", headers: bearer(SPI) }), 401);
        expect((await canned("desk", `/${id}`, "DELETE")).status).toBe(204);
      });
    });
  },
);
