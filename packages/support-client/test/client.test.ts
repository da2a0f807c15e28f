// The support client against a real server on a real socket (fetch adapter on node:http).
import { createSupportService, type SupportService, stripMetadata } from "@mountkit/support";
import { EventSource } from "eventsource";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen, type Running } from "../../../examples/server/src/listen.js";
import {
  backoffDelay,
  createSupportClient,
  displayBody,
  type EventSourceLike,
  jitteredDelay,
  type LiveState,
  liveConversation,
  inMemoryStorage,
  persistentCustomerId,
  readMetadata,
  readSse,
  STREAM_BACKOFF,
  type StreamEvent,
  SupportApiError,
} from "../src/index.js";

const until = async (cond: () => boolean, what: string, ms = 10_000) => {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe("client helpers", () => {
  it("persists one cust_<UUID> per storage and replaces an invalid stored value", () => {
    const storage = inMemoryStorage();
    const a = persistentCustomerId(storage);
    expect(a).toMatch(/^cust_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(persistentCustomerId(storage)).toBe(a);
    expect(persistentCustomerId(inMemoryStorage())).not.toBe(a);
    storage.setItem("mountkit.support.customerId", "user@example.com");
    expect(persistentCustomerId(storage)).toMatch(/^cust_/);
    expect(persistentCustomerId(storage)).not.toBe("user@example.com");
  });

  it("backs off 1 s doubling to 30 s", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 50].map((n) => backoffDelay(n))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });

  it("equal jitter: each wait lies in [d/2, d] of the doubled d, never shorter than the one before, spread without spikes", () => {
    expect([0, 1, 2, 3, 4, 5, 50].map((n) => jitteredDelay(n, STREAM_BACKOFF, () => 0))).toEqual([
      500, 1000, 2000, 4000, 8000, 15000, 15000,
    ]);
    expect([0, 1, 2, 3, 4, 5, 50].map((n) => jitteredDelay(n, STREAM_BACKOFF, () => 0.5))).toEqual([
      750, 1500, 3000, 6000, 12000, 22500, 22500,
    ]);
    expect([0, 1, 4, 5].map((n) => jitteredDelay(n, STREAM_BACKOFF, () => 0.999999))).toEqual([1000, 2000, 16000, 30000]);
    // other bounds (the client's message retries start at 500 ms)
    expect([0, 1, 2].map((n) => jitteredDelay(n, { initialMs: 500, maxMs: 30_000 }, () => 0))).toEqual([250, 500, 1000]);
    const draw = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
    fc.assert(
      fc.property(fc.nat(60), draw, (n, r) => {
        const d = backoffDelay(n);
        const w = jitteredDelay(n, STREAM_BACKOFF, () => r);
        return w >= d / 2 && w <= d;
      }),
    );
    // the doubling holds whatever the draws: while the doubled delay doubles (1, 2, 4, 8, 16 s), a wait is never
    // shorter than the one of the attempt before; past it every wait stays within the ceiling's [15 s, 30 s]
    fc.assert(
      fc.property(fc.nat(60), draw, draw, (n, a, b) => {
        const next = jitteredDelay(n + 1, STREAM_BACKOFF, () => b);
        if (backoffDelay(n + 1) !== 2 * backoffDelay(n)) return next >= 15_000 && next <= 30_000;
        return next >= jitteredDelay(n, STREAM_BACKOFF, () => a);
      }),
    );
    // on average (a fixed spread of random draws) each wait is twice the one before, until the ceiling
    const draws = Array.from({ length: 1000 }, (_, i) => (i + 0.5) / 1000);
    const waits = (n: number) => draws.map((r) => jitteredDelay(n, STREAM_BACKOFF, () => r));
    const mean = (n: number) => waits(n).reduce((sum, w) => sum + w, 0) / draws.length;
    for (const n of [0, 1, 2, 3]) expect(mean(n + 1) / mean(n)).toBeCloseTo(2, 2);
    // spread: no single wait is drawn by more than 1% of the clients, at the first attempt or at the ceiling
    for (const n of [0, 1, 5, 20]) {
      const counts = new Map<number, number>();
      for (const w of waits(n)) counts.set(w, (counts.get(w) ?? 0) + 1);
      expect(Math.max(...counts.values()), `attempt ${n}`).toBeLessThanOrEqual(10);
    }
  });

  it("strips for display exactly like the server's reference implementation", () => {
    expect(displayBody("Hi\n\n<!-- cs:customerId=cust_1;clientMessageId=msg_2 -->")).toBe("Hi");
    expect(readMetadata("Hi <!-- cs:clientMessageId=msg%3B1 -->")).toEqual({ clientMessageId: "msg;1" });
    expect(displayBody(null)).toBe("");
    expect(Object.keys(readMetadata("<!-- cs:__proto__=x -->")!)).toEqual(["__proto__"]);
    const piece = fc.constantFrom("<!-- cs:", "-->", " ", "\n", "a", "=", ";", "%", "x=1");
    const body = fc.array(fc.oneof(piece, fc.string()), { maxLength: 12 }).map((a) => a.join(""));
    fc.assert(
      fc.property(body, (b) => {
        expect(displayBody(b)).toBe(stripMetadata(b));
      }),
      { numRuns: 1000 },
    );
  });

  it("parses SSE framing: CRLF, multi-line data, comments, ids", async () => {
    const text = 'retry: 1000\r\n\r\n: ping\n\ndata: {"a":\ndata: 1}\n\nid: 7\ndata: x\n\n';
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        const bytes = new TextEncoder().encode(text);
        for (let i = 0; i < bytes.length; i += 5) c.enqueue(bytes.slice(i, i + 5));
        c.close();
      },
    });
    const out = [];
    for await (const m of readSse(stream)) out.push(m);
    expect(out).toEqual([
      { id: undefined, data: '{"a":\n1}' },
      { id: "7", data: "x" },
    ]);
  });
});

