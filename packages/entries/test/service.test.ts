// In-process use of the service: `api` calls, the service-level OpenAPI document, the spec concurrency bound.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { isKitError } from "@mountkit/core";
import { createEntriesService, jwtVerifier } from "@mountkit/entries";
import { validate as independentValidate } from "@readme/openapi-parser";
import { describe, expect, it } from "vitest";
import { semaphore } from "../src/inventory/semaphore.js";
import { japan } from "./fixtures/countries.js";

const service = createEntriesService({ auth: jwtVerifier({ secret: "service-test-secret-service-test-secret-1" }) });

describe("service", () => {
  it("api: submit, get, list, update, remove without HTTP", async () => {
    const e = await service.api.submit({
      typeId: "countries",
      ownerId: "u1",
      entry: { name: "Japan", description: "d", customData: japan },
    });
    expect(await service.api.get({ typeId: "countries", id: e.id })).toEqual(e);
    expect((await service.api.list({ typeId: "countries", ownerId: "u1" })).items.map((x) => x.id)).toEqual([e.id]);
    const u = await service.api.update({ typeId: "countries", id: e.id, ownerId: "u1", patch: { name: "Nippon" } });
    expect(u.name).toBe("Nippon");
    expect(u.dateModified).toBeGreaterThan(e.dateModified);
    await expect(service.api.remove({ typeId: "countries", id: e.id, ownerId: "u2" })).rejects.toMatchObject({ status: 403 });
    await service.api.remove({ typeId: "countries", id: e.id, ownerId: "u1" });
    await expect(service.api.get({ typeId: "countries", id: e.id })).rejects.toMatchObject({ status: 404 });
  });

  it("api: the validation address in process", async () => {
    const r = await service.api.validateOpenApi(
      "openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths:\n  /x: {get: {responses: {'200': {description: ok}}}}\n",
    );
    expect(r).toMatchObject({ valid: true, endpoints: 1 });
  });

  it("a type registered after start appears in the registry and gets its document", () => {
    expect(() => service.api.typeDocument("late")).toThrow();
    try {
      service.api.typeDocument("late");
    } catch (e) {
      expect(isKitError(e) && e.status).toBe(404);
    }
    service.types.register({ id: "late", schema: { type: "object", properties: { a: { type: "string" } } } });
    expect((service.api.typeDocument("late").paths as Record<string, unknown>)["/api/v1/types/late/data"]).toBeDefined();
  });

  it("the service-level OpenAPI document (from the route table) is accepted by an independent validator", async () => {
    const doc = service.openapi();
    const verdict = await independentValidate(structuredClone(doc) as never);
    expect(verdict.valid, JSON.stringify((verdict as { errors?: unknown }).errors)).toBe(true);
    expect(Object.keys(doc.paths)).toContain("/api/dev/validate-openapi/");
  });

  it("semaphore: never more than n at once, all complete in order of arrival", async () => {
    const limit = semaphore(2);
    let active = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        limit(async () => {
          active++;
          peak = Math.max(peak, active);
          await new Promise((r) => setTimeout(r, 5));
          order.push(i);
          active--;
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(order.length).toBe(7);
  });
});

describe("an unreachable validation address", () => {
  it("answers 503 without telling the client where the operator's validator lives", async () => {
    const spec = JSON.stringify({ openapi: "3.1.0", info: { title: "T", version: "1" }, paths: {} });
    const server = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(spec));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    const hidden = "http://10.11.12.13:1";
    const svc = createEntriesService({
      auth: jwtVerifier({ secret: "service-test-secret-service-test-secret-1" }),
      validator: { url: hidden, timeoutMs: 200 },
      specFetch: { allowPrivate: true },
    });
    try {
      const submit = svc.api.submit({
        typeId: "apis",
        ownerId: "u1",
        entry: { name: "A", description: "d", customData: { specUrl: `http://127.0.0.1:${port}/spec.json` } },
      });
      const e = await submit.then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(isKitError(e) && e.status).toBe(503);
      expect(JSON.stringify({ message: (e as Error).message, details: (e as { details?: unknown }).details })).not.toContain("10.11.12.13");
    } finally {
      await svc.dispose();
      server.close();
    }
  });
});
