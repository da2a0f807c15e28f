// docs/conventions.md#error-body: the same bad request gets the same error body under every adapter, host parser or not.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createEntriesService, jwtVerifier } from "@mountkit/entries";
import { mountkit } from "@mountkit/express";
import { createMemoryService } from "@mountkit/memory";
import { createSupportService } from "@mountkit/support";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen, type Running } from "../servers.js";

const KEY = "mk_error_body_brain_0123456789";

const services = () => [
  createEntriesService({ auth: jwtVerifier({ secret: "s".repeat(32), issuer: "i", audience: "a" }) }),
  createMemoryService({ worker: { start: false } }),
  createSupportService({ products: ["demo"] }),
];

describe("one error body for the same bad request, whichever host", () => {
  const hosts: Array<{ name: string; url: string; close(): Promise<void> }> = [];
  const made = [services(), services(), services(), services()];
  beforeAll(async () => {
    for (const list of made) await (list[1] as ReturnType<typeof createMemoryService>).keys.create({ brainId: "b", key: KEY });
    for (const [i, fw] of (["express", "fastify", "fetch"] as const).entries()) {
      const r: Running = await listen(fw, made[i]!);
      hosts.push({ name: fw, url: r.url, close: () => r.close() });
    }
    // a host that parses JSON itself before the kit sees the request
    const app = express();
    app.use(express.json());
    app.use(mountkit(made[3]!));
    const server = createServer(app);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    hosts.push({
      name: "express.json() first",
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () => new Promise<void>((r) => server.close(() => r())),
    });
  });
  afterAll(async () => {
    for (const h of hosts) await h.close();
    for (const list of made) for (const s of list) await s.dispose();
  });

  const cases: Array<[string, string, RequestInit]> = [
    [
      "support: malformed JSON",
      "/api/conversations",
      { method: "POST", headers: { "content-type": "application/json" }, body: '{"productSlug": demo}' },
    ],
    [
      "memory: malformed JSON",
      "/v1/recall",
      { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` }, body: "{oops" },
    ],
    ["support: unknown product", "/api/conversations/find?productSlug=nope&customerId=cust_00000000-0000-0000-0000-000000000000", {}],
    ["memory: no key", "/v1/episodes", {}],
    ["entries: no route", "/api/v1/types/nope/openapi.json", {}],
  ];
  for (const [name, path, init] of cases) {
    it(name, async () => {
      const bodies: Array<{ host: string; status: number; body: unknown }> = [];
      for (const h of hosts) {
        const res = await fetch(`${h.url}${path}`, { ...init, headers: { ...(init.headers as object), "x-request-id": "same-id-1" } });
        const body = await res.json();
        expect(res.headers.get("x-request-id"), h.name).toBe("same-id-1");
        expect(
          Object.keys(body).every((k) => ["error", "details", "requestId"].includes(k)),
          `${h.name}: ${JSON.stringify(body)}`,
        ).toBe(true);
        expect(typeof body.error).toBe("string");
        expect(body.requestId).toBe("same-id-1");
        bodies.push({ host: h.name, status: res.status, body });
      }
      for (const b of bodies.slice(1))
        expect({ status: b.status, body: b.body }, b.host).toEqual({ status: bodies[0]!.status, body: bodies[0]!.body });
    });
  }
});