describe("SSE reader under any chunking", () => {
  const line = fc.string({ unit: "grapheme", maxLength: 12 }).filter((v) => !/[\r\n]/.test(v));
  const event = fc.record({
    id: fc.option(
      line.filter((v) => !v.includes("\0")),
      { nil: undefined },
    ),
    data: fc.array(line, { minLength: 1, maxLength: 3 }),
    comment: fc.boolean(),
  });

  it("yields the same events however the bytes are split (CRLF across chunks, multi-byte characters)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(event, { minLength: 1, maxLength: 6 }),
        fc.constantFrom("\r\n", "\n", "\r"),
        fc.array(fc.nat(), { maxLength: 20 }),
        async (events, eol, cuts) => {
          let text = `retry: 1000${eol}${eol}`;
          const expected: Array<{ id: string | undefined; data: string }> = [];
          let lastId: string | undefined;
          for (const e of events) {
            if (e.comment) text += `: ping${eol}${eol}`;
            if (e.id !== undefined) {
              text += `id: ${e.id}${eol}`;
              lastId = e.id;
            }
            for (const d of e.data) text += `data: ${d}${eol}`;
            text += eol;
            expected.push({ id: lastId, data: e.data.join("\n") });
          }
          const bytes = new TextEncoder().encode(text);
          const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const stream = new ReadableStream<Uint8Array>({
            start(c) {
              let prev = 0;
              for (const p of [...at, bytes.length]) {
                c.enqueue(bytes.slice(prev, p));
                prev = p;
              }
              c.close();
            },
          });
          const out = [];
          for await (const m of readSse(stream)) out.push(m);
          expect(out).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("an event whose CRLF arrives in two chunks stays one event", async () => {
    const parts = ["id: 1\r\ndata: a\r", "\n\r\nid: 2\r\ndata: b\r\n\r\n"];
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (const p of parts) c.enqueue(new TextEncoder().encode(p));
        c.close();
      },
    });
    const out = [];
    for await (const m of readSse(stream)) out.push(m);
    expect(out).toEqual([
      { id: "1", data: "a" },
      { id: "2", data: "b" },
    ]);
  });
});

