// Fuzzes every route of the three services, as the example server hosts them (SQLite and PostgreSQL), under
// each adapter: the same hostile input must never answer 5xx on either store.
import { type Route, type Service, silentLogger } from "@mountkit/core";
import { targetPath } from "@mountkit/core/adapter";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../examples/server/src/app.js";
import { FRAMEWORKS, listen, type Running } from "../examples/server/src/listen.js";
import { fuzzService } from "./fuzz.js";
import { createTestDatabase, pgSkipReason, type TestDatabase } from "./sql-targets.js";

const SECRET = "fuzz-secret-fuzz-secret-fuzz-secret!";
const CUSTOMER = "cust_3b241101-e2bb-4255-8caf-4136c566a962";
const env = {
  AUTH_HS256_SECRET: SECRET,
  MEMORY_API_KEYS: "mk_fuzzkey_0123456789=brain-fuzz",
  MEMORY_DAILY_QUOTA: "1000000",
  SUPPORT_PRODUCTS: "demo",
  SUPPORT_RATE_LIMIT: "100000",
  SUPPORT_CUSTOMER_RATE_LIMIT: "100000",
  SUPPORT_SPI_TOKEN: "spi-token",
  SUPPORT_AGENT_TOKEN: "agent-token",
};

const errorShape = (service: string) => (body: any, status: number, route: Route) => {
  // the validation address answers an invalid document with its own contracted body
  if (route.path.startsWith("/api/dev/validate-openapi") && status === 422) {
    expect(body.valid).toBe(false);
    expect(Array.isArray(body.errors)).toBe(true);
    return;
  }
  // one body for every service (docs/conventions.md#error-body): `{ error, details?, requestId }`
  expect(typeof body?.error, `${service} ${status} error body ${JSON.stringify(body)}`).toBe("string");
  expect(typeof body.requestId, `${service} ${status} ${JSON.stringify(body)}`).toBe("string");
  expect(
    Object.keys(body).every((k) => ["error", "details", "requestId"].includes(k)),
    `${service} ${status} ${JSON.stringify(body)}`,
  ).toBe(true);
};

/** Path-trick answers per adapter: the same raw target must get the same status whichever adapter serves it. */
const trickAnswers = new Map<string, Map<string, number>>();

const pgSkip = pgSkipReason();
const stores = ["sqlite", "postgres"] as const;

for (const store of stores)
  for (const framework of FRAMEWORKS) {
    (store === "postgres" && pgSkip ? describe.skip : describe)(`fuzzing every route [${framework}, ${store}]`, () => {
      let db: TestDatabase;
      let app: App;
      let running: Running;
      let token: string;
      const ids: Record<string, string> = { typeId: "countries", slug: "missing-playbook" };

      beforeAll(async () => {
        db = await createTestDatabase(store);
        app = await createApp({ ...env, ...db.env }, { logger: silentLogger, selfUrl: () => running?.url ?? "http://127.0.0.1" });
        running = await listen(framework, app.services, {});
        token = await new SignJWT({})
          .setProtectedHeader({ alg: "HS256" })
          .setSubject("fuzzer")
          .setIssuedAt()
          .setExpirationTime("1h")
          .sign(new TextEncoder().encode(SECRET));
        // real ids so some mutations reach deep code paths
        const conv = await fetch(`${running.url}/api/conversations`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ productSlug: "demo", customerId: CUSTOMER, message: "hello" }),
        }).then((r) => r.json());
        ids.id = conv.conversationId;
        ids.conversationId = conv.conversationId;
        const ep = await fetch(`${running.url}/v1/episodes`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: "Bearer mk_fuzzkey_0123456789" },
          body: JSON.stringify({ content: "Alice Moreau joined Acme Corp in Paris." }),
        }).then((r) => r.json());
        ids.episodeId = ep.id;
      });
      afterAll(async () => {
        await running?.close();
        await app?.close();
        await db?.drop();
      });

      const headersFor =
        (service: Service) =>
        (route: Route): Record<string, string> => {
          if (service.name === "memory") return { authorization: "Bearer mk_fuzzkey_0123456789" };
          if (service.name === "entries") return { authorization: `Bearer ${token}` };
          if (route.path.startsWith("/care")) return { authorization: "Bearer spi-token" };
          if (route.path.startsWith("/agent")) return { authorization: "Bearer agent-token" };
          return {};
        };

      it("never answers 5xx, always with the service's error body, never leaking internals", async () => {
        const totals: Record<string, number> = {};
        for (const service of app.services) {
          const r = await fuzzService(running.url, service, {
            seed: 7,
            iterationsPerRoute: 12,
            headers: headersFor(service),
            ids,
            validBody: () => ({
              productSlug: "demo",
              customerId: CUSTOMER,
              message: "hi",
              body: "hi",
              content: "Bob lives in Rome.",
              query: "Bob",
            }),
            validQuery: () => ({ productSlug: "demo", customerId: CUSTOMER }),
            // streams stay open by design; their bad-input answers are covered by the support suite
            skip: (route) => (route.path.endsWith("/stream") ? "long-lived SSE stream" : undefined),
            errorShape: errorShape(service.name),
            onPathTrick: (request, status) => {
              // paths no service owns are the host's to answer (Fastify's own 404 route parses bodies first)
              if (!app.services.some((s) => s.owns(targetPath(request.slice(request.indexOf(" ") + 1))))) return;
              const key = `${store}: ${request}`;
              const seen = trickAnswers.get(key) ?? new Map<string, number>();
              seen.set(framework, status);
              trickAnswers.set(key, seen);
            },
          });
          for (const [status, n] of Object.entries(r.statuses)) totals[`${service.name} ${status}`] = n;
        }
        // the fuzzer must reach both success and rejection paths, or it tested nothing
        expect(Object.keys(totals).some((k) => / 2\d\d$/.test(k))).toBe(true);
        expect(Object.keys(totals).some((k) => / 4\d\d$/.test(k))).toBe(true);
      }, 180_000);
    });
  }

describe("path tricks across adapters", () => {
  it("every raw target on a service's paths that the fuzzer sent to all three adapters got the same status from each", () => {
    const everywhere = [...trickAnswers].filter(([, by]) => by.size === FRAMEWORKS.length);
    // ids differ per run (each adapter has its own app), so only targets without them are comparable
    expect(everywhere.length).toBeGreaterThan(20);
    const differing = everywhere.filter(([, by]) => new Set(by.values()).size > 1).map(([req, by]) => `${req}: ${JSON.stringify([...by])}`);
    expect(differing).toEqual([]);
  });
});
