// Interface A called from a page on another origin (docs/support.md#cors): preflight, response and stream headers,
// under Express, Fastify and fetch on real sockets. Interface B and the agent side never answer CORS.
import { createSupportService } from "@mountkit/support";
import { expect, it } from "vitest";
import { call, forEachAdapter } from "./harness.js";

const WIDGET = "http://widget.example:8080";
const SHOP = "https://shop.example";
const cust = () => `cust_${crypto.randomUUID()}`;

forEachAdapter(
  "support CORS",
  () => [
    createSupportService({ products: ["demo", { slug: "shop", corsOrigins: [SHOP] }], corsOrigins: [WIDGET], agentToken: "agent-token" }),
    createSupportService({ products: ["demo"], basePath: "/open", corsOrigins: "*" }),
    createSupportService({ products: ["demo"], basePath: "/none" }),
  ],
  (t) => {
    const preflight = (path: string, origin: string, method = "POST") =>
      fetch(`${t.url}${path}`, {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": method, "access-control-request-headers": "content-type, last-event-id" },
      });

    it("answers a preflight for an allowed origin with the methods and headers a widget sends", async () => {
      const r = await preflight("/api/conversations", WIDGET);
      expect(r.status).toBe(204);
      expect(r.headers.get("access-control-allow-origin")).toBe(WIDGET);
      expect(r.headers.get("access-control-allow-methods")).toMatch(/POST/);
      expect(r.headers.get("access-control-allow-headers")).toMatch(/last-event-id/);
      expect(r.headers.get("access-control-allow-headers")).toMatch(/content-type/);
      // a verified customer's widget sends its signature as a header (docs/support.md#verified-customers)
      expect(r.headers.get("access-control-allow-headers")).toMatch(/x-customer-signature/);
      expect(r.headers.get("vary")).toMatch(/Origin/);
      const stream = await preflight("/api/conversations/abc/stream", WIDGET, "GET");
      expect(stream.headers.get("access-control-allow-origin")).toBe(WIDGET);
    });

    it("allows a product's own origins and refuses every other origin", async () => {
      expect((await preflight("/api/conversations", SHOP)).headers.get("access-control-allow-origin")).toBe(SHOP);
      const evil = await preflight("/api/conversations", "https://evil.example");
      expect(evil.status).toBe(204);
      expect(evil.headers.get("access-control-allow-origin")).toBeNull();
      const r = await call(`${t.url}/api/conversations`, {
        headers: { origin: "https://evil.example" },
        body: { productSlug: "demo", customerId: cust(), message: "hi" },
      });
      expect(r.status).toBe(200);
      expect(r.headers.get("access-control-allow-origin")).toBeNull();
    });

    it("adds the origin and exposed headers to answers and errors of interface A", async () => {
      const customerId = cust();
      const created = await call(`${t.url}/api/conversations`, {
        headers: { origin: WIDGET },
        body: { productSlug: "demo", customerId, message: "hello" },
      });
      expect(created.status).toBe(200);
      expect(created.headers.get("access-control-allow-origin")).toBe(WIDGET);
      expect(created.headers.get("access-control-expose-headers")).toMatch(/x-request-id/);
      const bad = await call(`${t.url}/api/conversations`, { headers: { origin: WIDGET }, body: { productSlug: "demo" } });
      expect(bad.status).toBe(400);
      expect(bad.headers.get("access-control-allow-origin")).toBe(WIDGET);
      expect(bad.headers.get("x-request-id")).toBe(bad.body.requestId);
    });

    it("opens the stream for an allowed origin with the CORS headers on the event stream", async () => {
      const customerId = cust();
      const created = await call(`${t.url}/api/conversations`, { body: { productSlug: "demo", customerId, message: "hello" } });
      const ac = new AbortController();
      const res = await fetch(
        `${t.url}/api/conversations/${created.body.conversationId}/stream?productSlug=demo&customerId=${customerId}`,
        {
          headers: { origin: WIDGET, "last-event-id": "0" },
          signal: ac.signal,
        },
      );
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
      expect(res.headers.get("access-control-allow-origin")).toBe(WIDGET);
      const reader = res.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      expect(first).toMatch(/retry: 1000/);
      ac.abort();
      await reader.cancel().catch(() => {});
    });

    it("answers any origin with * when configured so, and none when not configured", async () => {
      const open = await preflight("/open/api/conversations", "https://anyone.example");
      expect(open.headers.get("access-control-allow-origin")).toBe("*");
      const none = await preflight("/none/api/conversations", WIDGET);
      expect(none.headers.get("access-control-allow-origin")).toBeNull();
      expect(none.status).toBe(405);
    });

    it("never answers CORS on the SPI or the agent side", async () => {
      const care = await preflight("/care/conversations", WIDGET);
      expect(care.headers.get("access-control-allow-origin")).toBeNull();
      const agent = await call(`${t.url}/agent/conversations?productSlug=demo`, {
        headers: { origin: WIDGET, authorization: "Bearer agent-token" },
      });
      expect(agent.status).toBe(200);
      expect(agent.headers.get("access-control-allow-origin")).toBeNull();
    });
  },
);
