// Outbound events on real sockets, in-process stores: signed deliveries that the Standard Webhooks library verifies,
// a receiver that is down for a while getting every event in order once back, retries, the delivery log and a manual
// redelivery, loopback receivers refused unless allowed, a slow receiver not delaying the others.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../src/clock.js";
import { inMemoryJobStore } from "../src/queue.js";
import {
  eventJob,
  inMemoryWebhookStore,
  newSecret,
  type Subscription,
  startWebhooks,
  type WebhookDispatcher,
  type WebhookOptions,
  type WebhookStore,
  webhookEvent,
} from "../src/webhooks/index.js";

type Received = { headers: IncomingMessage["headers"]; body: string };

async function receiver(behave: (n: number, body: string) => number | Promise<number> = () => 204) {
  const got: Received[] = [];
  let n = 0;
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    for await (const c of req) body += c;
    const status = await behave(n++, body);
    if (status >= 200 && status < 300) got.push({ headers: req.headers, body });
    res.writeHead(status).end("ok");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { got, url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const open: Array<{ stop(): Promise<void> } | { close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.splice(0)) await ("stop" in o ? o.stop() : o.close());
});

function setup(options: WebhookOptions = {}) {
  const store = inMemoryWebhookStore();
  const jobs = inMemoryJobStore();
  const hooks = startWebhooks({
    service: "test",
    store,
    jobs,
    clock: systemClock,
    options: { allowPrivate: true, retryScheduleMs: [30, 60, 60, 60, 60, 60, 60, 60], pollMs: 10, ...options },
  });
  open.push(hooks);
  return { store, jobs, hooks };
}

async function subscribe(store: WebhookStore, url: string, scope = "s:1", events = ["*"]): Promise<Subscription> {
  const s: Subscription = {
    id: `whs_${Math.random().toString(36).slice(2)}`,
    scope,
    url,
    events,
    secret: newSecret(),
    description: "",
    enabled: true,
    createdAt: 0,
    updatedAt: 0,
  };
  await store.createSubscription(s);
  return s;
}

async function emit(hooks: WebhookDispatcher, type: string, subject: string, data: unknown, scope = "s:1") {
  const e = webhookEvent({ type, scope, subject, data, now: Date.now() });
  await hooks.jobs.enqueue(eventJob("test", e));
  hooks.wake();
  return e;
}

