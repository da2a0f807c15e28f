// Service-level behaviour without sockets: resync after pruning, the sliding-window rate limit, delivery
// across instances sharing a store and bus, stream slots, and the in-process api.
import { manualClock, sequentialIds } from "@mountkit/core";
import { inMemoryPubSub, type PubSub } from "@mountkit/core/jobs";
import { describe, expect, it } from "vitest";
import { createSupportService, inMemorySupportStore, type SupportService } from "../src/index.js";
import { cust, serviceMaker } from "./services.js";

const make = serviceMaker();

async function req(s: SupportService, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const r = await s.fetch(
    new Request(`http://kit${path}`, {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : undefined };
}

/** Opens a stream through `service.fetch` and collects parsed frames until aborted. */
async function openStream(s: SupportService, path: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const res = await s.fetch(new Request(`http://kit${path}`, { headers, signal: abort.signal }));
  const frames: Array<{ id?: string; type?: string; data?: any; raw: string }> = [];
  let buf = "";
  const done = (async () => {
    if (!res.body) return;
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    try {
      for (;;) {
        const r = await reader.read();
        if (r.done) break;
        buf += dec.decode(r.value, { stream: true });
        let i = buf.indexOf("\n\n");
        while (i !== -1) {
          const raw = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const id = /^id: (.*)$/m.exec(raw)?.[1];
          const data = /^data: (.*)$/m.exec(raw)?.[1];
          const parsed = data ? JSON.parse(data) : undefined;
          frames.push({ id, type: parsed?.type, data: parsed?.data, raw });
          i = buf.indexOf("\n\n");
        }
      }
    } catch {
      // aborted
    }
  })();
  return {
    status: res.status,
    frames,
    close: async () => {
      abort.abort();
      await res.body?.cancel().catch(() => {});
      await done;
    },
    ended: done,
  };
}

const until = async (cond: () => boolean, what: string) => {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > 5000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe("support service", () => {
  it("replays after Last-Event-ID while kept; sends one resync once those events were pruned", async () => {
    const clock = manualClock("2030-01-01T00:00:00Z");
    const s = make({ clock, ids: sequentialIds(), limits: { rateLimit: 1000 } });
    const c = cust();
    const { conversationId: id } = await s.api.createConversation({ productSlug: "demo", customerId: c, message: "hi" });
    await s.api.postMessage({ productSlug: "demo", customerId: c, conversationId: id, message: "two" });
    clock.advance(59 * 60_000);
    expect(await s.pruneEvents()).toBe(0);
    const kept = await openStream(s, `/api/conversations/${id}/stream?productSlug=demo&customerId=${c}`, { "last-event-id": "1" });
    await until(() => kept.frames.length >= 4, "replay");
    expect(kept.frames.map((f) => f.type)).toEqual([undefined, "connected", "new_comment", "labels_changed"]);
    expect(kept.frames[0]!.raw).toBe("retry: 1000");
    await kept.close();

    clock.advance(2 * 60_000);
    expect(await s.pruneEvents()).toBe(3);
    await s.api.postMessage({ productSlug: "demo", customerId: c, conversationId: id, message: "three" });
    const gone = await openStream(s, `/api/conversations/${id}/stream?productSlug=demo&customerId=${c}`, { "last-event-id": "1" });
    await until(() => gone.frames.some((f) => f.type === "resync"), "resync");
    const resync = gone.frames.find((f) => f.type === "resync")!;
    expect(resync.id).toBe("4");
    expect(resync.data).toBeUndefined();
    expect(gone.frames.filter((f) => f.type === "resync")).toHaveLength(1);
    // live delivery continues after the resync
    await s.api.postMessage({ productSlug: "demo", customerId: c, conversationId: id, message: "five" });
    await until(() => gone.frames.some((f) => f.id === "5"), "live after resync");
    expect(gone.frames.filter((f) => f.type === "new_comment").map((f) => f.id)).toEqual(["5"]);
    await gone.close();
  });

  it("rate limit is a sliding window: a burst straddling a second boundary is refused", async () => {
    const clock = manualClock(1_000_000);
    const s = make({ clock, limits: { rateLimit: 20 } });
    // a new customer per request: the product's window, not one customer's, is what refuses
    const hit = () => req(s, "GET", `/api/conversations/list?productSlug=demo&customerId=${cust()}`);
    clock.set(1_000_900);
    for (let i = 0; i < 20; i++) expect((await hit()).status).toBe(200);
    clock.set(1_001_000);
    const refused = await hit();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.body).toEqual({ error: "too many requests", requestId: expect.any(String) });
    clock.set(1_001_899);
    expect((await hit()).status).toBe(429);
    clock.set(1_001_900);
    expect((await hit()).status).toBe(200);
  });

  it("configurable window and maximum per product", async () => {
    const clock = manualClock(0);
    const s = make({
      clock,
      products: [{ slug: "demo", limits: { rateLimit: 2, rateWindowMs: 10_000 } }, "free"],
      limits: { rateLimit: 1000 },
    });
    const hit = (p: string) => req(s, "GET", `/api/conversations/find?productSlug=${p}&customerId=${cust()}`);
    expect((await hit("demo")).status).toBe(200);
    expect((await hit("demo")).status).toBe(200);
    clock.advance(5_000);
    const r = await hit("demo");
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBe("5");
    expect((await hit("free")).status).toBe(200);
  });

  it("a customer's own limit sits inside the product's: one client is throttled while others still get through", async () => {
    const clock = manualClock(1_000_000);
    const s = make({ clock, products: [{ slug: "demo", limits: { rateLimit: 20, customerRateLimit: 5 } }] });
    const greedy = cust();
    const hit = (c: string) => req(s, "GET", `/api/conversations/list?productSlug=demo&customerId=${c}`);
    for (let i = 0; i < 5; i++) expect((await hit(greedy)).status).toBe(200);
    const refused = await hit(greedy);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: "too many requests from this customer", requestId: expect.any(String) });
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("ratelimit-limit")).toBe("5");
    // the refused calls spent none of the product's budget: 15 other customers still fit in this second
    for (let i = 0; i < 20; i++) expect((await hit(greedy)).status).toBe(429);
    for (let i = 0; i < 15; i++) expect((await hit(cust())).status, `other customer ${i}`).toBe(200);
    expect((await hit(cust())).status).toBe(429);
    clock.advance(1000);
    expect((await hit(greedy)).status).toBe(200);
  });

  it("the per-customer limit defaults to a quarter of the product's (5 of the default 20), at least 1", async () => {
    const clock = manualClock(0);
    const s = make({ clock, products: ["demo", { slug: "tiny", limits: { rateLimit: 3 } }] });
    const c = cust();
    const statuses = async (p: string, n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await req(s, "GET", `/api/conversations/find?productSlug=${p}&customerId=${c}`)).status);
      return out;
    };
    expect(await statuses("demo", 6)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(await statuses("tiny", 2)).toEqual([200, 429]);
  });

  it("events from another instance sharing the store and bus reach this instance's streams", async () => {
    const store = inMemorySupportStore();
    const bus: PubSub = inMemoryPubSub();
    const one = make({ store, bus });
    const two = make({ store, bus });
    const c = cust();
    const { conversationId: id } = await one.api.createConversation({ productSlug: "demo", customerId: c, message: "hi" });
    const st = await openStream(one, `/api/conversations/${id}/stream?productSlug=demo&customerId=${c}`);
    await until(() => st.frames.some((f) => f.type === "connected"), "connected");
    const posted = await two.api.postMessage({ productSlug: "demo", customerId: c, conversationId: id, message: "from the other process" });
    await two.api.agent.setAssignee(id, "zoe");
    await until(() => st.frames.some((f) => f.type === "assignee_changed"), "assignee");
    expect(st.frames.find((f) => f.type === "new_comment")!.data.id).toBe(posted.id);
    await st.close();
  });

  it("a bus notice carries ids only: the stream reads the event from the store", async () => {
    const store = inMemorySupportStore();
    const bus = inMemoryPubSub();
    const s = make({ store, bus });
    const c = cust();
    const { conversationId: id } = await s.api.createConversation({ productSlug: "demo", customerId: c, message: "hi" });
    const st = await openStream(s, `/api/conversations/${id}/stream?productSlug=demo&customerId=${c}`);
    await until(() => st.frames.some((f) => f.type === "connected"), "connected");
    // a notice for an event the store does not have produces nothing
    await bus.publish(`support:conversation:${id}`, { conversationId: id, seq: 99 });
    // a write that skips the bus (another writer, lost notice) is still delivered with the next notice
    const c2 = await store.getConversation({ id });
    await store.updateConversation({
      conversationId: id,
      expectedSeq: c2!.lastSeq,
      patch: { assignee: "direct" },
      events: [{ type: "assignee_changed", data: { assignee: "direct" }, createdAt: new Date().toISOString() }],
    });
    await s.api.agent.setLabels(id, ["x"]);
    await until(() => st.frames.some((f) => f.type === "labels_changed"), "labels");
    expect(st.frames.filter((f) => f.id).map((f) => [f.id, f.type])).toEqual([
      ["2", "assignee_changed"],
      ["3", "labels_changed"],
    ]);
    await st.close();
  });

  it("stream slots per customer are released when a stream closes", async () => {
    const s = make({ limits: { maxStreamsPerCustomer: 3 } });
    const c = cust();
    const { conversationId: id } = await s.api.createConversation({ productSlug: "demo", customerId: c, message: "hi" });
    const path = `/api/conversations/${id}/stream?productSlug=demo&customerId=${c}`;
    const open = [await openStream(s, path), await openStream(s, path), await openStream(s, path)];
    expect(open.map((o) => o.status)).toEqual([200, 200, 200]);
    const refused = await req(s, "GET", path);
    expect(refused.status).toBe(429);
    // another customer is not affected
    const other = cust();
    const { conversationId: id2 } = await s.api.createConversation({ productSlug: "demo", customerId: other, message: "hi" });
    const o2 = await openStream(s, `/api/conversations/${id2}/stream?productSlug=demo&customerId=${other}`);
    expect(o2.status).toBe(200);
    await open[0]!.close();
    await until(() => s.hub.size === 3, "slot released");
    const again = await openStream(s, path);
    expect(again.status).toBe(200);
    for (const o of [open[1]!, open[2]!, o2, again]) await o.close();
    await until(() => s.hub.size === 0, "all closed");
  });

  it("streams end when the conversation is deleted, and the service disposes open streams", async () => {
    const s = make();
    const c = cust();
    const { conversationId: id } = await s.api.createConversation({ productSlug: "demo", customerId: c, message: "hi" });
    const st = await openStream(s, `/api/conversations/${id}/stream?productSlug=demo&customerId=${c}`);
    await until(() => st.frames.length >= 2, "connected");
    await s.api.agent.remove(id);
    await st.ended;
    expect(st.frames.at(-1)!.type).toBe("issue_deleted");
    const { conversationId: id2 } = await s.api.createConversation({ productSlug: "demo", customerId: c, message: "hi" });
    const st2 = await openStream(s, `/api/conversations/${id2}/stream?productSlug=demo&customerId=${c}`);
    await until(() => st2.frames.length >= 2, "connected");
    await s.dispose();
    await st2.ended;
    expect(s.hub.size).toBe(0);
  });

  it("in-process api mirrors the HTTP operations", async () => {
    const s = make();
    const c = cust();
    const { conversationId: id } = await s.api.createConversation({
      productSlug: "demo",
      customerId: c,
      message: "Subject line\nbody",
      clientMessageId: "msg_a",
    });
    const d = await s.api.getConversation({ productSlug: "demo", customerId: c, conversationId: id });
    expect(d.issue.title).toBe("Subject line");
    expect(d.issue.body).toContain("clientMessageId=msg_a");
    const m1 = await s.api.postMessage({ productSlug: "demo", customerId: c, conversationId: id, message: "x", clientMessageId: "msg_b" });
    const m2 = await s.api.postMessage({ productSlug: "demo", customerId: c, conversationId: id, message: "x", clientMessageId: "msg_b" });
    expect(m2).toEqual(m1);
    expect(await s.api.closeConversation({ productSlug: "demo", customerId: c, conversationId: id, action: "close" })).toEqual({
      success: true,
      message: "Conversation closed",
    });
    await expect(s.api.postMessage({ productSlug: "demo", customerId: c, conversationId: id, message: "x" })).rejects.toMatchObject({
      status: 409,
    });
    // already closed: resolving answers the state it is in and leaves it closed
    expect(await s.api.closeConversation({ productSlug: "demo", customerId: c, conversationId: id, action: "resolve" })).toEqual({
      success: true,
      message: "Conversation closed",
    });
    expect((await s.api.getConversation({ productSlug: "demo", customerId: c, conversationId: id })).issue.status).toBe("closed");
    await expect(s.api.getConversation({ productSlug: "demo", customerId: cust(), conversationId: id })).rejects.toMatchObject({
      status: 404,
    });
    expect((await s.api.listConversations({ productSlug: "nope", customerId: c })).conversations).toEqual([]);
  });

  it("the in-process api caps messages as HTTP does: the same 400 body for a message over 20,000 characters, and nothing written", async () => {
    const s = make({ agentToken: "tok" });
    const c = cust();
    const { conversationId: id } = await s.api.createConversation({ productSlug: "demo", customerId: c, message: "hi" });
    const long = "x".repeat(20_001);
    const viaHttp = await req(s, "POST", `/api/conversations/${id}/messages`, { productSlug: "demo", customerId: c, message: long });
    expect(viaHttp.status).toBe(400);
    const bodyOf = async (p: Promise<unknown>) => {
      const e = await p.then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toMatchObject({ status: 400, code: "invalid_request" });
      const r = s.errorResponse({ method: "POST", path: "/api/conversations", headers: {} }, e);
      expect(r?.status).toBe(400);
      const raw = r!.body;
      const { requestId: _a, ...wire } = (typeof raw === "string" ? JSON.parse(raw) : raw) as Record<string, unknown>;
      return wire;
    };
    const { requestId: _b, ...httpBody } = viaHttp.body;
    expect(await bodyOf(s.api.postMessage({ productSlug: "demo", customerId: c, conversationId: id, message: long }))).toEqual(httpBody);
    const created = await req(s, "POST", "/api/conversations", { productSlug: "demo", customerId: c, message: long });
    const { requestId: _c, ...createBody } = created.body;
    expect(created.status).toBe(400);
    expect(await bodyOf(s.api.createConversation({ productSlug: "demo", customerId: c, message: long }))).toEqual(createBody);
    await expect(s.api.postMessage({ productSlug: "demo", customerId: c, conversationId: id, message: "" })).rejects.toMatchObject({
      status: 400,
    });
    await expect(s.api.agent.reply(id, { body: long, author: "Ann" })).rejects.toMatchObject({ status: 400, code: "invalid_request" });
    // 20,000 is still allowed, and nothing of the refused calls was written
    await s.api.postMessage({ productSlug: "demo", customerId: c, conversationId: id, message: "y".repeat(20_000) });
    const d = await s.api.getConversation({ productSlug: "demo", customerId: c, conversationId: id });
    expect(d.comments).toHaveLength(1);
    expect((await s.api.listConversations({ productSlug: "demo", customerId: c })).conversations).toHaveLength(1);
  });

  it("the OpenAPI documents describe 408 on every route that reads a body, the streams' headers, and the paging of both lists", async () => {
    const s = make({ agentToken: "tok", spiToken: "spi" });
    const docs = {
      a: (await req(s, "GET", "/api/conversations/openapi.json")).body,
      b: (await req(s, "GET", "/care/openapi.json")).body,
      agent: (await req(s, "GET", "/agent/openapi.json", undefined, { authorization: "Bearer tok" })).body,
    };
    for (const [name, doc] of Object.entries(docs)) {
      expect(doc?.paths, name).toBeDefined();
      for (const [path, ops] of Object.entries<any>(doc.paths)) {
        for (const [method, op] of Object.entries<any>(ops)) {
          if (op.requestBody) expect(Object.keys(op.responses), `${method} ${path}`).toContain("408");
          if (op.responses["200"]?.content?.["text/event-stream"]) {
            const headers = op.responses["200"].headers;
            expect(headers["Cache-Control"], path).toMatchObject({ required: true, schema: { enum: ["no-cache, no-transform"] } });
            expect(headers["X-Accel-Buffering"], path).toMatchObject({ required: true, schema: { enum: ["no"] } });
          }
        }
      }
    }
    const paged = (op: any) => ({
      params: op.parameters.map((p: any) => `${p.in}:${p.name}`).sort(),
      link: op.responses["200"].headers.Link !== undefined,
    });
    expect(paged(docs.a.paths["/api/conversations/list"].get)).toEqual({
      // the signature of verified customers (docs/support.md#verified-customers) comes as a header, or in the query
      params: [
        "header:X-Customer-Signature",
        "query:cursor",
        "query:customerId",
        "query:customerSignature",
        "query:limit",
        "query:productSlug",
      ],
      link: true,
    });
    expect(paged(docs.b.paths["/care/conversations"].get)).toEqual({
      params: ["query:cursor", "query:customerId", "query:limit"],
      link: true,
    });
    // the stream answers with the headers its documents name
    const c = cust();
    const { conversationId: id } = await s.api.createConversation({ productSlug: "demo", customerId: c, message: "hi" });
    const ac = new AbortController();
    const r = await s.fetch(
      new Request(`http://kit/api/conversations/${id}/stream?productSlug=demo&customerId=${c}`, { signal: ac.signal }),
    );
    expect(r.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(r.headers.get("x-accel-buffering")).toBe("no");
    ac.abort();
    await r.body?.cancel().catch(() => undefined);
  });

  it("interface B answers the whole list unless asked for pages, then pages with Link rel=next as interface A does", async () => {
    const s = make({ spiToken: "spi", limits: { rateLimit: 10_000 } });
    const auth = { authorization: "Bearer spi" };
    const c = cust();
    for (let i = 0; i < 7; i++) await s.api.createConversation({ productSlug: "demo", customerId: c, message: `n${i}` });
    const all = await req(s, "GET", `/care/conversations?customerId=${c}`, undefined, auth);
    expect(all.body.conversations).toHaveLength(7);
    expect(all.headers.get("link")).toBeNull();
    const seen: string[] = [];
    let url: string | undefined = `/care/conversations?customerId=${c}&limit=3`;
    let pages = 0;
    while (url) {
      const page = await req(s, "GET", url, undefined, auth);
      expect(page.status).toBe(200);
      seen.push(...page.body.conversations.map((x: { id: string }) => x.id));
      pages++;
      const link = page.headers.get("link");
      url = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : undefined;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(all.body.conversations.map((x: { id: string }) => x.id));
    expect((await req(s, "GET", `/care/conversations?customerId=${c}&limit=0`, undefined, auth)).status).toBe(400);
    expect((await req(s, "GET", `/care/conversations?customerId=${c}&cursor=nope`, undefined, auth)).status).toBe(400);
  });

  it("refuses bad configuration", () => {
    expect(() => createSupportService({ products: ["bad slug"] })).toThrow(/slug/);
    expect(() => createSupportService({ products: ["a", "a"] })).toThrow(/twice/);
    expect(() => createSupportService({ products: ["a"], spiProduct: "b" })).toThrow(/spiProduct/);
    expect(() => createSupportService({ products: [{ slug: "a", limits: { rateLimit: 0 } }] })).toThrow(/limits/);
  });
});
