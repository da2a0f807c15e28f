// Entry webhooks (docs/webhooks.md) under Express, Fastify and fetch, on real sockets; the SQL projects rerun it on
// SQLite and PostgreSQL, where each event's job is written in the transaction of the change it reports.
import { createEntriesService, jwtVerifier, signHs256 } from "@mountkit/entries";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { japan } from "../packages/entries/test/fixtures/countries.js";
import { call, forEachAdapter } from "./harness.js";
import { type Receiver, startReceiver } from "./webhook-receiver.js";

const SECRET = "entries-webhooks-secret-0123456789abcdef";
const auth = async (sub = "alice") => ({ authorization: `Bearer ${await signHs256(SECRET, { sub })}` });

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

forEachAdapter(
  "entry webhooks",
  () => [
    createEntriesService({
      auth: jwtVerifier({ secret: SECRET }),
      webhooks: { allowPrivate: true, retryScheduleMs: [100, 200, 300, 300, 300, 300, 300, 300, 300, 300], pollMs: 20 },
    }),
  ],
  (t) => {
    const hooks = (path = "") => `${t.url}/api/v1/webhooks${path}`;
    const data = (path = "") => `${t.url}/api/v1/types/countries/data${path}`;
    const subscribe = async (body: Record<string, unknown>, sub = "alice") => call(hooks(), { body, headers: await auth(sub) });
    const submit = async (name: string, sub = "alice") => {
      const r = await call(data(), { body: { name, description: "d", customData: japan, tags: ["asia"] }, headers: await auth(sub) });
      expect(r.status, r.text).toBe(201);
      return r.body;
    };
    const reset = () => {
      receiver.got.length = 0;
      receiver.down = false;
    };

    describe("subscriptions", () => {
      it("are created with a secret, listed, read, changed (a rotated secret), deleted; another owner sees none of them", async () => {
        const created = await subscribe({ url: `${receiver.url}?crud`, events: ["entry.created"], description: "crud" });
        expect(created.status, created.text).toBe(201);
        expect(created.body).toMatchObject({ id: expect.stringMatching(/^whs_/), events: ["entry.created"], enabled: true, secret: expect.stringMatching(/^whsec_/) });
        const id = created.body.id;
        expect((await call(hooks(), { headers: await auth() })).body.data.map((s: { id: string }) => s.id)).toContain(id);
        expect((await call(hooks(`/${id}`), { headers: await auth() })).body.url).toBe(`${receiver.url}?crud`);
        const rotated = await call(hooks(`/${id}`), { method: "PATCH", body: { rotateSecret: true, enabled: false }, headers: await auth() });
        expect(rotated.status).toBe(200);
        expect(rotated.body.secret).not.toBe(created.body.secret);
        expect(rotated.body.enabled).toBe(false);
        // another owner: the same 404 as a subscription that does not exist
        for (const [method, path] of [["GET", `/${id}`], ["PATCH", `/${id}`], ["DELETE", `/${id}`], ["GET", `/${id}/deliveries`]] as const) {
          const r = await call(hooks(path), { method, headers: await auth("mallory"), ...(method === "PATCH" ? { body: { enabled: true } } : {}) });
          expect(r.status, `${method} ${path}`).toBe(404);
          expect(r.body).toMatchObject({ error: expect.any(String), requestId: expect.any(String) });
        }
        expect((await call(hooks(), { headers: await auth("mallory") })).body.data).toEqual([]);
        expect((await call(hooks(`/${id}`), { method: "DELETE", headers: await auth() })).status).toBe(204);
        expect((await call(hooks(`/${id}`), { headers: await auth() })).status).toBe(404);
        expect((await call(hooks())).status).toBe(401);
      });

      it("refuse bad URLs, unknown event types and unknown fields with 400 and the error body", async () => {
        for (const body of [
          { url: "ftp://example.com/x", events: ["entry.created"] },
          { url: "http://169.254.169.254/latest", events: ["*"] },
          { url: "http://user:pw@example.com/", events: ["*"] },
          { url: "not a url", events: ["*"] },
          { url: "https://example.com/", events: ["entry.exploded"] },
          { url: "https://example.com/", events: [] },
          { url: "https://example.com/", events: ["*"], extra: 1 },
        ]) {
          const r = await subscribe(body);
          expect(r.status, JSON.stringify(body)).toBe(400);
          expect(r.body).toMatchObject({ error: expect.any(String), requestId: expect.any(String) });
          expect(r.text).not.toMatch(/at .*\.ts:\d+/);
        }
      });
    });

    describe("deliveries", () => {
      it("entry.created, entry.updated and entry.deleted arrive signed, carrying the entry; the library's verifier accepts them", async () => {
        reset();
        const s = (await subscribe({ url: receiver.url, events: ["*"] })).body;
        const e = await submit("Signed");
        await call(data(`/${e.id}`), { method: "PATCH", body: { name: "Signed 2" }, headers: await auth() });
        await call(data(`/${e.id}`), { method: "DELETE", headers: await auth() });
        const got = (await receiver.waitFor(3)).filter((g) => g.payload.data.id === e.id);
        expect(got.map((g) => g.payload.type)).toEqual(["entry.created", "entry.updated", "entry.deleted"]);
        for (const g of got) expect(receiver.verify(g, s.secret)).toEqual(g.payload);
        expect(() => receiver.verify(got[0]!, "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")).toThrow();
        expect(got[1]!.payload.data).toMatchObject({ id: e.id, name: "Signed 2", ownerId: "alice", typeId: "countries" });
        // another owner's changes never reach alice's subscription
        await submit("Not yours", "bob");
        await new Promise((r) => setTimeout(r, 300));
        expect(receiver.got.some((g) => g.payload.data.name === "Not yours")).toBe(false);
        await call(hooks(`/${s.id}`), { method: "DELETE", headers: await auth() });
      });

      it("a receiver down for a while gets every event once back, in order per entry; the log shows the failed attempts; redelivery sends again", async () => {
        reset();
        const s = (await subscribe({ url: receiver.url, events: ["entry.created", "entry.updated"] })).body;
        receiver.down = true;
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) ids.push((await submit(`Down ${i}`)).id);
        for (let round = 1; round <= 3; round++)
          for (const id of ids) expect((await call(data(`/${id}`), { method: "PATCH", body: { name: `Down ${id} ${round}` }, headers: await auth() })).status).toBe(200);
        await new Promise((r) => setTimeout(r, 400));
        expect(receiver.got).toHaveLength(0);
        receiver.down = false;
        const got = await receiver.waitFor(12);
        for (const id of ids) {
          const names = got.filter((g) => g.payload.data.id === id).map((g) => g.payload.data.name);
          const firsts = names.filter((n, i) => names.indexOf(n) === i);
          expect(firsts).toEqual([`Down ${ids.indexOf(id)}`, `Down ${id} 1`, `Down ${id} 2`, `Down ${id} 3`]);
        }
        // the receiver has them; the log records each answer just after it was given
        const settled = async () => {
          const r = await call(hooks(`/${s.id}/deliveries?limit=100`), { headers: await auth() });
          return r.body.data.every((d: { state: string }) => d.state === "delivered");
        };
        for (let i = 0; i < 100 && !(await settled()); i++) await new Promise((r) => setTimeout(r, 20));
        const log = await call(hooks(`/${s.id}/deliveries?limit=5`), { headers: await auth() });
        expect(log.status).toBe(200);
        expect(log.body.data).toHaveLength(5);
        expect(log.body.next).toEqual(expect.any(String));
        const rest = await call(hooks(`/${s.id}/deliveries?limit=100&cursor=${log.body.next}`), { headers: await auth() });
        const all = [...log.body.data, ...rest.body.data];
        expect(all).toHaveLength(12);
        expect(new Set(all.map((d: { id: string }) => d.id)).size).toBe(12);
        expect(all.every((d: { state: string }) => d.state === "delivered")).toBe(true);
        expect(all.some((d: { attempts: Array<{ status: number }> }) => d.attempts.some((a) => a.status === 503))).toBe(true);
        const one = all[0]!;
        const before = receiver.got.length;
        const again = await call(hooks(`/${s.id}/deliveries/${one.id}/redeliver`), { method: "POST", headers: await auth() });
        expect(again.status).toBe(202);
        for (let i = 0; i < 100 && receiver.got.length === before; i++) await new Promise((r) => setTimeout(r, 20));
        expect(receiver.got.at(-1)!.id).toBe(one.eventId);
        expect((await call(hooks(`/${s.id}/deliveries/${one.id}/redeliver`), { method: "POST", headers: await auth("mallory") })).status).toBe(404);
        expect((await call(hooks(`/${s.id}/deliveries/dlv_nothing`), { headers: await auth() })).status).toBe(404);
        await call(hooks(`/${s.id}`), { method: "DELETE", headers: await auth() });
      });
    });
  },
);

describe("entry webhooks without allowPrivate", () => {
  it("refuse a receiver on 127.0.0.1 when the subscription is saved", async () => {
    const service = createEntriesService({ auth: jwtVerifier({ secret: SECRET }) });
    try {
      const { toFetchHandler } = await import("@mountkit/core");
      const handler = toFetchHandler(service);
      const r = await handler(
        new Request("http://kit.test/api/v1/webhooks", {
          method: "POST",
          headers: { ...(await auth()), "content-type": "application/json" },
          body: JSON.stringify({ url: "http://127.0.0.1:9/hooks", events: ["*"] }),
        }),
      );
      expect(r.status).toBe(400);
      expect(JSON.stringify(await r.json())).toMatch(/loopback/);
    } finally {
      await service.dispose();
    }
  });
});