describe("webhooks", () => {
  it("signs deliveries so that the library's verifier accepts them, with the Standard Webhooks payload", async () => {
    const r = await receiver();
    open.push(r);
    const { store, hooks } = setup();
    const sub = await subscribe(store, r.url);
    const e = await emit(hooks, "thing.created", "t1", { name: "x" });
    await hooks.idle();
    expect(r.got).toHaveLength(1);
    const { headers, body } = r.got[0]!;
    const verified = new Webhook(sub.secret).verify(body, headers as Record<string, string>);
    expect(verified).toEqual({ type: "thing.created", timestamp: new Date(e.occurredAt).toISOString(), data: { name: "x" } });
    expect(headers["webhook-id"]).toBe(e.id);
    expect(() => new Webhook(newSecret()).verify(body, headers as Record<string, string>)).toThrow();
  });

  it("a receiver down for a while gets every event once back, in order per subject, each delivery logged", async () => {
    let down = true;
    const r = await receiver(() => (down ? 503 : 200));
    open.push(r);
    const { store, hooks } = setup();
    const sub = await subscribe(store, r.url);
    const sent: string[] = [];
    for (let i = 0; i < 12; i++) sent.push((await emit(hooks, "thing.updated", `t${i % 3}`, { i })).id);
    await new Promise((res) => setTimeout(res, 150));
    down = false;
    await hooks.idle();
    const ids = r.got.map((g) => g.headers["webhook-id"] as string);
    expect(new Set(ids)).toEqual(new Set(sent));
    for (const subject of ["t0", "t1", "t2"]) {
      const order = r.got.filter((g) => JSON.parse(g.body).data.i % 3 === Number(subject[1])).map((g) => JSON.parse(g.body).data.i);
      // at-least-once: a repeat may come, but never out of order past its first arrival
      const firsts = order.filter((v, i) => order.indexOf(v) === i);
      expect(firsts).toEqual([...firsts].sort((a, b) => a - b));
    }
    const log = await store.listDeliveries(sub.id, { limit: 100 });
    expect(log).toHaveLength(12);
    expect(log.every((d) => d.state === "delivered")).toBe(true);
    expect(log.some((d) => d.attempts.some((a) => a.status === 503))).toBe(true);
  });

  it("marks a delivery failed after its schedule, and a manual redelivery sends it again", async () => {
    let up = false;
    const r = await receiver(() => (up ? 200 : 500));
    open.push(r);
    const { store, hooks } = setup({ retryScheduleMs: [10, 10] });
    const sub = await subscribe(store, r.url);
    await emit(hooks, "thing.deleted", "t1", {});
    await hooks.idle();
    const [d] = await store.listDeliveries(sub.id, { limit: 10 });
    expect(d).toMatchObject({ state: "failed", attemptCount: 3, nextAttemptAt: null });
    expect(d!.attempts.map((a) => a.status)).toEqual([500, 500, 500]);
    up = true;
    await hooks.redeliver(d!);
    await hooks.idle();
    expect((await store.getDelivery(d!.id))?.state).toBe("delivered");
    expect(r.got).toHaveLength(1);
  });

  it("refuses loopback receivers unless private addresses are allowed", async () => {
    const r = await receiver();
    open.push(r);
    const { store, hooks } = setup({ allowPrivate: false, retryScheduleMs: [] });
    const sub = await subscribe(store, r.url);
    await emit(hooks, "thing.created", "t1", {});
    await hooks.idle();
    const [d] = await store.listDeliveries(sub.id, { limit: 10 });
    expect(d).toMatchObject({ state: "failed" });
    expect(d!.attempts[0]).toMatchObject({ status: null });
    expect(d!.attempts[0]!.error).toMatch(/loopback/);
    expect(r.got).toHaveLength(0);
  });

  it("an event whose fan-out runs after a subscription was made does not reach that subscription", async () => {
    const r = await receiver();
    open.push(r);
    const store = inMemoryWebhookStore();
    const jobs = inMemoryJobStore();
    const e = webhookEvent({ type: "thing.created", scope: "s:1", subject: "t1", data: { n: 1 }, now: Date.now() - 1000 });
    await jobs.enqueue(eventJob("test", e));
    const early = await subscribe(store, `${r.url}?early`);
    await store.updateSubscription({ ...early, createdAt: e.occurredAt - 1 });
    const late: Subscription = { ...(await subscribe(store, `${r.url}?late`)), createdAt: Date.now() };
    await store.updateSubscription(late);
    const hooks = startWebhooks({ service: "test", store, jobs, clock: systemClock, options: { allowPrivate: true, pollMs: 10 } });
    open.push(hooks);
    await hooks.idle();
    expect(r.got).toHaveLength(1);
    expect(await store.listDeliveries(late.id, { limit: 10 })).toEqual([]);
  });

  it("delivers only to subscriptions of the event's scope and type", async () => {
    const r = await receiver();
    open.push(r);
    const { store, hooks } = setup();
    await subscribe(store, `${r.url}?a`, "s:1", ["thing.created"]);
    await subscribe(store, `${r.url}?b`, "s:2", ["*"]);
    await emit(hooks, "thing.created", "t1", { n: 1 }, "s:1");
    await emit(hooks, "thing.deleted", "t1", { n: 2 }, "s:1");
    await hooks.idle();
    expect(r.got.map((g) => JSON.parse(g.body).data.n)).toEqual([1]);
  });

  it("one slow receiver does not delay the others' deliveries", async () => {
    const slow = await receiver(() => new Promise((res) => setTimeout(() => res(200), 600)));
    const fast = await receiver();
    open.push(slow, fast);
    const { store, hooks } = setup({ concurrency: 4 });
    await subscribe(store, slow.url);
    await subscribe(store, fast.url);
    const started = Date.now();
    for (let i = 0; i < 5; i++) await emit(hooks, "thing.created", `t${i}`, { i });
    for (let t = 0; t < 200 && fast.got.length < 5; t++) await new Promise((res) => setTimeout(res, 10));
    expect(fast.got).toHaveLength(5);
    // the slow one has taken at most one delivery by then: five would need 3 s
    expect(slow.got.length).toBeLessThan(2);
    expect(Date.now() - started).toBeLessThan(600);
    await hooks.idle();
    expect(slow.got).toHaveLength(5);
  }, 30_000);
});