describe("client against a real server", () => {
  let service: SupportService;
  let running: Running;
  let base = "";
  beforeAll(async () => {
    service = createSupportService({ products: ["demo"], agentToken: "agent", limits: { rateLimit: 10_000 } });
    running = await listen("fetch", [service]);
    base = running.url;
  });
  afterAll(async () => {
    await running.close();
    await service.dispose();
  });

  /** A fetch whose stream connections can be cut and whose message POSTs can be made to fail. */
  function instrumentedFetch() {
    const ctl = {
      streamStarts: [] as number[],
      lastEventIds: [] as Array<string | null>,
      posts: 0,
      failBeforeSend: false,
      loseNextResponse: false,
      cut: () => {},
    };
    const f: typeof fetch = async (input, init) => {
      const url = String(input);
      if (url.includes("/stream")) {
        ctl.streamStarts.push(Date.now());
        ctl.lastEventIds.push(new Headers(init?.headers).get("last-event-id"));
        const inner = new AbortController();
        init?.signal?.addEventListener("abort", () => inner.abort());
        ctl.cut = () => inner.abort();
        return fetch(input, { ...init, signal: inner.signal });
      }
      if (url.includes("/messages") && init?.method === "POST") {
        ctl.posts++;
        if (ctl.failBeforeSend) throw new TypeError("fetch failed");
        if (ctl.loseNextResponse) {
          ctl.loseNextResponse = false;
          await fetch(input, init).then((r) => r.text());
          throw new TypeError("connection reset after the server answered");
        }
      }
      return fetch(input, init);
    };
    return { f, ctl };
  }

  it("create, list, find, get, send, close", async () => {
    const client = createSupportClient({ baseUrl: base, productSlug: "demo", storage: inMemoryStorage() });
    expect(await client.find()).toBeUndefined();
    const { conversationId } = await client.create({ message: "Help\nplease" });
    expect(await client.find()).toBe(conversationId);
    expect((await client.list()).map((c) => c.id)).toEqual([conversationId]);
    const sent = await client.send(conversationId, "more");
    expect(sent.clientMessageId).toMatch(/^msg_[0-9a-f-]{36}$/);
    const d = await client.get(conversationId);
    expect(d.comments.map((c) => displayBody(c.body))).toEqual(["more"]);
    expect(readMetadata(d.comments[0]!.body)).toEqual({ customerId: client.customerId, clientMessageId: sent.clientMessageId });
    expect(await client.close(conversationId, "close")).toMatchObject({ success: true });
    const before = client;
    await expect(before.send(conversationId, "late")).rejects.toMatchObject({ status: 409, retryable: false });
  });

  it("lists past interface A's page of 50: list() follows Link rel=next to the end, listPage() hands the next page's URL over", async () => {
    const client = createSupportClient({ baseUrl: base, productSlug: "demo", storage: inMemoryStorage() });
    const made: string[] = [];
    for (let i = 0; i < 205; i++) {
      made.push(
        (await service.api.createConversation({ productSlug: "demo", customerId: client.customerId, message: `n${i}` })).conversationId,
      );
    }
    const all = await client.list();
    expect(all).toHaveLength(205);
    expect(new Set(all.map((c) => c.id))).toEqual(new Set(made));
    const first = await client.listPage();
    expect(first.conversations).toHaveLength(50);
    expect(first.next).toMatch(/\/api\/conversations\/list\?.*cursor=/);
    const second = await client.listPage({ next: first.next });
    expect(second.conversations).toHaveLength(50);
    expect(second.conversations.map((c) => c.id)).toEqual(all.slice(50, 100).map((c) => c.id));
    const small = await client.listPage({ limit: 200 });
    expect(small.conversations).toHaveLength(200);
    const last = await client.listPage({ next: small.next });
    expect(last.conversations).toHaveLength(5);
    expect(last.next).toBeUndefined();
    // a next URL elsewhere is never followed with the customer's id
    await expect(client.listPage({ next: "https://elsewhere.example/api/conversations/list?cursor=x" })).rejects.toThrow(/origin/);
  });

  it("does not retry a 4xx", async () => {
    const { f, ctl } = instrumentedFetch();
    const client = createSupportClient({ baseUrl: base, productSlug: "demo", storage: inMemoryStorage(), fetch: f, postRetryMs: 1 });
    const { conversationId } = await client.create({ message: "x" });
    await client.close(conversationId, "close");
    const err = await client.send(conversationId, "late").catch((e) => e);
    expect(err).toBeInstanceOf(SupportApiError);
    expect(ctl.posts).toBe(1);
  });

  it("retries a close refused with 429 after its Retry-After, and a close whose answer was lost: it changes nothing twice", async () => {
    let closes = 0;
    let refuse = true;
    let loseAnswer = false;
    const f: typeof fetch = async (input, init) => {
      if (String(input).endsWith("/close")) {
        closes++;
        if (refuse) {
          refuse = false;
          return new Response(JSON.stringify({ error: "Too many requests", requestId: "req_test" }), {
            status: 429,
            headers: { "content-type": "application/json", "retry-after": "1" },
          });
        }
        if (loseAnswer) {
          loseAnswer = false;
          await fetch(input, init).then((r) => r.text());
          throw new TypeError("connection reset after the server answered");
        }
      }
      return fetch(input, init);
    };
    const client = createSupportClient({ baseUrl: base, productSlug: "demo", storage: inMemoryStorage(), fetch: f, postRetryMs: 1 });
    const { conversationId } = await client.create({ message: "x" });
    const t0 = Date.now();
    expect(await client.close(conversationId, "resolve")).toMatchObject({ success: true });
    expect(closes).toBe(2);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    loseAnswer = true;
    expect(await client.close(conversationId, "resolve")).toMatchObject({ success: true });
    expect(closes).toBe(4);
    expect((await client.list()).find((c) => c.id === conversationId)?.status).toBe("resolved");
  });

  it("retries a post whose response was lost with the same clientMessageId: one message", async () => {
    const { f, ctl } = instrumentedFetch();
    const client = createSupportClient({ baseUrl: base, productSlug: "demo", storage: inMemoryStorage(), fetch: f, postRetryMs: 10 });
    const { conversationId } = await client.create({ message: "x" });
    ctl.loseNextResponse = true;
    const r = await client.send(conversationId, "exactly once");
    expect(ctl.posts).toBe(2);
    const d = await client.get(conversationId);
    expect(d.comments).toHaveLength(1);
    expect(d.comments[0]!.id).toBe(r.id);
  });

  it("live conversation: optimistic send settles on the echo without duplicates; agent replies arrive", async () => {
    const client = createSupportClient({ baseUrl: base, productSlug: "demo", storage: inMemoryStorage() });
    const { conversationId } = await client.create({ message: "Start" });
    const snapshots: DisplayState[] = [];
    type DisplayState = Array<{ text: string; status: string }>;
    const events: StreamEvent[] = [];
    const live = liveConversation(client, conversationId, {
      onChange: (s: LiveState) => snapshots.push(s.comments.map((c) => ({ text: c.text, status: c.status }))),
      onEvent: (e) => events.push(e),
    });
    try {
      await until(() => events.some((e) => e.type === "connected"), "connected");
      const sent = live.send("optimistic hello");
      await until(() => snapshots.some((s) => s.some((c) => c.text === "optimistic hello" && c.status === "pending")), "pending shown");
      const settled = await sent;
      await until(() => events.some((e) => e.type === "new_comment" && e.data.id === settled.id), "echo");
      expect(live.state.comments.filter((c) => c.text === "optimistic hello")).toHaveLength(1);
      expect(live.state.comments[0]).toMatchObject({ id: settled.id, status: "sent", isCustomer: true });
      await service.api.agent.reply(conversationId, { body: "agent here", author: "Ann" });
      await until(() => live.state.comments.some((c) => c.text === "agent here"), "agent reply");
      expect(live.state.issue).toMatchObject({ status: "waiting-for-customer", text: "Start" });
      await service.api.agent.setStatus(conversationId, "resolved");
      await until(() => live.state.issue?.state === "closed", "state_update");
    } finally {
      live.close();
    }
  });

  it("a failed send stays visible as failed and retry() posts it again with the same id", async () => {
    const { f, ctl } = instrumentedFetch();
    const client = createSupportClient({ baseUrl: base, productSlug: "demo", storage: inMemoryStorage(), fetch: f, postAttempts: 1 });
    const { conversationId } = await client.create({ message: "x" });
    const live = liveConversation(client, conversationId);
    try {
      ctl.failBeforeSend = true;
      await expect(live.send("offline message")).rejects.toMatchObject({ status: 0 });
      const failed = live.state.comments.find((c) => c.text === "offline message")!;
      expect(failed.status).toBe("failed");
      ctl.failBeforeSend = false;
      const ok = await live.retry(failed.clientMessageId!);
      expect(ok.status).toBe("sent");
      expect(ok.clientMessageId).toBe(failed.clientMessageId);
      const d = await client.get(conversationId);
      expect(d.comments).toHaveLength(1);
      expect(readMetadata(d.comments[0]!.body)?.clientMessageId).toBe(failed.clientMessageId);
    } finally {
      live.close();
    }
  });

  it("fetch reader: a dropped stream reconnects after 1 s with Last-Event-ID and refetches the detail", async () => {
    const { f, ctl } = instrumentedFetch();
    // the jitter drawn at its top: the whole first second
    const client = createSupportClient({ baseUrl: base, productSlug: "demo", storage: inMemoryStorage(), fetch: f, random: () => 0.9999 });
    const { conversationId } = await client.create({ message: "x" });
    const events: StreamEvent[] = [];
    const live = liveConversation(client, conversationId, { onEvent: (e) => events.push(e) });
    try {
      await until(() => events.some((e) => e.type === "connected"), "connected");
      await client.send(conversationId, "before");
      await until(() => events.some((e) => e.type === "new_comment"), "first echo");
      const cutAt = Date.now();
      ctl.cut();
      await service.api.agent.reply(conversationId, { body: "while you were away", author: "Ann" });
      await until(() => ctl.streamStarts.length >= 2, "reconnect");
      expect(ctl.streamStarts[1]! - cutAt).toBeGreaterThanOrEqual(900);
      expect(ctl.lastEventIds[1]).toMatch(/^\d+$/);
      await until(() => live.state.comments.some((c) => c.text === "while you were away"), "missed reply");
      expect(live.state.comments.filter((c) => c.text === "while you were away")).toHaveLength(1);
    } finally {
      live.close();
    }
  });

  it("fetch reader: the reconnect delay is the jittered first delay, drawn from the injected random source", async () => {
    const { f, ctl } = instrumentedFetch();
    const client = createSupportClient({ baseUrl: base, productSlug: "demo", storage: inMemoryStorage(), fetch: f, random: () => 0 });
    const { conversationId } = await client.create({ message: "x" });
    const events: StreamEvent[] = [];
    const live = liveConversation(client, conversationId, { onEvent: (e) => events.push(e) });
    try {
      await until(() => events.some((e) => e.type === "connected"), "connected");
      const cutAt = Date.now();
      ctl.cut();
      await until(() => ctl.streamStarts.length >= 2, "reconnect");
      // 0 draws the bottom of the first range, [0.5 s, 1 s]: half a second, never before it, well before the second
      const waited = ctl.streamStarts[1]! - cutAt;
      expect(waited).toBeGreaterThanOrEqual(450);
      expect(waited).toBeLessThan(950);
    } finally {
      live.close();
    }
  });

  it("EventSource mode: uses the platform EventSource (here the eventsource package) and its own reconnects", async () => {
    const client = createSupportClient({
      baseUrl: base,
      productSlug: "demo",
      storage: inMemoryStorage(),
      EventSource: EventSource as unknown as EventSourceLike,
    });
    const { conversationId } = await client.create({ message: "x" });
    const events: StreamEvent[] = [];
    let ended = "";
    const sub = client.subscribe(conversationId, { onEvent: (e) => events.push(e), onEnd: (r) => (ended = r) });
    try {
      await until(() => events.some((e) => e.type === "connected"), "connected");
      const r = await client.send(conversationId, "via ES");
      await until(() => events.some((e) => e.type === "new_comment" && e.data.id === r.id), "echo");
      expect(events.find((e) => e.type === "new_comment")!.id).toMatch(/^\d+$/);
      await service.api.agent.remove(conversationId);
      await until(() => ended === "deleted", "issue_deleted");
    } finally {
      sub.close();
    }
  });
});
