// Entries' wire against its own per-type OpenAPI documents: every route's success and documented errors, on every host.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createEntriesService, jwtVerifier, signHs256 } from "@mountkit/entries";
import { afterAll, beforeAll, expect, it } from "vitest";
import { france } from "../../packages/entries/test/fixtures/countries.js";
import { exchange } from "./exchange.js";
import { forEachHost } from "./hosts.js";
import { OpenApiContract } from "./openapi-check.js";

const SECRET = "entries-contract-secret-0123456789abcdef";
const ISS = "https://idp.test";
const AUD = "mountkit-entries";
const tokens = new Map<string, string>();
beforeAll(async () => {
  for (const sub of ["alice", "bob"]) tokens.set(sub, await signHs256(SECRET, { sub, iss: ISS, aud: AUD }));
});
const bearer = (sub = "alice") => ({ authorization: `Bearer ${tokens.get(sub)}` });

// a published spec to catalogue; the validation address it is judged by is down (503)
let specServer: Server;
let specUrl = "";
beforeAll(async () => {
  specServer = createServer((_req, res) =>
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ openapi: "3.1.0", info: { title: "t", version: "1" }, paths: {} })),
  );
  await new Promise<void>((r) => specServer.listen(0, "127.0.0.1", r));
  specUrl = `http://127.0.0.1:${(specServer.address() as AddressInfo).port}/openapi.json`;
});
afterAll(() => new Promise<void>((r) => specServer.close(() => r())));

forEachHost(
  "entries contract",
  () => {
    const auth = jwtVerifier({ secret: SECRET, issuer: ISS, audience: AUD, clock: { now: () => Date.now() } });
    return [
      createEntriesService({ auth, basePath: "/ent", specFetch: { allowPrivate: true }, validator: { url: () => "http://127.0.0.1:9" } }),
    ];
  },
  (h) => {
    const svc = "/ent";
    const contracts: Record<string, OpenApiContract> = {};
    beforeAll(async () => {
      const types = await fetch(`${h.base}${svc}/api/v1/types`).then((r) => r.json());
      for (const t of types.items as Array<{ id: string; openapi: string }>) {
        // the link in the body carries the framework mount and the basePath, and works from the origin
        expect(t.openapi).toBe(`${h.prefix}${svc}/api/v1/types/${t.id}/openapi.json`);
        const doc = await fetch(`${new URL(h.base).origin}${t.openapi}`).then((r) => r.json());
        expect(doc.servers).toEqual([{ url: `${h.prefix}${svc}` }]);
        contracts[t.id] = new OpenApiContract(doc, `${t.id}.json`);
      }
    });

    it("countries: every route's success, null optionals, repeated tags, and every documented error", async () => {
      const C = contracts.countries!;
      const data = `${svc}/api/v1/types/countries/data`;
      expect((await exchange(C, h.base, `${svc}/api/v1/types/countries/openapi.json`)).status).toBe(200);
      const created = await exchange(C, h.base, data, {
        headers: bearer(),
        body: { name: "France", description: "A country", customData: france, tags: null },
        valid: true,
      });
      expect(created.status).toBe(201);
      const location = created.headers.get("location")!;
      expect(location).toBe(`${h.prefix}${svc}/api/v1/types/countries/data/${created.body.id}`);
      expect((await fetch(`${new URL(h.base).origin}${location}`)).status).toBe(200);
      const id = created.body.id as string;
      expect((await exchange(C, h.base, `${data}?limit=5`)).status).toBe(200);
      expect((await exchange(C, h.base, `${data}/${id}`)).status).toBe(200);
      const patched = await exchange(C, h.base, `${data}/${id}`, {
        method: "PATCH",
        headers: bearer(),
        body: { tags: ["eu", "g7"], name: null },
        valid: true,
      });
      expect(patched.body.tags).toEqual(["eu", "g7"]);
      // a repeated tag is refused, never silently merged
      const twice = await exchange(C, h.base, data, {
        headers: bearer(),
        body: { name: "France", description: "A country", customData: france, tags: ["a", "a"] },
        valid: false,
      });
      expect(twice.status).toBe(400);
      expect(twice.body.details[0].path).toBe("tags");

      // documented errors
      expect((await exchange(C, h.base, data, { body: { name: "x", description: "y", customData: france } })).status).toBe(401);
      expect(
        (await exchange(C, h.base, data, { headers: { ...bearer(), "content-type": "application/json" }, raw: "{nope" })).body.details,
      ).toEqual([{ path: "", message: expect.any(String) }]);
      expect((await exchange(C, h.base, data, { headers: { ...bearer(), "content-type": "text/plain" }, raw: "x" })).status).toBe(415);
      expect(
        (
          await exchange(C, h.base, data, {
            headers: bearer(),
            body: { name: "x", description: "d".repeat(1_100_000), customData: france },
          })
        ).status,
      ).toBe(413);
      // the flag rule is beyond JSON Schema: the request fits the schema, the 422 is documented and described
      const wrongFlag = await exchange(C, h.base, data, {
        headers: bearer(),
        body: { name: "France", description: "A country", customData: { ...france, emoji: "🇯🇵" } },
        valid: true,
      });
      expect(wrongFlag.status).toBe(422);
      expect(JSON.stringify(C.doc)).toContain("`emoji` must be the flag");
      expect((await exchange(C, h.base, `${data}/${id}`, { method: "PATCH", headers: bearer("bob"), body: { name: "B" } })).status).toBe(
        403,
      );
      expect((await exchange(C, h.base, `${data}/missing`)).status).toBe(404);
      expect((await exchange(C, h.base, `${data}/${"x".repeat(300)}`)).status).toBe(400);
      expect((await exchange(C, h.base, `${data}?cursor=bogus`)).status).toBe(400);
      expect((await exchange(C, h.base, `${data}/${id}`, { method: "DELETE", headers: bearer("bob") })).status).toBe(403);
      expect((await exchange(C, h.base, `${data}/${id}`, { method: "DELETE", headers: bearer() })).status).toBe(204);
    });

    it("apis: a URL that is not one fails the schema; the validation address down answers the documented 503", async () => {
      const A = contracts.apis!;
      const data = `${svc}/api/v1/types/apis/data`;
      const notUrl = await exchange(A, h.base, data, {
        headers: bearer(),
        body: { name: "x", description: "y", customData: { specUrl: "nope" } },
        valid: false,
      });
      expect(notUrl.status).toBe(422);
      const down = await exchange(A, h.base, data, {
        headers: bearer(),
        body: { name: "x", description: "y", customData: { specUrl, contact: null } },
        valid: true,
      });
      expect(down.status).toBe(503);
      expect((await exchange(A, h.base, `${data}/missing/inventory`)).status).toBe(404);
    });
  },
);
