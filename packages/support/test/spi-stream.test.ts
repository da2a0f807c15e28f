// Streams for products served through the SPI client: a second service instance is the remote; one poller
// per conversation per process diffs its detail into the local log (replay, backoff, shared pollers).

import { inMemoryPubSub } from "@mountkit/core/jobs";
import { afterEach, describe, expect, it } from "vitest";
import { createSupportService, inMemorySupportStore, type SupportService, spiBackend } from "../src/index.js";
import { call, openStream, until } from "./fakes/streams.js";

const cust = () => `cust_${crypto.randomUUID()}`;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function setup(o: { pollIntervalMs?: number; maxPollIntervalMs?: number } = {}) {
  const remote = createSupportService({ products: ["demo"], spiToken: "spi", pruneIntervalMs: 0, limits: { rateLimit: 100_000 } });
  const polls: number[] = [];
  let failing = false;
  const remoteFetch = async (url: string | URL | Request, init?: RequestInit) => {
    const u = new URL(String(url));
    if ((init?.method ?? "GET") === "GET" && /\/care\/conversations\/[^/]+$/.test(u.pathname)) polls.push(Date.now());
    if (failing) return new Response(JSON.stringify({ error: "down", requestId: "x" }), { status: 503 });
    return remote.fetch(new Request(url, init));
  };
  const make = () => {
    const s = createSupportService({
      products: [
        {
          slug: "remote",
          backend: spiBackend({
            baseUrl: "http://remote.test",
            token: "spi",
            fetch: remoteFetch as typeof fetch,
            pollIntervalMs: o.pollIntervalMs ?? 30,
            maxPollIntervalMs: o.maxPollIntervalMs,
          }),
        },
      ],
      pruneIntervalMs: 0,
      limits: { rateLimit: 100_000 },
    });
    cleanups.push(() => s.dispose());
    return s;
  };
  const local = make();
  cleanups.push(() => remote.dispose());
  const q = (c: string) => `productSlug=remote&customerId=${c}`;
  const create = async (c: string) => {
    const r = await call(local, "POST", "/api/conversations", { productSlug: "remote", customerId: c, message: "Hi from afar" });
    expect(r.status).toBe(200);
    return r.body.conversationId as string;
  };
  const stream = (id: string, c: string, headers: Record<string, string> = {}, to: SupportService = local) =>
    openStream(to, `/api/conversations/${id}/stream?${q(c)}`, headers);
  return {
    remote,
    local,
    make,
    polls,
    setFailing: (v: boolean) => {
      failing = v;
    },
    q,
    create,
    stream,
  };
}

