// Support service HTTP conformance (docs/support.md) under Express, Fastify and fetch, on real sockets.
import { createSupportService, spiBackend } from "@mountkit/support";
import { validate as independentValidate } from "@readme/openapi-parser";
import { describe, expect, it } from "vitest";
import { type AdapterTarget, call, forEachAdapter, unguarded } from "./harness.js";
import { rawStream, waitFor, watch } from "./support/sse.js";

const SPI = "spi-token-123";
const AGENT = "agent-token-456";
const cust = () => `cust_${crypto.randomUUID()}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const spiH = { authorization: `Bearer ${SPI}` };
const agentH = { authorization: `Bearer ${AGENT}` };

/** Every error answer: `{ error, requestId }` with the same id in `X-Request-Id`. */
function expectError(r: { status: number; headers: Headers; body: any }, status: number) {
  expect(r.status).toBe(status);
  expect(typeof r.body?.error).toBe("string");
  expect(typeof r.body?.requestId).toBe("string");
  expect(r.headers.get("x-request-id")).toBe(r.body.requestId);
  expect(JSON.stringify(r.body)).not.toMatch(/at .*\.ts:\d+/);
}

let selfUrl = "";

const makeServices = () => [
  createSupportService({
    products: [
      "demo",
      "other",
      { slug: "tiny", limits: { rateLimit: 3, rateWindowMs: 1000 } },
      { slug: "streams", limits: { maxStreamsPerCustomer: 2 } },
    ],
    limits: { rateLimit: 100_000 },
    spiToken: SPI,
    agentToken: AGENT,
    heartbeatMs: 300,
  }),
  // same kit mounted under a prefix with no tokens configured: /care and /agent refuse everything
  createSupportService({ products: ["demo"], basePath: "/notoken" }),
  // a product whose backend is the SPI client, speaking interface B to the first instance
  createSupportService({
    products: [{ slug: "remote", backend: spiBackend({ baseUrl: () => selfUrl, token: SPI, pollIntervalMs: 50 }) }],
    basePath: "/proxy",
    limits: { rateLimit: 100_000 },
  }),
];

function suite(t: AdapterTarget) {
  const u = (path: string) => `${t.url}${path}`;
  const q = (productSlug: string, customerId: string) =>
    `productSlug=${encodeURIComponent(productSlug)}&customerId=${encodeURIComponent(customerId)}`;
  const create = async (customerId: string, o: { productSlug?: string; message?: string; subject?: string; base?: string } = {}) => {
    const r = await call(u(`${o.base ?? ""}/api/conversations`), {
      body: {
        productSlug: o.productSlug ?? "demo",
        customerId,
        message: o.message ?? "Hello there\nsecond line",
        ...(o.subject ? { subject: o.subject } : {}),
      },
    });
    expect(r.status).toBe(200);
    return r.body.conversationId as string;
  };
  const post = (id: string, customerId: string, message: string, extra: Record<string, unknown> = {}, productSlug = "demo") =>
    call(u(`/api/conversations/${encodeURIComponent(id)}/messages`), { body: { productSlug, customerId, message, ...extra } });
  const detail = (id: string, customerId: string, productSlug = "demo") =>
    call(u(`/api/conversations/${encodeURIComponent(id)}?${q(productSlug, customerId)}`));
  const closeIt = (id: string, customerId: string, action: string, productSlug = "demo") =>
    call(u(`/api/conversations/${id}/close`), { body: { productSlug, customerId, action } });
  const list = (customerId: string, productSlug = "demo") => call(u(`/api/conversations/list?${q(productSlug, customerId)}`));
  const streamUrl = (id: string, customerId: string, productSlug = "demo") =>
    u(`/api/conversations/${id}/stream?${q(productSlug, customerId)}`);

  it("records the server url for the SPI client backend", () => {
    selfUrl = t.url;
    expect(selfUrl).toMatch(/^http:\/\//);
  });

  describe("POST /api/conversations", () => {
    it("creates: 200 {conversationId, createdAt}", async () => {
      const c = cust();
      const r = await call(u("/api/conversations"), {
        body: { productSlug: "demo", customerId: c, message: "Printer on fire\nplease help" },
      });
      expect(r.status).toBe(200);
      expect(Object.keys(r.body).sort()).toEqual(["conversationId", "createdAt"]);
      expect(new Date(r.body.createdAt).toISOString()).toBe(r.body.createdAt);
      const d = await detail(r.body.conversationId, c);
      expect(d.body.issue.title).toBe("Printer on fire");
      expect(d.body.issue.state).toBe("open");
      expect(d.body.issue.labels).toEqual(["new"]);
      expect(d.body.issue.createdAt).toBe(r.body.createdAt);
      expect(d.body.comments).toEqual([]);
    });

    it("uses the subject when given, and writes the hidden block on the stored body", async () => {
      const c = cust();
      const id = await create(c, { subject: "[Bug] Crash", message: "It crashes" });
      const d = await detail(id, c);
      expect(d.body.issue.title).toBe("[Bug] Crash");
      expect(d.body.issue.body).toBe(`It crashes\n\n<!-- cs:customerId=${c} -->`);
    });

    it("400 on missing productSlug, message or customerId, wrong types and bad ids", async () => {
      const c = cust();
      const bad: unknown[] = [
        { customerId: c, message: "x" },
        { productSlug: "demo", message: "x" },
        { productSlug: "demo", customerId: c },
        { productSlug: "demo", customerId: c, message: 42 },
        { productSlug: 1, customerId: c, message: "x" },
        { productSlug: "demo", customerId: c, message: "" },
        { productSlug: "demo", customerId: c, message: "x".repeat(20_001) },
        { productSlug: "demo", customerId: c, message: "x", subject: "s".repeat(201) },
        { productSlug: "demo", customerId: c, message: "x", subject: 5 },
        { productSlug: "demo", customerId: "cust_123", message: "x" },
        { productSlug: "demo", customerId: "user@example.com", message: "x" },
        { productSlug: "demo", customerId: crypto.randomUUID(), message: "x" },
        { productSlug: "demo", customerId: null, message: "x" },
        { productSlug: "demo", customerId: c, message: "x", clientMessageId: "m".repeat(201) },
        [],
        "string",
        null,
      ];
      for (const body of bad) expectError(await call(u("/api/conversations"), { body }), 400);
      expectError(await call(u("/api/conversations"), { rawBody: "{not json", headers: { "content-type": "application/json" } }), 400);
      expectError(await call(u("/api/conversations"), { method: "POST" }), 400);
    });

    it("413 on a body over 64 KiB, 415 on a non-JSON content type", async () => {
      const huge = JSON.stringify({ productSlug: "demo", customerId: cust(), message: "x".repeat(70 * 1024) });
      expectError(await call(u("/api/conversations"), { rawBody: huge, headers: { "content-type": "application/json" } }), 413);
      expectError(
        await call(u("/api/conversations"), { rawBody: "a=b", headers: { "content-type": "application/x-www-form-urlencoded" } }),
        415,
      );
    });

    it("404 when no product has the slug", async () => {
      expectError(await call(u("/api/conversations"), { body: { productSlug: "nope", customerId: cust(), message: "x" } }), 404);
    });
  });

  describe("GET /api/conversations/list and /find", () => {
    it("lists open and closed, most recent activity first", async () => {
      const c = cust();
      const a = await create(c);
      await sleep(5);
      const b = await create(c);
      await sleep(5);
      const cc = await create(c);
      await sleep(5);
      expect((await closeIt(cc, c, "close")).status).toBe(200);
      await sleep(5);
      expect((await post(a, c, "bump")).status).toBe(200);
      const r = await list(c);
      expect(r.status).toBe(200);
      expect(r.body.conversations.map((x: any) => x.id)).toEqual([a, cc, b]);
      const closed = r.body.conversations.find((x: any) => x.id === cc);
      expect(closed).toMatchObject({ status: "closed", isOpen: false });
      expect(Object.keys(closed).sort()).toEqual(["createdAt", "id", "isOpen", "status", "subject", "updatedAt"]);
    });

    it("list: 400 on missing parameters, 200 empty for an unknown product, scoped to the customer", async () => {
      expectError(await call(u("/api/conversations/list?productSlug=demo")), 400);
      expectError(await call(u(`/api/conversations/list?customerId=${cust()}`)), 400);
      expectError(await call(u("/api/conversations/list?productSlug=demo&customerId=cust_x")), 400);
      const r = await list(cust(), "nope");
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ conversations: [] });
      expect((await list(cust())).body).toEqual({ conversations: [] });
    });

    it("find: prefers the first open conversation; found:false when none; 400; 404 unknown product", async () => {
      const c = cust();
      expect((await call(u(`/api/conversations/find?${q("demo", c)}`))).body).toEqual({ found: false });
      const a = await create(c);
      await sleep(5);
      const b = await create(c);
      await closeIt(b, c, "resolve");
      let r = await call(u(`/api/conversations/find?${q("demo", c)}`));
      expect(r.body).toEqual({ found: true, conversationId: a });
      await closeIt(a, c, "close");
      r = await call(u(`/api/conversations/find?${q("demo", c)}`));
      expect(r.body.found).toBe(true);
      expectError(await call(u(`/api/conversations/find?productSlug=demo`)), 400);
      expectError(await call(u(`/api/conversations/find?${q("nope", c)}`)), 404);
    });
  });

  describe("GET /api/conversations/{id}", () => {
    it("answers {issue, comments}; 400 on missing parameters; 404 for unknown, other customer, other product", async () => {
      const c = cust();
      const id = await create(c);
      await post(id, c, "second");
      const d = await detail(id, c);
      expect(d.status).toBe(200);
      expect(Object.keys(d.body).sort()).toEqual(["comments", "issue"]);
      expect(d.body.issue).toMatchObject({ id, state: "open", status: "waiting-for-agent", labels: ["waiting-for-agent"] });
      expect(d.body.comments).toHaveLength(1);
      expect(d.body.comments[0]).toMatchObject({ author: "Customer", isCustomer: true });
      expect(Object.keys(d.body.comments[0]).sort()).toEqual(["author", "body", "createdAt", "id", "isCustomer"]);
      expectError(await call(u(`/api/conversations/${id}?productSlug=demo`)), 400);
      expectError(await call(u(`/api/conversations/${id}?customerId=${c}`)), 400);
      expectError(await detail("conv_doesnotexist", c), 404);
      expectError(await detail(id, cust()), 404);
      expectError(await detail(id, c, "other"), 404);
      expectError(await detail(id, c, "nope"), 404);
      expectError(await detail("x".repeat(500), c), 400);
      expectError(await detail("%E0%A4%A", c), 404);
    });
  });

  describe("POST /api/conversations/{id}/messages", () => {
    it("posts: 200 {id, createdAt}; 400; 404; 409 when closed", async () => {
      const c = cust();
      const id = await create(c);
      const r = await post(id, c, "more");
      expect(r.status).toBe(200);
      expect(Object.keys(r.body).sort()).toEqual(["createdAt", "id"]);
      expectError(await call(u(`/api/conversations/${id}/messages`), { body: { productSlug: "demo", customerId: c } }), 400);
      expectError(await call(u(`/api/conversations/${id}/messages`), { body: { customerId: c, message: "x" } }), 400);
      expectError(await call(u(`/api/conversations/${id}/messages`), { body: { productSlug: "demo", message: "x" } }), 400);
      expectError(
        await call(u(`/api/conversations/${id}/messages`), { body: { productSlug: "demo", customerId: c, message: ["x"] } }),
        400,
      );
      expectError(await post("conv_missing", c, "x"), 404);
      expectError(await post(id, cust(), "x"), 404);
      expectError(await post(id, c, "x", {}, "other"), 404);
      await closeIt(id, c, "close");
      expectError(await post(id, c, "x"), 409);
      expect((await detail(id, c)).body.comments).toHaveLength(1);
    });

    it("a repeated clientMessageId answers the original and creates nothing", async () => {
      const c = cust();
      const id = await create(c);
      const key = `msg_${crypto.randomUUID()}`;
      const a = await post(id, c, "once", { clientMessageId: key });
      const b = await post(id, c, "once", { clientMessageId: key });
      expect(a.status).toBe(200);
      expect(b.body).toEqual(a.body);
      const d = await detail(id, c);
      expect(d.body.comments).toHaveLength(1);
      expect(d.body.comments[0].body).toBe(`once\n\n<!-- cs:customerId=${c};clientMessageId=${key} -->`);
    });

    it("dedup holds under concurrent retries", async () => {
      const c = cust();
      const id = await create(c);
      const key = `msg_${crypto.randomUUID()}`;
      const rs = await Promise.all(Array.from({ length: 12 }, () => post(id, c, "racing", { clientMessageId: key })));
      for (const r of rs) expect(r.status).toBe(200);
      expect(new Set(rs.map((r) => r.body.id)).size).toBe(1);
      expect((await detail(id, c)).body.comments).toHaveLength(1);
    });

    it("creating a conversation again with the same clientMessageId answers the first (200, same body) and creates nothing, also under concurrent retries", async () => {
      const c = cust();
      const key = `msg_${crypto.randomUUID()}`;
      const body = { productSlug: "demo", customerId: c, message: "lost answer", clientMessageId: key };
      const a = await call(u("/api/conversations"), { body });
      const b = await call(u("/api/conversations"), { body });
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      expect(b.body).toEqual(a.body);
      const raceKey = `msg_${crypto.randomUUID()}`;
      const rs = await Promise.all(
        Array.from({ length: 12 }, () => call(u("/api/conversations"), { body: { ...body, clientMessageId: raceKey } })),
      );
      for (const r of rs) expect(r.status).toBe(200);
      expect(new Set(rs.map((r) => r.body.conversationId)).size).toBe(1);
      const listed = await call(u(`/api/conversations/list?productSlug=demo&customerId=${c}`));
      expect(listed.body.conversations).toHaveLength(2);
      // another customer's same key is another conversation
      const other = await call(u("/api/conversations"), { body: { ...body, customerId: cust() } });
      expect(other.body.conversationId).not.toBe(a.body.conversationId);
    });

    it("a retry of a message that got in before a close still answers the original", async () => {
      const c = cust();
      const id = await create(c);
      const key = `msg_${crypto.randomUUID()}`;
      const a = await post(id, c, "last words", { clientMessageId: key });
      await closeIt(id, c, "close");
      expect((await post(id, c, "last words", { clientMessageId: key })).body).toEqual(a.body);
    });
  });

  describe("POST /api/conversations/{id}/close", () => {
    it("resolve and close answer success with a message; idempotent; 400; 404", async () => {
      const c = cust();
      const a = await create(c);
      const b = await create(c);
      const r1 = await closeIt(a, c, "resolve");
      expect(r1.status).toBe(200);
      expect(r1.body).toEqual({ success: true, message: expect.stringMatching(/resolved/) });
      expect((await closeIt(a, c, "resolve")).body).toEqual(r1.body);
      const r2 = await closeIt(b, c, "close");
      expect(r2.body).toEqual({ success: true, message: expect.stringMatching(/closed/) });
      expect((await closeIt(b, c, "close")).body).toEqual(r2.body);
      const l = (await list(c)).body.conversations;
      expect(l.find((x: any) => x.id === a)).toMatchObject({ status: "resolved", isOpen: false });
      expect(l.find((x: any) => x.id === b)).toMatchObject({ status: "closed", isOpen: false });
      expectError(await closeIt(a, c, "delete"), 400);
      expectError(await call(u(`/api/conversations/${a}/close`), { body: { productSlug: "demo", customerId: c } }), 400);
      expectError(await closeIt("conv_missing", c, "close"), 404);
      expectError(await closeIt(a, cust(), "close"), 404);
    });

    it("on an already resolved or closed conversation answers the state it is in, changes nothing, emits nothing", async () => {
      const c = cust();
      const a = await create(c);
      const b = await create(c);
      const resolved = (await closeIt(a, c, "resolve")).body;
      const closed = (await closeIt(b, c, "close")).body;
      expect(resolved.message).not.toBe(closed.message);
      const before = { a: (await detail(a, c)).body.issue, b: (await detail(b, c)).body.issue };
      const sa = await rawStream(streamUrl(a, c));
      const sb = await rawStream(streamUrl(b, c));
      try {
        await waitFor(() => sa.frames().length >= 2 && sb.frames().length >= 2, 5000, "connected");
        const ra = await closeIt(a, c, "close");
        expect(ra.status).toBe(200);
        expect(ra.body).toEqual(resolved);
        const rb = await closeIt(b, c, "resolve");
        expect(rb.status).toBe(200);
        expect(rb.body).toEqual(closed);
        // interface B: 204, same rule
        for (const [id, action] of [
          [a, "close"],
          [b, "resolve"],
        ] as const) {
          const r = await call(u(`/care/conversations/${id}/close`), {
            body: { customerId: c, conversationId: id, action },
            headers: spiH,
          });
          expect(r.status).toBe(204);
        }
        expect((await detail(a, c)).body.issue).toEqual(before.a);
        expect((await detail(b, c)).body.issue).toEqual(before.b);
        await sleep(150);
        expect(sa.frames().filter((f) => f.startsWith("id: "))).toEqual([]);
        expect(sb.frames().filter((f) => f.startsWith("id: "))).toEqual([]);
      } finally {
        sa.close();
        sb.close();
      }
    });
  });

  describe("status table", () => {
    it("new -> waiting-for-agent -> waiting-for-customer -> resolved -> reopened -> closed -> 409; updatedAt moves each time", async () => {
      const c = cust();
      const id = await create(c);
      const seen: string[] = [];
      const state = async () => {
        const d = (await detail(id, c)).body.issue;
        seen.push(d.updatedAt);
        return d;
      };
      expect((await state()).status).toBe("new");
      await sleep(3);
      await post(id, c, "customer");
      expect((await state()).status).toBe("waiting-for-agent");
      await sleep(3);
      expect(
        (await call(u(`/agent/conversations/${id}/messages`), { body: { body: "agent", author: "Ann" }, headers: agentH })).status,
      ).toBe(200);
      expect((await state()).status).toBe("waiting-for-customer");
      await sleep(3);
      await closeIt(id, c, "resolve");
      const resolved = await state();
      expect(resolved).toMatchObject({ status: "resolved", state: "closed" });
      await sleep(3);
      expect((await post(id, c, "actually, not fixed")).status).toBe(200);
      expect(await state()).toMatchObject({ status: "waiting-for-agent", state: "open" });
      await sleep(3);
      await closeIt(id, c, "close");
      expect(await state()).toMatchObject({ status: "closed", state: "closed" });
      expectError(await post(id, c, "x"), 409);
      for (let i = 1; i < seen.length; i++) expect(seen[i]! > seen[i - 1]!).toBe(true);
    });
  });

  describe("GET /api/conversations/{id}/stream", () => {
    it("400 on missing parameters, 404 for unknown, other customer, other product", async () => {
      const c = cust();
      const id = await create(c);
      expectError(await call(u(`/api/conversations/${id}/stream?productSlug=demo`)), 400);
      expectError(await call(u(`/api/conversations/${id}/stream?customerId=${c}`)), 400);
      expectError(await call(streamUrl("conv_missing", c)), 404);
      expectError(await call(streamUrl(id, cust())), 404);
      expectError(await call(streamUrl(id, c, "other")), 404);
    });

    it("wire format: headers, retry first, connected without data, pings, id lines", async () => {
      const c = cust();
      const id = await create(c);
      const s = await rawStream(streamUrl(id, c));
      try {
        expect(s.status).toBe(200);
        expect(s.headers["content-type"]).toMatch(/^text\/event-stream/);
        expect(s.headers["cache-control"]).toMatch(/no-cache/);
        expect(s.headers.connection).toBe("keep-alive");
        expect(s.headers["x-accel-buffering"]).toBe("no");
        await waitFor(() => s.frames().length >= 2, 5000, "first frames");
        expect(s.frames()[0]).toBe("retry: 1000");
        const connected = s.frames()[1]!;
        expect(connected.startsWith("data: ")).toBe(true);
        const payload = JSON.parse(connected.slice(6));
        expect(payload.type).toBe("connected");
        expect("data" in payload).toBe(false);
        expect(typeof payload.createdAt).toBe("string");
        await waitFor(() => s.frames().includes(": ping"), 5000, "a ping");
        await post(id, c, "live");
        await waitFor(() => s.frames().some((f) => f.includes("new_comment")), 5000, "new_comment");
        const frame = s.frames().find((f) => f.includes("new_comment"))!;
        expect(frame).toMatch(/^id: 2\ndata: \{/);
      } finally {
        s.close();
      }
    });

    it("carries every event type to a real EventSource, then ends after issue_deleted", async () => {
      const c = cust();
      const id = await create(c);
      const w = watch(streamUrl(id, c));
      try {
        await waitFor(() => w.events.some((e) => e.type === "connected"), 5000, "connected");
        const key = `msg_${crypto.randomUUID()}`;
        const mine = await post(id, c, "from the customer", { clientMessageId: key });
        const reply = await call(u(`/agent/conversations/${id}/messages`), {
          body: { body: "from the agent", author: "Ann" },
          headers: agentH,
        });
        expect(
          (
            await call(u(`/agent/conversations/${id}/messages/${reply.body.id}`), {
              method: "PATCH",
              body: { body: "edited" },
              headers: agentH,
            })
          ).status,
        ).toBe(200);
        expect((await call(u(`/agent/conversations/${id}/messages/${reply.body.id}`), { method: "DELETE", headers: agentH })).status).toBe(
          204,
        );
        expect(
          (await call(u(`/agent/conversations/${id}/labels`), { method: "PUT", body: { labels: ["billing"] }, headers: agentH })).status,
        ).toBe(200);
        expect(
          (await call(u(`/agent/conversations/${id}/assignee`), { method: "PUT", body: { assignee: "ann" }, headers: agentH })).status,
        ).toBe(200);
        await closeIt(id, c, "resolve");
        expect((await call(u(`/agent/conversations/${id}`), { method: "DELETE", headers: agentH })).status).toBe(204);
        await waitFor(() => w.events.some((e) => e.type === "issue_deleted"), 8000, "issue_deleted");
        const types = w.events.map((e) => e.type);
        for (const t of [
          "connected",
          "new_comment",
          "comment_edited",
          "comment_deleted",
          "state_update",
          "labels_changed",
          "assignee_changed",
          "issue_deleted",
        ])
          expect(types).toContain(t);
        const echo = w.events.find((e) => e.type === "new_comment" && e.data.id === mine.body.id)!;
        expect(echo.data).toMatchObject({ isCustomer: true, author: "Customer", createdAt: mine.body.createdAt });
        expect(echo.data.body).toContain(`clientMessageId=${key}`);
        expect(w.events.find((e) => e.type === "new_comment" && e.data.id === reply.body.id)!.data).toMatchObject({
          isCustomer: false,
          author: "Ann",
        });
        expect(w.events.find((e) => e.type === "comment_edited")!.data).toMatchObject({ id: reply.body.id, body: "edited" });
        expect(w.events.find((e) => e.type === "comment_deleted")!.data).toEqual({ id: reply.body.id });
        expect(w.events.find((e) => e.type === "state_update")!.data).toMatchObject({ state: "closed" });
        expect(w.events.find((e) => e.type === "assignee_changed")!.data).toEqual({ assignee: "ann" });
        expect(w.events.filter((e) => e.type === "labels_changed").map((e) => e.data.labels)).toContainEqual([
          "waiting-for-customer",
          "billing",
        ]);
        expect(w.events.find((e) => e.type === "issue_deleted")!.data).toEqual({ id });
        // ids increase by one, and only `connected` has none
        const ids = w.events.filter((e) => e.type !== "connected").map((e) => Number(e.id));
        for (let i = 1; i < ids.length; i++) expect(ids[i]).toBe(ids[i - 1]! + 1);
        expect(w.events.find((e) => e.type === "connected")!.id).toBe("");
        for (const e of w.events) expect(typeof e.createdAt).toBe("string");
        // the stream ended: the client's reconnect is refused with 404 (the conversation is gone)
        await waitFor(() => w.connections >= 2 && w.errors >= 1, 8000, "reconnect refused");
        expectError(await detail(id, c), 404);
      } finally {
        w.close();
      }
    });

    it("resumes with Last-Event-ID: replays the events after it", async () => {
      const c = cust();
      const id = await create(c);
      await post(id, c, "one");
      await post(id, c, "two");
      const s = await rawStream(streamUrl(id, c), { "last-event-id": "2" });
      try {
        // seq 1 is the first message, 2-3 the first post (comment + status label), 4 the second post
        await waitFor(() => s.frames().filter((f) => f.startsWith("id: ")).length >= 2, 5000, "replay");
        await sleep(100);
        const frames = s.frames().filter((f) => f.startsWith("id: "));
        expect(frames.map((f) => Number(/^id: (\d+)/.exec(f)![1]))).toEqual([3, 4]);
        expect(frames.map((f) => JSON.parse(f.split("\ndata: ")[1]!).type)).toEqual(["labels_changed", "new_comment"]);
        expect(s.frames()[1]).toContain('"connected"');
      } finally {
        s.close();
      }
    });

    it("a Last-Event-ID the server never issued (past the log, not a number) gets one resync, then live events", async () => {
      const c = cust();
      const id = await create(c);
      await post(id, c, "one");
      // seq 1 is the first message, 2-3 the post (comment + status label); each later post adds one
      let latest = 3;
      for (const lastEventId of ["99999", "abc"]) {
        const s = await rawStream(streamUrl(id, c), { "last-event-id": lastEventId });
        try {
          await waitFor(() => s.frames().some((f) => f.includes('"resync"')), 5000, `resync after ${lastEventId}`);
          const sent = () => s.frames().filter((f) => f !== ": ping");
          expect(JSON.parse(sent()[1]!.slice(6)).type).toBe("connected");
          const resync = sent()[2]!;
          // the resync carries the latest id, so the client's next reconnect resumes from a real one
          expect(resync.startsWith(`id: ${latest}\ndata: {`)).toBe(true);
          expect(JSON.parse(resync.split("\ndata: ")[1]!).type).toBe("resync");
          await post(id, c, `live after ${lastEventId}`);
          latest++;
          await waitFor(() => s.frames().some((f) => f.includes(`live after ${lastEventId}`)), 5000, "live event");
          const typed = sent()
            .filter((f) => f.startsWith("id: "))
            .map((f) => JSON.parse(f.split("\ndata: ")[1]!).type);
          expect(typed.filter((t) => t === "resync")).toHaveLength(1);
          expect(typed[1]).toBe("new_comment");
        } finally {
          s.close();
        }
      }
    });

    it("a real EventSource that loses its connection gets the missed events back on reconnect", async () => {
      const c = cust();
      const id = await create(c);
      const w = watch(streamUrl(id, c));
      try {
        await waitFor(() => w.events.some((e) => e.type === "connected"), 5000, "connected");
        await post(id, c, "before the cut");
        await waitFor(() => w.events.some((e) => e.type === "new_comment"), 5000, "first comment");
        const lastBefore = w.events.filter((e) => e.id).at(-1)!.id;
        w.cut();
        const missed: string[] = [];
        for (let i = 0; i < 3; i++) missed.push((await post(id, c, `while away ${i}`)).body.id);
        await waitFor(() => w.connections >= 2, 8000, "reconnect");
        expect(w.requestHeaders[1]!["last-event-id"]).toBe(lastBefore);
        await waitFor(() => missed.every((m) => w.events.some((e) => e.type === "new_comment" && e.data.id === m)), 8000, "missed events");
        const ids = w.events.filter((e) => e.id).map((e) => Number(e.id));
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids).toEqual([...ids].sort((a, b) => a - b));
        expect(w.events.filter((e) => e.type === "connected")).toHaveLength(2);
      } finally {
        w.close();
      }
    });

    it("isolation: another customer's stream never sees this conversation's events", async () => {
      const a = cust();
      const b = cust();
      const ida = await create(a);
      const idb = await create(b);
      const wb = watch(streamUrl(idb, b));
      try {
        await waitFor(() => wb.events.some((e) => e.type === "connected"), 5000, "connected");
        await post(ida, a, "secret for a");
        await post(idb, b, "for b");
        await waitFor(() => wb.events.some((e) => e.type === "new_comment"), 5000, "b's comment");
        expect(JSON.stringify(wb.events)).not.toContain("secret for a");
      } finally {
        wb.close();
      }
    });

    it("at most N concurrent streams per customer, then 429; a closed one frees its slot", async () => {
      const c = cust();
      const id = await create(c, { productSlug: "streams" });
      const s1 = await rawStream(streamUrl(id, c, "streams"));
      const s2 = await rawStream(streamUrl(id, c, "streams"));
      expect(s1.status).toBe(200);
      expect(s2.status).toBe(200);
      const third = await call(streamUrl(id, c, "streams"));
      expectError(third, 429);
      expect(third.headers.get("retry-after")).toMatch(/^\d+$/);
      s1.close();
      await waitFor(() => false, 300).catch(() => {});
      const again = await rawStream(streamUrl(id, c, "streams"));
      expect(again.status).toBe(200);
      again.close();
      s2.close();
    });
  });

  describe("rate limit", () => {
    it("429 with Retry-After past the product's limit, other products unaffected", async () => {
      const c = cust();
      const statuses: number[] = [];
      let limited: Awaited<ReturnType<typeof call>> | undefined;
      for (let i = 0; i < 6; i++) {
        const r = await call(u("/api/conversations"), { body: { productSlug: "tiny", customerId: c, message: "x" } });
        statuses.push(r.status);
        if (r.status === 429) limited ??= r;
      }
      expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(3);
      expect(limited).toBeDefined();
      expectError(limited!, 429);
      expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect((await list(c)).status).toBe(200);
    });
  });

  describe("interface B (/care)", () => {
    it("401 without or with a wrong bearer token, with the error body", async () => {
      expectError(await call(u(`/care/conversations?customerId=${cust()}`)), 401);
      expectError(await call(u(`/care/conversations?customerId=${cust()}`), { headers: { authorization: "Bearer wrong" } }), 401);
      expectError(await call(u(`/care/conversations?customerId=${cust()}`), { headers: { authorization: SPI } }), 401);
    });

    it("with no token configured, refuses every call", async () => {
      expectError(await call(u(`/notoken/care/conversations?customerId=${cust()}`), { headers: spiH }), 401);
      expectError(
        await call(u(`/notoken/care/conversations`), {
          body: { customerId: cust(), subject: "s", body: "b" },
          headers: { authorization: "Bearer " },
        }),
        401,
      );
      expectError(await call(u(`/notoken/agent/conversations?productSlug=demo`), { headers: agentH }), 401);
    });

    it("create, list, detail, post, close (204) over the same store as interface A", async () => {
      const c = cust();
      const created = await call(u("/care/conversations"), { body: { customerId: c, subject: "Via SPI", body: "first" }, headers: spiH });
      expect(created.status).toBe(200);
      const id = created.body.conversationId;
      expect(typeof created.body.createdAt).toBe("string");
      const aId = await create(c);
      const l = await call(u(`/care/conversations?customerId=${c}`), { headers: spiH });
      expect(l.status).toBe(200);
      expect(l.body.conversations.map((x: any) => x.id).sort()).toEqual([id, aId].sort());
      const m = await call(u(`/care/conversations/${id}/messages`), {
        body: { customerId: c, conversationId: id, body: "second" },
        headers: spiH,
      });
      expect(m.status).toBe(200);
      expect(Object.keys(m.body).sort()).toEqual(["createdAt", "messageId"]);
      const d = await call(u(`/care/conversations/${id}?customerId=${c}`), { headers: spiH });
      expect(d.status).toBe(200);
      expect(d.body).toMatchObject({ id, subject: "Via SPI", status: "waiting-for-agent", isOpen: true });
      expect(d.body.messages.map((x: any) => x.body)).toEqual(["first", "second"]);
      const cl = await call(u(`/care/conversations/${id}/close`), {
        body: { customerId: c, conversationId: id, action: "resolve" },
        headers: spiH,
      });
      expect(cl.status).toBe(204);
      expect(cl.text).toBe("");
      expect((await detail(id, c)).body.issue).toMatchObject({ status: "resolved", state: "closed" });
    });

    it("400 on bad bodies and a body conversationId that differs from the path; 404 across customers", async () => {
      const c = cust();
      const id = (await call(u("/care/conversations"), { body: { customerId: c, subject: "s", body: "b" }, headers: spiH })).body
        .conversationId;
      expectError(await call(u("/care/conversations"), { body: { customerId: c, subject: "s" }, headers: spiH }), 400);
      expectError(await call(u("/care/conversations"), { body: { customerId: "cust_1", subject: "s", body: "b" }, headers: spiH }), 400);
      expectError(await call(u(`/care/conversations?customerId=`), { headers: spiH }), 400);
      expectError(
        await call(u(`/care/conversations/${id}/messages`), {
          body: { customerId: c, conversationId: "conv_other", body: "x" },
          headers: spiH,
        }),
        400,
      );
      expectError(
        await call(u(`/care/conversations/${id}/close`), { body: { customerId: c, conversationId: id, action: "nope" }, headers: spiH }),
        400,
      );
      expectError(await call(u(`/care/conversations/${id}?customerId=${cust()}`), { headers: spiH }), 404);
      expectError(
        await call(u(`/care/conversations/${id}/messages`), {
          body: { customerId: cust(), conversationId: id, body: "x" },
          headers: spiH,
        }),
        404,
      );
      await call(u(`/care/conversations/${id}/close`), { body: { customerId: c, conversationId: id, action: "close" }, headers: spiH });
      expectError(
        await call(u(`/care/conversations/${id}/messages`), { body: { customerId: c, conversationId: id, body: "x" }, headers: spiH }),
        409,
      );
    });
  });

  describe("agent side (/agent)", () => {
    it("401 without the token", async () => {
      expectError(await call(u("/agent/conversations?productSlug=demo")), 401);
      expectError(await call(u("/agent/conversations/conv_x"), { method: "DELETE", headers: { authorization: "Bearer nope" } }), 401);
    });

    it("lists a product's conversations across customers with filters and pagination", async () => {
      const product = "other";
      const made: string[] = [];
      const customers = [cust(), cust(), cust()];
      for (const c of customers) {
        made.push(await create(c, { productSlug: product }));
        await sleep(3);
      }
      await call(u(`/agent/conversations/${made[0]}/assignee`), { method: "PUT", body: { assignee: "bob" }, headers: agentH });
      await call(u(`/agent/conversations/${made[1]}/labels`), { method: "PUT", body: { labels: ["vip", "new"] }, headers: agentH });
      await call(u(`/agent/conversations/${made[2]}/status`), { method: "PUT", body: { status: "closed" }, headers: agentH });
      const all = await call(u(`/agent/conversations?productSlug=${product}&limit=200`), { headers: agentH });
      expect(all.status).toBe(200);
      const mine = all.body.items.filter((x: any) => made.includes(x.id));
      expect(mine).toHaveLength(3);
      expect(mine[0]).toMatchObject({ productSlug: product });
      expect(new Set(mine.map((x: any) => x.customerId))).toEqual(new Set(customers));
      const byAssignee = await call(u(`/agent/conversations?productSlug=${product}&assignee=bob`), { headers: agentH });
      expect(byAssignee.body.items.map((x: any) => x.id)).toEqual([made[0]]);
      const byLabel = await call(u(`/agent/conversations?productSlug=${product}&label=vip`), { headers: agentH });
      expect(byLabel.body.items.map((x: any) => x.id)).toEqual([made[1]]);
      expect(byLabel.body.items[0].labels).toEqual(["new", "vip"]);
      const closed = await call(u(`/agent/conversations?productSlug=${product}&status=closed`), { headers: agentH });
      expect(closed.body.items.map((x: any) => x.id)).toContain(made[2]);
      for (const x of closed.body.items) expect(x.status).toBe("closed");
      const openOnes = await call(u(`/agent/conversations?productSlug=${product}&status=new,waiting-for-agent,waiting-for-customer`), {
        headers: agentH,
      });
      expect(openOnes.body.items.map((x: any) => x.id)).not.toContain(made[2]);
      // pagination walks everything exactly once
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = await call(u(`/agent/conversations?productSlug=${product}&limit=2${cursor ? `&cursor=${cursor}` : ""}`), {
          headers: agentH,
        });
        expect(page.status).toBe(200);
        expect(page.body.items.length).toBeLessThanOrEqual(2);
        seen.push(...page.body.items.map((x: any) => x.id));
        cursor = page.body.next;
      } while (cursor);
      expect(seen).toEqual(all.body.items.map((x: any) => x.id));
      expectError(await call(u(`/agent/conversations?productSlug=${product}&cursor=garbage`), { headers: agentH }), 400);
      expectError(await call(u(`/agent/conversations?productSlug=${product}&status=bogus`), { headers: agentH }), 400);
      expectError(await call(u(`/agent/conversations?productSlug=${product}&limit=0`), { headers: agentH }), 400);
      expectError(await call(u(`/agent/conversations?productSlug=nope`), { headers: agentH }), 404);
      expectError(await call(u(`/agent/conversations`), { headers: agentH }), 400);
    });

    it("searches the list with q: subject, customer id and message text, never the hidden block", async () => {
      const product = "other";
      const tag = crypto.randomUUID().slice(0, 8);
      const c1 = cust();
      const c2 = cust();
      const a = await create(c1, { productSlug: product, subject: `Parcel ${tag} lost`, message: "Where is it?" });
      const b = await create(c2, { productSlug: product, message: `Invoice ${tag.toUpperCase()} is wrong` });
      await call(u(`/agent/conversations/${b}/messages`), { body: { body: `Agent note zz${tag}`, author: "Ann" }, headers: agentH });
      const search = async (q: string, extra = "") =>
        (await call(u(`/agent/conversations?productSlug=${product}&q=${encodeURIComponent(q)}${extra}`), { headers: agentH })).body.items
          .map((x: any) => x.id)
          .sort();
      expect(await search(tag)).toEqual([a, b].sort());
      expect(await search(`parcel ${tag.toUpperCase()}`)).toEqual([a]);
      expect(await search(`zz${tag}`)).toEqual([b]);
      expect(await search(c2)).toEqual([b]);
      expect(await search("customerId=")).toEqual([]);
      expect(await search(tag, "&status=closed")).toEqual([]);
      expect(await search(tag, "&limit=1")).toHaveLength(1);
      // empty (after trimming) means no search
      const none = await call(u(`/agent/conversations?productSlug=${product}&q=%20&limit=200`), { headers: agentH });
      expect(none.body.items.map((x: any) => x.id)).toEqual(expect.arrayContaining([a, b]));
      expectError(await call(u(`/agent/conversations?productSlug=${product}&q=${"x".repeat(201)}`), { headers: agentH }), 400);
    });

    it("streams one conversation to an agent with replay after Last-Event-ID, and a product's changes inbox-wide", async () => {
      expectError(await call(u("/agent/conversations/stream?productSlug=demo")), 401);
      expectError(await call(u("/agent/conversations/conv_missing/stream"), { headers: agentH }), 404);
      expectError(await call(u("/agent/conversations/stream?productSlug=nope"), { headers: agentH }), 404);
      const inbox = await rawStream(u("/agent/conversations/stream?productSlug=demo"), agentH);
      expect(inbox.status).toBe(200);
      expect(String(inbox.headers["content-type"])).toMatch(/^text\/event-stream/);
      await waitFor(() => inbox.text().includes('"connected"'), 8000, "inbox connected");
      const c = cust();
      const id = await create(c);
      await waitFor(() => inbox.text().includes(`"conversationId":"${id}"`), 8000, "inbox notice of the new conversation");
      const s = await rawStream(u(`/agent/conversations/${id}/stream`), agentH);
      expect(s.status).toBe(200);
      await waitFor(() => s.text().includes('"connected"'), 8000, "connected");
      await call(u(`/api/conversations/${id}/messages`), { body: { productSlug: "demo", customerId: c, message: "Are you there?" } });
      await waitFor(() => s.text().includes("Are you there?"), 8000, "the customer's message on the agent stream");
      const notices = () => inbox.frames().filter((f) => f.includes(`"conversationId":"${id}"`)).length;
      await waitFor(() => notices() >= 2, 8000, "inbox notice of the message");
      const idOf = (frame: string) => /^id: (\d+)$/m.exec(frame)?.[1];
      const messageFrame = s.frames().find((f) => f.includes("Are you there?"))!;
      const seq = Number(idOf(messageFrame));
      expect(seq).toBeGreaterThan(1);
      s.close();
      await call(u(`/agent/conversations/${id}/labels`), { method: "PUT", body: { labels: ["vip"] }, headers: agentH });
      // reconnect after the message: only what came after it
      const again = await rawStream(u(`/agent/conversations/${id}/stream`), { ...agentH, "last-event-id": String(seq) });
      await waitFor(() => again.text().includes("labels_changed"), 8000, "replayed labels_changed");
      expect(again.text()).not.toContain("Are you there?");
      const replayed = again.frames().filter((f) => idOf(f) !== undefined);
      expect(Number(idOf(replayed[0]!))).toBe(seq + 1);
      again.close();
      // an id never issued: resync
      const forged = await rawStream(u(`/agent/conversations/${id}/stream?lastEventId=999999`), agentH);
      await waitFor(() => forged.text().includes('"resync"'), 8000, "resync");
      forged.close();
      inbox.close();
    });

    it("detail, reply, edit, delete, labels, assignee, status, delete conversation", async () => {
      const c = cust();
      const id = await create(c);
      const d = await call(u(`/agent/conversations/${id}`), { headers: agentH });
      expect(d.status).toBe(200);
      expect(d.body).toMatchObject({ id, customerId: c, productSlug: "demo", assignee: null, labels: ["new"], status: "new" });
      expect(d.body.messages).toHaveLength(1);
      const r = await call(u(`/agent/conversations/${id}/messages`), { body: { body: "hi", author: "Ann" }, headers: agentH });
      expect(r.status).toBe(200);
      expect((await detail(id, c)).body.issue.status).toBe("waiting-for-customer");
      const first = d.body.messages[0].id;
      const edited = await call(u(`/agent/conversations/${id}/messages/${first}`), {
        method: "PATCH",
        body: { body: "cleaned up" },
        headers: agentH,
      });
      expect(edited.status).toBe(200);
      // a customer message keeps its hidden block through an edit
      expect(edited.body.body).toBe(`cleaned up\n\n<!-- cs:customerId=${c} -->`);
      expectError(
        await call(u(`/agent/conversations/${id}/messages/cmt_missing`), { method: "PATCH", body: { body: "x" }, headers: agentH }),
        404,
      );
      expectError(await call(u(`/agent/conversations/${id}/messages/cmt_missing`), { method: "DELETE", headers: agentH }), 404);
      expectError(await call(u(`/agent/conversations/${id}/messages`), { body: { body: "hi" }, headers: agentH }), 400);
      expectError(await call(u(`/agent/conversations/${id}/labels`), { method: "PUT", body: { labels: "x" }, headers: agentH }), 400);
      expectError(await call(u(`/agent/conversations/${id}/status`), { method: "PUT", body: { status: "open" }, headers: agentH }), 400);
      const st = await call(u(`/agent/conversations/${id}/status`), { method: "PUT", body: { status: "resolved" }, headers: agentH });
      expect(st.body).toMatchObject({ id, status: "resolved", isOpen: false });
      expect((await call(u(`/agent/conversations/${id}/messages/${r.body.id}`), { method: "DELETE", headers: agentH })).status).toBe(204);
      expect((await detail(id, c)).body.comments).toEqual([]);
      expect((await call(u(`/agent/conversations/${id}`), { method: "DELETE", headers: agentH })).status).toBe(204);
      expectError(await call(u(`/agent/conversations/${id}`), { headers: agentH }), 404);
      expectError(await detail(id, c), 404);
      expectError(await call(u(`/agent/conversations/${id}`), { method: "DELETE", headers: agentH }), 404);
      expect((await list(c)).body.conversations).toEqual([]);
    });
  });

  describe("OpenAPI", () => {
    it("serves documents for interfaces A and B", async () => {
      const a = await call(u("/api/conversations/openapi.json"));
      expect(a.status).toBe(200);
      expect(a.body.openapi).toBe("3.1.0");
      expect(Object.keys(a.body.paths).sort()).toEqual([
        "/api/conversations",
        "/api/conversations/attachments",
        "/api/conversations/attachments/{attachmentId}",
        "/api/conversations/find",
        "/api/conversations/list",
        "/api/conversations/{id}",
        "/api/conversations/{id}/close",
        "/api/conversations/{id}/messages",
        "/api/conversations/{id}/rating",
        "/api/conversations/{id}/stream",
      ]);
      const b = await call(u("/care/openapi.json"));
      expect(b.status).toBe(200);
      expect(Object.keys(b.body.paths).sort()).toEqual([
        "/care/conversations",
        "/care/conversations/{id}",
        "/care/conversations/{id}/close",
        "/care/conversations/{id}/messages",
        "/care/webhooks",
        "/care/webhooks/{id}",
        "/care/webhooks/{id}/deliveries",
        "/care/webhooks/{id}/deliveries/{deliveryId}",
        "/care/webhooks/{id}/deliveries/{deliveryId}/redeliver",
      ]);
      expect(b.body.components.securitySchemes.spiBearer).toMatchObject({ type: "http", scheme: "bearer" });
      const prefixed = await call(u("/notoken/api/conversations/openapi.json"));
      expect(Object.keys(prefixed.body.paths)).toContain("/notoken/api/conversations/{id}");
    });

    it("every document validates and every route documents the errors it answers with", async () => {
      for (const path of ["/api/conversations/openapi.json", "/care/openapi.json", "/agent/openapi.json"]) {
        const r = await call(u(path));
        expect(r.status).toBe(200);
        // the test's own validation, not the server's work: outside the loop-delay guard
        const verdict = await unguarded(() => independentValidate(structuredClone(r.body)));
        expect(verdict.valid, `${path}: ${JSON.stringify((verdict as { errors?: unknown }).errors)}`).toBe(true);
        const ops = Object.entries(r.body.paths as Record<string, Record<string, any>>).flatMap(([p, item]) =>
          Object.entries(item).map(([method, op]) => ({ where: `${path} ${method.toUpperCase()} ${p}`, op })),
        );
        expect(ops.length).toBeGreaterThan(3);
        for (const { where, op } of ops) {
          const documented = Object.keys(op.responses);
          const expected: string[] = [];
          // validated input (path or query parameters, a body) answers 400 when it is wrong
          if (op.parameters?.length || op.requestBody) expected.push("400");
          if (op.requestBody) expected.push("413", "415");
          if (op.security?.length) expected.push("401");
          for (const status of expected) expect(documented, `${where} documents ${status}`).toContain(status);
        }
      }
    });
  });

  describe("SPI client backend", () => {
    it("a product backed by a remote interface B: create, post with dedup, detail, list, close", async () => {
      const c = cust();
      const created = await call(u("/proxy/api/conversations"), {
        body: { productSlug: "remote", customerId: c, message: "Through the proxy" },
      });
      expect(created.status).toBe(200);
      const id = created.body.conversationId;
      // it landed in the remote's store (the first instance's SPI product is "demo")
      expect((await detail(id, c)).body.issue.title).toBe("Through the proxy");
      const key = `msg_${crypto.randomUUID()}`;
      const body = { productSlug: "remote", customerId: c, message: "proxied", clientMessageId: key };
      const m1 = await call(u(`/proxy/api/conversations/${id}/messages`), { body });
      const m2 = await call(u(`/proxy/api/conversations/${id}/messages`), { body });
      expect(m1.status).toBe(200);
      expect(m2.body).toEqual(m1.body);
      const d = await call(u(`/proxy/api/conversations/${id}?${q("remote", c)}`));
      expect(d.status).toBe(200);
      expect(d.body.issue).toMatchObject({ id, status: "waiting-for-agent", state: "open" });
      expect(d.body.comments).toHaveLength(1);
      expect((await call(u(`/proxy/api/conversations/list?${q("remote", c)}`))).body.conversations.map((x: any) => x.id)).toEqual([id]);
      expectError(await call(u(`/proxy/api/conversations/${id}?${q("remote", cust())}`)), 404);
      const closeRemote = (action: string) =>
        call(u(`/proxy/api/conversations/${id}/close`), { body: { productSlug: "remote", customerId: c, action } });
      const closed = await closeRemote("close");
      expect(closed.status).toBe(200);
      expect(closed.body).toEqual({ success: true, message: expect.stringMatching(/closed/) });
      // already closed at the remote: the answer names that state, not the action asked for
      expect((await closeRemote("resolve")).body).toEqual(closed.body);
      expect((await detail(id, c)).body.issue.status).toBe("closed");
      expectError(
        await call(u(`/proxy/api/conversations/${id}/messages`), { body: { productSlug: "remote", customerId: c, message: "late" } }),
        409,
      );
      expectError(await call(u(`/proxy/api/conversations/${id}/stream?${q("remote", cust())}`)), 404);
    });

    it("streams a remote conversation: the remote's agent activity reaches the proxy's stream by polling", async () => {
      const c = cust();
      const created = await call(u("/proxy/api/conversations"), { body: { productSlug: "remote", customerId: c, message: "Watch me" } });
      const id = created.body.conversationId;
      const w = watch(u(`/proxy/api/conversations/${id}/stream?${q("remote", c)}`));
      try {
        await waitFor(() => w.events.some((e) => e.type === "connected"), 5000, "connected");
        const reply = await call(u(`/agent/conversations/${id}/messages`), {
          headers: agentH,
          body: { body: "from the remote agent", author: "Ann" },
        });
        expect(reply.status).toBe(200);
        await waitFor(() => w.events.some((e) => e.type === "new_comment"), 8000, "polled reply");
        const nc = w.events.find((e) => e.type === "new_comment")!;
        expect(nc.data).toMatchObject({ id: reply.body.id, body: "from the remote agent", author: "Ann", isCustomer: false });
        await waitFor(() => w.events.some((e) => e.type === "labels_changed"), 8000, "status change");
      } finally {
        w.close();
      }
    });
  });
}

forEachAdapter("support", makeServices, suite);
// hosts often run express.json() before the kit: the same suite with the body already parsed
forEachAdapter("support behind express.json()", makeServices, suite, { frameworks: ["express"], hostJsonParser: true });