describe("SSE for SPI-backed products", () => {
  it("remote agent activity becomes events with the remote's ids; the customer's own post echoes at once", async () => {
    const t = setup();
    const c = cust();
    const id = await t.create(c);
    const st = await t.stream(id, c);
    expect(st.status).toBe(200);
    await until(() => st.types().includes("connected"), "connected");
    const reply = await t.remote.api.agent.reply(id, { body: "Remote agent here", author: "Ann" });
    await until(() => st.types().includes("new_comment"), "polled reply");
    expect(st.frames.find((f) => f.type === "new_comment")!.data).toMatchObject({
      id: reply.id,
      body: "Remote agent here",
      author: "Ann",
      isCustomer: false,
    });
    await until(() => st.frames.some((f) => f.type === "labels_changed" && f.data.status === "waiting-for-customer"), "status");
    const posted = await call(t.local, "POST", `/api/conversations/${id}/messages`, {
      productSlug: "remote",
      customerId: c,
      message: "thanks",
      clientMessageId: "msg_echo",
    });
    await until(() => st.frames.some((f) => f.type === "new_comment" && f.data.id === posted.body.id), "echo");
    expect(st.frames.find((f) => f.data?.id === posted.body.id)!.data).toMatchObject({ isCustomer: true });
    await t.remote.api.agent.editMessage(id, reply.id, "Remote agent here (edited)");
    // polling sees states, not steps: let one poll see the edit before the delete
    await until(() => st.types().includes("comment_edited"), "edit");
    expect(st.frames.find((f) => f.type === "comment_edited")!.data).toMatchObject({ id: reply.id, body: "Remote agent here (edited)" });
    await t.remote.api.agent.deleteMessage(id, reply.id);
    await until(() => st.types().includes("comment_deleted"), "delete");
    expect(st.frames.find((f) => f.type === "comment_deleted")!.data).toEqual({ id: reply.id });
    // ids increase by one per event
    const seqs = st.frames.filter((f) => f.id).map((f) => Number(f.id));
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
    await t.remote.api.agent.remove(id);
    await st.ended;
    expect(st.frames.at(-1)).toMatchObject({ type: "issue_deleted", data: { id } });
  });

  it("404 for another customer's or an unknown conversation; isolation of the mirror", async () => {
    const t = setup();
    const c = cust();
    const id = await t.create(c);
    expect((await t.stream(id, cust())).status).toBe(404);
    expect((await t.stream("conv_nope", c)).status).toBe(404);
  });

  it("Last-Event-ID: changes made while nobody watched are replayed on reconnect", async () => {
    const t = setup();
    const c = cust();
    const id = await t.create(c);
    const st = await t.stream(id, c);
    await t.remote.api.agent.reply(id, { body: "one", author: "Ann" });
    await until(() => st.types().includes("new_comment"), "first reply");
    const last = st.frames.filter((f) => f.id).at(-1)!.id!;
    await st.close();
    await t.remote.api.agent.reply(id, { body: "two (while away)", author: "Ann" });
    const again = await t.stream(id, c, { "last-event-id": last });
    await until(() => again.frames.some((f) => f.type === "new_comment"), "replay");
    expect(again.frames.find((f) => f.type === "new_comment")!.data.body).toBe("two (while away)");
    expect(Number(again.frames.find((f) => f.type === "new_comment")!.id)).toBeGreaterThan(Number(last));
    await again.close();
  });

  it("one poller per conversation however many streams watch it; none once they all close", async () => {
    const t = setup({ pollIntervalMs: 50 });
    const c = cust();
    const id = await t.create(c);
    const streams = await Promise.all([t.stream(id, c), t.stream(id, c), t.stream(id, c), t.stream(id, c)]);
    const from = t.polls.length;
    const started = Date.now();
    await new Promise((r) => setTimeout(r, 600));
    const elapsed = Date.now() - started;
    const polled = t.polls.length - from;
    // four independent pollers would poll four times as often
    expect(polled).toBeLessThanOrEqual(Math.ceil(elapsed / 50) + 2);
    expect(polled).toBeGreaterThan(0);
    await t.remote.api.agent.reply(id, { body: "to all", author: "Ann" });
    await until(() => streams.every((s) => s.types().includes("new_comment")), "fan-out");
    for (const s of streams) await s.close();
    const after = t.polls.length;
    await new Promise((r) => setTimeout(r, 200));
    expect(t.polls.length).toBe(after);
  });

  it("backs off while the remote fails, then recovers and delivers what changed", async () => {
    const t = setup({ pollIntervalMs: 20, maxPollIntervalMs: 400 });
    const c = cust();
    const id = await t.create(c);
    const st = await t.stream(id, c);
    t.setFailing(true);
    const from = t.polls.length;
    await new Promise((r) => setTimeout(r, 800));
    const failed = t.polls.slice(from);
    // 20 ms apart without backoff would be ~40 polls; doubling (20, 40, 80, 160, 320, 400) gives about 6
    expect(failed.length).toBeLessThanOrEqual(9);
    expect(failed.length).toBeGreaterThanOrEqual(2);
    const gaps = failed.slice(1).map((x, i) => x - failed[i]!);
    expect(gaps.at(-1)!).toBeGreaterThan(gaps[0]!);
    await t.remote.api.agent.reply(id, { body: "after the outage", author: "Ann" });
    t.setFailing(false);
    await until(() => st.types().includes("new_comment"), "delivery after recovery", 5000);
    await st.close();
  });

  it("two processes sharing store and bus: a change is appended once to the shared log", async () => {
    const store = inMemorySupportStore();
    const bus = inMemoryPubSub();
    const remote = createSupportService({ products: ["demo"], spiToken: "spi", pruneIntervalMs: 0, limits: { rateLimit: 100_000 } });
    cleanups.push(() => remote.dispose());
    const proc = () => {
      const s = createSupportService({
        products: [
          {
            slug: "remote",
            backend: spiBackend({
              baseUrl: "http://remote.test",
              token: "spi",
              fetch: ((url: string, init?: RequestInit) => remote.fetch(new Request(url, init))) as typeof fetch,
              pollIntervalMs: 20,
            }),
          },
        ],
        store,
        bus,
        pruneIntervalMs: 0,
        limits: { rateLimit: 100_000 },
      });
      cleanups.push(() => s.dispose());
      return s;
    };
    const a = proc();
    const b = proc();
    const c = cust();
    const id = (await call(a, "POST", "/api/conversations", { productSlug: "remote", customerId: c, message: "twice watched" })).body
      .conversationId as string;
    const sa = await openStream(a, `/api/conversations/${id}/stream?productSlug=remote&customerId=${c}`);
    const sb = await openStream(b, `/api/conversations/${id}/stream?productSlug=remote&customerId=${c}`);
    await new Promise((r) => setTimeout(r, 50));
    await remote.api.agent.reply(id, { body: "once", author: "Ann" });
    await until(() => sa.types().includes("new_comment") && sb.types().includes("new_comment"), "both");
    await new Promise((r) => setTimeout(r, 150));
    expect(sa.frames.filter((f) => f.type === "new_comment")).toHaveLength(1);
    expect(sb.frames.filter((f) => f.type === "new_comment")).toHaveLength(1);
    await sa.close();
    await sb.close();
  });
});
