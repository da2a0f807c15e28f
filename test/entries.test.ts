// Entries service HTTP conformance (docs/entries.md) under Express, Fastify and fetch, on real sockets.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { manualClock } from "@mountkit/core";
import { createEntriesService, type EntriesStore, jwtVerifier, inMemoryEntriesStore, signHs256 } from "@mountkit/entries";
import { validate as independentValidate } from "@readme/openapi-parser";
import { Schema } from "effect";
import { SignJWT } from "jose";
import { dump } from "js-yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { france, japan } from "../packages/entries/test/fixtures/countries.js";
import { generateSpec } from "../packages/entries/test/fixtures/spec-generator.js";
import { call, forEachAdapter, unguarded } from "./harness.js";

const SECRET = "entries-conformance-secret-0123456789abcdef";
const ISS = "https://idp.test";
const AUD = "mountkit-entries";
const token = (sub = "alice", claims: Record<string, unknown> = {}, secret = SECRET) =>
  signHs256(secret, { sub, iss: ISS, aud: AUD, ...claims } as never);
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

// A local "spec host": generated real-world-sized specs and a few broken ones.
const specA = generateSpec({ endpoints: 189, version: "2.0", format: "2.0", title: "Payments and business API" });
const specB = generateSpec({ endpoints: 414, version: "2026-01-28.clover", format: "3.0", title: "Payments REST API" });
let specServer: Server;
let specBase = "";
beforeAll(async () => {
  // The bodies are built once, outside the guard: serializing a 414-endpoint spec is the test's own work, and
  // doing it per request on the loop the servers share would show as their stall.
  const bodies = await unguarded(() => ({
    "/a.json": ["application/json", JSON.stringify(specA.document)],
    "/b.yaml": ["application/yaml", dump(specB.document, { noRefs: true, lineWidth: -1 })],
    "/b2.json": ["application/json", JSON.stringify({ ...specB.document, info: { title: "Payments REST API", version: "2026-06-01" } })],
    "/no-title.json": ["application/json", JSON.stringify({ openapi: "3.1.0", info: { version: "1" }, paths: {} })],
    "/not-a-spec.html": ["text/html", "<html>hello</html>"],
  }));
  specServer = createServer((req, res) => {
    const body = bodies[req.url as keyof typeof bodies];
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": body[0] }).end(body[1]);
  });
  await new Promise<void>((r) => specServer.listen(0, "127.0.0.1", r));
  specBase = `http://127.0.0.1:${(specServer.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => specServer.close(r)));

const failingStore = (): EntriesStore => ({
  ...inMemoryEntriesStore(),
  async create() {
    throw new Error("disk on fire at /srv/db.ts:42");
  },
});

let mainUrl = "";
const clocks: ReturnType<typeof manualClock>[] = [];

forEachAdapter(
  "entries",
  () => {
    const clock = manualClock(Date.UTC(2026, 0, 1));
    clocks.push(clock);
    const auth = jwtVerifier({ secret: SECRET, issuer: ISS, audience: AUD, clock: { now: () => Date.now() } });
    const hostTypes = [
      {
        id: "books",
        title: "Books",
        schema: z.object({
          isbn: z.string().regex(/^\d{13}$/),
          pages: z.number().int().positive(),
          author: z.object({ name: z.string().min(1) }),
        }),
      },
      {
        id: "planets",
        title: "Planets",
        schema: Schema.Struct({
          name: Schema.String.pipe(Schema.minLength(1)),
          radiusKm: Schema.Number.pipe(Schema.positive()),
          moons: Schema.Array(Schema.String),
        }),
      },
    ];
    return [
      // specs come from a local test server, so this instance lets loopback through
      createEntriesService({ auth, clock, types: hostTypes, specFetch: { allowPrivate: true } }),
      // the production policy: SSRF tests run here
      createEntriesService({ auth, clock, basePath: "/strict" }),
      // a store that fails: 500s
      createEntriesService({ auth, clock, basePath: "/broken", store: failingStore() }),
      // validates through the first instance's address over HTTP, as with a remote VALIDATE_URL
      createEntriesService({ auth, clock, basePath: "/remote", specFetch: { allowPrivate: true }, validator: { url: () => mainUrl } }),
    ];
  },
  (t) => {
    const u = (p: string) => `${t.url}${p}`;
    const data = (type: string, prefix = "") => u(`${prefix}/api/v1/types/${type}/data`);
    const post = async (type: string, body: unknown, sub = "alice", prefix = "") =>
      call(data(type, prefix), { method: "POST", body, headers: { authorization: `Bearer ${await token(sub)}` } });
    beforeAll(() => {
      mainUrl = t.url;
    });

    describe("per-type OpenAPI documents", () => {
      for (const type of ["apis", "countries", "books", "planets"]) {
        it(`${type}: 200, OpenAPI 3.1, accepted by an independent validator, customData inlined`, async () => {
          const r = await call(u(`/api/v1/types/${type}/openapi.json`));
          expect(r.status).toBe(200);
          expect(r.body.openapi).toBe("3.1.0");
          // the test's own validation, not the server's work: outside the loop-delay guard
          const verdict = await unguarded(() => independentValidate(structuredClone(r.body)));
          expect(verdict.valid, JSON.stringify((verdict as { errors?: unknown }).errors)).toBe(true);
          const post = r.body.paths[`/api/v1/types/${type}/data`].post;
          const custom = post.requestBody.content["application/json"].schema.properties.customData;
          expect(custom.type).toBe("object");
          expect(post.responses["201"].headers.Location).toBeDefined();
          for (const status of ["400", "401", "413", "415", "422", "500"]) expect(post.responses[status], status).toBeDefined();
          expect(r.body.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
          expect(r.body.components.schemas[`${type[0]!.toUpperCase()}${type.slice(1)}Entry`].properties.customData).toEqual(custom);
        });
      }
      it("apis: specUrl and contact in the schema, an inventory path; countries: the seven members", async () => {
        const apis = (await call(u("/api/v1/types/apis/openapi.json"))).body;
        const custom = apis.paths["/api/v1/types/apis/data"].post.requestBody.content["application/json"].schema.properties.customData;
        expect(custom.required).toEqual(["specUrl"]);
        expect(Object.keys(custom.properties.contact.properties)).toEqual(["name", "email", "url"]);
        expect(apis.paths["/api/v1/types/apis/data/{id}/inventory"]).toBeDefined();
        const countries = (await call(u("/api/v1/types/countries/openapi.json"))).body;
        const c = countries.components.schemas.CountriesEntry.properties.customData;
        expect([...c.required].sort()).toEqual(["alpha2", "alpha3", "emoji", "name", "numeric", "officialName", "sovereignty"]);
      });
      it("unknown type: 404 for openapi.json and data", async () => {
        const r = await call(u("/api/v1/types/nope/openapi.json"));
        expect(r.status).toBe(404);
        expect(typeof r.body.error).toBe("string");
        expect((await post("nope", { name: "x", description: "y", customData: {} })).status).toBe(404);
        expect((await call(data("nope"))).status).toBe(404);
      });
      it("GET /api/v1/types lists the registry", async () => {
        const r = await call(u("/api/v1/types"));
        expect(r.body.items.map((i: { id: string }) => i.id)).toEqual(["apis", "countries", "books", "planets"]);
      });
    });

    describe("submission: 201 + Location, and every status of the error table", () => {
      it("201 with the returned Entry and a Location that reads it back", async () => {
        const r = await post("countries", {
          name: "France",
          description: "A country in Europe",
          customData: france,
          tags: ["europe", "eu"],
        });
        expect(r.status).toBe(201);
        expect(r.body).toMatchObject({
          typeId: "countries",
          ownerId: "alice",
          name: "France",
          description: "A country in Europe",
          customData: france,
          tags: ["europe", "eu"],
        });
        expect(typeof r.body.id).toBe("string");
        expect(Number.isInteger(r.body.dateCreated)).toBe(true);
        expect(r.body.dateModified).toBe(r.body.dateCreated);
        const location = r.headers.get("location")!;
        expect(location).toBe(`/api/v1/types/countries/data/${r.body.id}`);
        const back = await call(u(location));
        expect(back.status).toBe(200);
        expect(back.body).toEqual(r.body);
      });
      it("400: not JSON, not an object, fields missing, wrong type or out of limits (every path listed)", async () => {
        const h = { authorization: `Bearer ${await token()}`, "content-type": "application/json" };
        const notJson = await call(data("countries"), { method: "POST", headers: h, rawBody: "{nope" });
        expect(notJson.status).toBe(400);
        expect(typeof notJson.body.error).toBe("string");
        expect((await call(data("countries"), { method: "POST", headers: h, rawBody: "[1,2]" })).status).toBe(400);
        expect((await call(data("countries"), { method: "POST", headers: h, rawBody: "" })).status).toBe(400);
        const missing = await post("countries", { customData: "x" });
        expect(missing.status).toBe(400);
        expect(missing.body.details.map((d: { path: string }) => d.path).sort()).toEqual(["customData", "description", "name"]);
        const limits = await post("countries", { name: "x".repeat(201), description: "", customData: france, tags: Array(33).fill("t") });
        expect(limits.status).toBe(400);
        expect(limits.body.details.map((d: { path: string }) => d.path).sort()).toEqual(["description", "name", "tags"]);
      });
      it("401: missing, malformed, expired, wrong key, wrong issuer/audience, alg none", async () => {
        const body = { name: "x", description: "y", customData: france };
        const now = Math.floor(Date.now() / 1000);
        const none = `${b64({ alg: "none", typ: "JWT" })}.${b64({ sub: "alice", iss: ISS, aud: AUD, exp: now + 3600 })}.`;
        const expired = await signHs256(SECRET, { sub: "alice", iss: ISS, aud: AUD, expiresInSec: 60 }, Date.now() - 3600_000);
        const cases: Array<[string, Record<string, string>]> = [
          ["missing", {}],
          ["basic scheme", { authorization: "Basic YWxpY2U6cHc=" }],
          ["empty bearer", { authorization: "Bearer " }],
          ["malformed", { authorization: "Bearer not.a.jwt!" }],
          ["garbage segments", { authorization: "Bearer aaa.bbb.ccc" }],
          ["expired", { authorization: `Bearer ${expired}` }],
          ["wrong key", { authorization: `Bearer ${await token("alice", {}, "some-other-secret-0123456789abcdefgh")}` }],
          ["wrong issuer", { authorization: `Bearer ${await token("alice", { iss: "https://evil.test" })}` }],
          ["wrong audience", { authorization: `Bearer ${await token("alice", { aud: "other" })}` }],
          ["alg none", { authorization: `Bearer ${none}` }],
          [
            "no sub",
            {
              authorization: `Bearer ${await new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setIssuer(ISS).setAudience(AUD).setExpirationTime("1h").sign(new TextEncoder().encode(SECRET))}`,
            },
          ],
        ];
        for (const [label, headers] of cases) {
          const r = await call(data("countries"), { method: "POST", body, headers });
          expect(r.status, label).toBe(401);
          expect(typeof r.body.error, label).toBe("string");
          expect(r.headers.get("www-authenticate"), label).toMatch(/^Bearer realm="mountkit"/);
        }
        const expiredAnswer = await call(data("countries"), { method: "POST", body, headers: { authorization: `Bearer ${expired}` } });
        expect(expiredAnswer.body.error).toBe("token expired");
      });
      it("413 over 1 MiB, 415 not JSON", async () => {
        const big = await post("countries", { name: "x", description: "d".repeat(1024 * 1024), customData: france });
        expect(big.status).toBe(413);
        expect(typeof big.body.error).toBe("string");
        const txt = await call(data("countries"), {
          method: "POST",
          rawBody: "name=x",
          headers: { authorization: `Bearer ${await token()}`, "content-type": "text/plain" },
        });
        expect(txt.status).toBe(415);
      });
      it("422: customData fails the schema, every failing path under customData.", async () => {
        const r = await post("countries", {
          name: "X",
          description: "Y",
          customData: { ...france, alpha2: "fr", numeric: "2500", officialName: undefined },
        });
        expect(r.status).toBe(422);
        expect(r.body.details.map((d: { path: string }) => d.path).sort()).toEqual([
          "customData.alpha2",
          "customData.numeric",
          "customData.officialName",
        ]);
        const flag = await post("countries", { name: "X", description: "Y", customData: { ...france, emoji: "🇩🇪" } });
        expect(flag.body.details).toEqual([{ path: "customData.emoji", message: "must be the flag of alpha2" }]);
        const apis = await post("apis", {
          name: "X",
          description: "Y",
          customData: { specUrl: "not a url", contact: { email: "nope", url: "ftp://x" } },
        });
        expect(apis.status).toBe(422);
        expect(apis.body.details.map((d: { path: string }) => d.path).sort()).toEqual([
          "customData.contact.email",
          "customData.contact.url",
          "customData.specUrl",
        ]);
      });
      it("500: internal error with a request id, never a stack trace", async () => {
        const r = await post("countries", { name: "France", description: "x", customData: france }, "alice", "/broken");
        expect(r.status).toBe(500);
        expect(r.body).toEqual({ error: "internal error", requestId: r.headers.get("x-request-id") });
        expect(r.text).not.toMatch(/disk on fire|\.ts:\d+/);
      });
    });

    describe("host-registered types", () => {
      it("zod type: valid 201, invalid 422 with every path", async () => {
        expect(
          (await post("books", { name: "B", description: "D", customData: { isbn: "9780000000002", pages: 100, author: { name: "A" } } }))
            .status,
        ).toBe(201);
        const bad = await post("books", { name: "B", description: "D", customData: { isbn: "1", pages: 0, author: {} } });
        expect(bad.status).toBe(422);
        expect(bad.body.details.map((d: { path: string }) => d.path).sort()).toEqual([
          "customData.author.name",
          "customData.isbn",
          "customData.pages",
        ]);
      });
      it("Effect Schema type: valid 201, invalid 422 with every path", async () => {
        expect(
          (
            await post("planets", {
              name: "Mars",
              description: "Red",
              customData: { name: "Mars", radiusKm: 3389.5, moons: ["Phobos", "Deimos"] },
            })
          ).status,
        ).toBe(201);
        const bad = await post("planets", { name: "P", description: "D", customData: { name: "", radiusKm: -3, moons: [1] } });
        expect(bad.status).toBe(422);
        expect(bad.body.details.map((d: { path: string }) => d.path).sort()).toEqual([
          "customData.moons[0]",
          "customData.name",
          "customData.radiusKm",
        ]);
      });
    });

    describe("apis: fetched, validated, catalogued", () => {
      let idA = "";
      it("inventory A shape: 189 endpoints, version 2.0, submitted and derived tags apart", async () => {
        const r = await post("apis", {
          name: "Payments A",
          description: "Payments and business management",
          customData: { specUrl: `${specBase}/a.json` },
          tags: ["payments"],
        });
        expect(r.status, JSON.stringify(r.body)).toBe(201);
        expect(r.body.tags).toEqual(["payments"]);
        expect(r.body.derivedTags).toEqual(["api", "openapi", "v2.0"]);
        // ?tag= matches a derived tag as well as a submitted one
        for (const tag of ["v2.0", "payments"])
          expect(
            (await call(u(`/api/v1/types/apis/data?tag=${tag}&limit=100`))).body.items.map((e: { id: string }) => e.id),
            tag,
          ).toContain(r.body.id);
        idA = r.body.id;
        const inv = await call(u(`/api/v1/types/apis/data/${idA}/inventory`));
        expect(inv.status).toBe(200);
        expect(inv.body).toMatchObject({ version: "2.0", endpoints: 189, paths: specA.paths, tags: ["api", "openapi", "v2.0"] });
      });
      it("inventory B shape from YAML: 414 endpoints at 2026-01-28.clover, operations paginated exactly", async () => {
        const r = await post("apis", {
          name: "Payments B",
          description: "Payments REST API",
          customData: { specUrl: `${specBase}/b.yaml`, contact: { email: "api@example.com" } },
        });
        expect(r.status, JSON.stringify(r.body)).toBe(201);
        expect(r.body.tags).toEqual([]);
        expect(r.body.derivedTags).toEqual(["api", "openapi", "v2026-01-28.clover"]);
        const ops: Array<{ method: string; path: string }> = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const page: { body: { operations: typeof ops; next: string | null; endpoints: number } } = await call(
            u(`/api/v1/types/apis/data/${r.body.id}/inventory?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`),
          );
          expect(page.body.endpoints).toBe(414);
          ops.push(...page.body.operations);
          cursor = page.body.next;
          pages++;
        } while (cursor);
        expect(pages).toBe(5);
        expect(ops.length).toBe(414);
        expect(new Set(ops.map((o) => `${o.method} ${o.path}`)).size).toBe(414);
        const sorted = [...specB.operations].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.method < b.method ? -1 : 1));
        expect(ops).toEqual(sorted);
      });
      it("PATCH to a new spec re-catalogues and swaps the version tag", async () => {
        const created = await post("apis", { name: "B", description: "d", customData: { specUrl: `${specBase}/b.yaml` }, tags: ["mine"] });
        const r = await call(u(`/api/v1/types/apis/data/${created.body.id}`), {
          method: "PATCH",
          body: { customData: { specUrl: `${specBase}/b2.json` } },
          headers: { authorization: `Bearer ${await token()}` },
        });
        expect(r.status).toBe(200);
        expect(r.body.tags).toEqual(["mine"]);
        expect(r.body.derivedTags).toEqual(["api", "openapi", "v2026-06-01"]);
        expect((await call(u(`/api/v1/types/apis/data/${created.body.id}/inventory`))).body.version).toBe("2026-06-01");
      });
      it("422 when the spec does not validate, cannot be fetched, or is not a spec", async () => {
        const noTitle = await post("apis", { name: "X", description: "Y", customData: { specUrl: `${specBase}/no-title.json` } });
        expect(noTitle.status).toBe(422);
        expect(noTitle.body.details).toEqual([{ path: "customData.specUrl", message: expect.stringContaining("/info/title") }]);
        const missing = await post("apis", { name: "X", description: "Y", customData: { specUrl: `${specBase}/gone.json` } });
        expect(missing.status).toBe(422);
        expect(missing.body.error).toMatch(/could not be fetched.*404/);
        const html = await post("apis", { name: "X", description: "Y", customData: { specUrl: `${specBase}/not-a-spec.html` } });
        expect(html.status).toBe(422);
      });
      it("a remote validation address (over HTTP) gives the same catalogue", async () => {
        const r = await post("apis", { name: "A", description: "d", customData: { specUrl: `${specBase}/a.json` } }, "alice", "/remote");
        expect(r.status, JSON.stringify(r.body)).toBe(201);
        const inv = await call(u(`/remote/api/v1/types/apis/data/${r.body.id}/inventory?limit=5`));
        expect(inv.body).toMatchObject({ version: "2.0", endpoints: 189 });
        expect(inv.body.operations.length).toBe(5);
        const bad = await post(
          "apis",
          { name: "A", description: "d", customData: { specUrl: `${specBase}/no-title.json` } },
          "alice",
          "/remote",
        );
        expect(bad.status).toBe(422);
      });
      it("inventory of a non-catalogued entry or unknown id: 404", async () => {
        const c = await post("countries", { name: "Japan", description: "d", customData: japan });
        expect((await call(u(`/api/v1/types/countries/data/${c.body.id}/inventory`))).status).toBe(404);
        expect((await call(u("/api/v1/types/apis/data/ent_missing/inventory"))).status).toBe(404);
      });
    });

    describe("list, get, owner-only PATCH and DELETE", () => {
      it("cursor pagination is stable and complete; filters by tag and ownerId", async () => {
        const mine: string[] = [];
        for (let i = 0; i < 5; i++) {
          const r = await post(
            "books",
            {
              name: `Book ${i}`,
              description: "d",
              customData: { isbn: "9780000000002", pages: i + 1, author: { name: "A" } },
              tags: [i % 2 ? "odd" : "even", "listed"],
            },
            i < 3 ? "carol" : "dave",
          );
          mine.push(r.body.id);
        }
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const page: { status: number; body: { items: Array<{ id: string }>; next: string | null } } = await call(
            `${data("books")}?tag=listed&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
          );
          expect(page.status).toBe(200);
          seen.push(...page.body.items.map((e) => e.id));
          cursor = page.body.next;
        } while (cursor);
        expect(seen.sort()).toEqual([...mine].sort());
        const odd = await call(`${data("books")}?tag=odd`);
        expect(odd.body.items.length).toBe(2);
        const carol = await call(`${data("books")}?ownerId=carol&tag=listed`);
        expect(carol.body.items.map((e: { ownerId: string }) => e.ownerId)).toEqual(["carol", "carol", "carol"]);
        const text = await call(`${data("books")}?q=${encodeURIComponent("BOOK 3")}`);
        expect(text.status).toBe(200);
        expect(text.body.items.map((e: { name: string }) => e.name)).toEqual(["Book 3"]);
        const textPages: string[] = [];
        let textCursor: string | null = null;
        do {
          const page: { body: { items: Array<{ id: string; ownerId: string }>; next: string | null } } = await call(
            `${data("books")}?q=book&ownerId=carol&limit=1${textCursor ? `&cursor=${encodeURIComponent(textCursor)}` : ""}`,
          );
          textPages.push(...page.body.items.map((e) => e.id));
          textCursor = page.body.next;
        } while (textCursor);
        expect(textPages.sort()).toEqual(mine.slice(0, 3).sort());
        // an empty value is no filter at all (docs/conventions.md#empty-means-absent)
        const unfiltered = await call(`${data("books")}?limit=100`);
        for (const empty of ["q=", "tag=", "ownerId=", "cursor=", "q=&tag=&limit="]) {
          const r = await call(`${data("books")}?limit=100&${empty}`);
          expect(r.status, empty).toBe(200);
          expect(
            r.body.items.map((e: { id: string }) => e.id),
            empty,
          ).toEqual(unfiltered.body.items.map((e: { id: string }) => e.id));
        }
        expect((await call(`${data("books")}?q=${"x".repeat(201)}`)).status).toBe(400);
        expect((await call(`${data("books")}?cursor=garbage`)).status).toBe(400);
        expect((await call(`${data("books")}?limit=1000`)).status).toBe(400);
      });
      it("PATCH by the owner moves dateModified; others get 403; unknown id 404; DELETE likewise", async () => {
        const c = await post("countries", { name: "France", description: "d", customData: france });
        const id = c.body.id;
        const url = `${data("countries")}/${id}`;
        const asBob = { authorization: `Bearer ${await token("bob")}` };
        const asAlice = { authorization: `Bearer ${await token("alice")}` };
        for (const clock of clocks) clock.advance(5000);
        const patched = await call(url, { method: "PATCH", body: { description: "Updated", tags: ["x"] }, headers: asAlice });
        expect(patched.status).toBe(200);
        expect(patched.body.description).toBe("Updated");
        expect(patched.body.dateModified).toBeGreaterThan(c.body.dateModified);
        expect(patched.body.dateCreated).toBe(c.body.dateCreated);
        const badData = await call(url, { method: "PATCH", body: { customData: { ...france, alpha3: "x" } }, headers: asAlice });
        expect(badData.status).toBe(422);
        expect((await call(url, { method: "PATCH", body: {}, headers: asAlice })).status).toBe(400);
        expect((await call(url, { method: "PATCH", body: { name: "Mine" }, headers: asBob })).status).toBe(403);
        expect((await call(url, { method: "PATCH", body: { name: "Mine" } })).status).toBe(401);
        expect((await call(`${data("countries")}/ent_nope`, { method: "PATCH", body: { name: "n" }, headers: asAlice })).status).toBe(404);
        expect((await call(url, { method: "DELETE", headers: asBob })).status).toBe(403);
        expect((await call(url, { method: "DELETE" })).status).toBe(401);
        expect((await call(url, { method: "DELETE", headers: asAlice })).status).toBe(204);
        expect((await call(url)).status).toBe(404);
        expect((await call(url, { method: "DELETE", headers: asAlice })).status).toBe(404);
      });
      it("an entry is scoped by its type: the same id under another type is 404", async () => {
        const c = await post("countries", { name: "Japan", description: "d", customData: japan });
        expect((await call(`${data("books")}/${c.body.id}`)).status).toBe(404);
      });
    });

    describe("the validation address", () => {
      const doc = {
        openapi: "3.1.0",
        info: { title: "Tiny", version: "1.0.0" },
        paths: { "/a": { get: { responses: { "200": { description: "ok" } } }, post: { responses: { "200": { description: "ok" } } } } },
      };
      it("with and without the trailing slash, JSON and YAML", async () => {
        for (const path of ["/api/dev/validate-openapi/", "/api/dev/validate-openapi"]) {
          const r = await call(u(path), { method: "POST", body: doc });
          expect(r.status, path).toBe(200);
          expect(r.body).toMatchObject({ valid: true, openapi: "3.1.0", title: "Tiny", version: "1.0.0", endpoints: 2 });
        }
        const y = await call(u("/api/dev/validate-openapi/"), {
          method: "POST",
          rawBody: dump(doc),
          headers: { "content-type": "application/yaml" },
        });
        expect(y.status).toBe(200);
        expect(y.body.endpoints).toBe(2);
        const swagger = await call(u("/api/dev/validate-openapi/"), { method: "POST", body: specA.document });
        expect(swagger.body).toMatchObject({ valid: true, openapi: "2.0", endpoints: 189 });
      });
      it("422 with errors for what blocks cataloguing", async () => {
        const r = await call(u("/api/dev/validate-openapi/"), { method: "POST", body: { openapi: "3.1.0", info: { title: "T" } } });
        expect(r.status).toBe(422);
        expect(r.body.valid).toBe(false);
        expect(r.body.errors.map((e: { path: string }) => e.path)).toEqual(["/info/version", "/paths"]);
        const junk = await call(u("/api/dev/validate-openapi/"), {
          method: "POST",
          rawBody: "::: not yaml :::\n\t- [",
          headers: { "content-type": "text/yaml" },
        });
        expect(junk.status).toBe(422);
      });
      it("{ url } fetches the document", async () => {
        const r = await call(u("/api/dev/validate-openapi/"), { method: "POST", body: { url: `${specBase}/b.yaml` } });
        expect(r.status).toBe(200);
        expect(r.body).toMatchObject({ valid: true, version: "2026-01-28.clover", endpoints: 414 });
      });
    });

    describe("SSRF: every refused address class answers 422 and no request leaves", () => {
      let victim: Server;
      let port = 0;
      let hits = 0;
      beforeAll(async () => {
        victim = createServer((_req, res) => {
          hits++;
          res.end(JSON.stringify(doc()));
        });
        await new Promise<void>((r) => victim.listen(0, "127.0.0.1", r));
        port = (victim.address() as AddressInfo).port;
      });
      afterAll(() => new Promise((r) => victim.close(r)));
      const doc = () => ({ openapi: "3.1.0", info: { title: "Internal", version: "1" }, paths: {} });

      const targets = () =>
        [
          [`http://127.0.0.1:${port}/openapi.json`, /loopback/],
          [`http://localhost:${port}/openapi.json`, /loopback/],
          [`http://[::1]:${port}/openapi.json`, /loopback/],
          [`http://[::ffff:127.0.0.1]:${port}/openapi.json`, /loopback/],
          [`http://2130706433:${port}/openapi.json`, /loopback/],
          [`http://0.0.0.0:${port}/openapi.json`, /unspecified/],
          ["http://10.0.0.1/openapi.json", /private/],
          ["http://172.16.5.4/openapi.json", /private/],
          ["http://192.168.1.20/openapi.json", /private/],
          ["http://[fd00::1]/openapi.json", /private/],
          ["http://169.254.1.1/openapi.json", /link-local/],
          ["http://[fe80::1]/openapi.json", /link-local/],
          ["http://169.254.169.254/latest/meta-data/", /metadata/],
          ["http://metadata.google.internal/computeMetadata/v1/", /metadata/],
          ["http://100.100.100.200/latest/meta-data/", /metadata/],
        ] as Array<[string, RegExp]>;

      it("apis submissions", async () => {
        for (const [specUrl, why] of targets()) {
          const r = await post("apis", { name: "X", description: "Y", customData: { specUrl } }, "alice", "/strict");
          expect(r.status, specUrl).toBe(422);
          expect(r.body.error, specUrl).toMatch(/^specUrl refused: /);
          expect(r.body.error, specUrl).toMatch(why);
          expect(r.body.details[0].path).toBe("customData.specUrl");
        }
        for (const specUrl of ["file:///etc/passwd", "ftp://example.com/spec.json", "gopher://127.0.0.1:70/"]) {
          const r = await post("apis", { name: "X", description: "Y", customData: { specUrl } }, "alice", "/strict");
          expect(r.status, specUrl).toBe(422);
          expect(r.body.details, specUrl).toEqual([{ path: "customData.specUrl", message: "must be an absolute http(s) URL" }]);
        }
        expect(hits).toBe(0);
      });
      it("the validation address's { url }", async () => {
        for (const [url, why] of targets()) {
          const r = await call(u("/strict/api/dev/validate-openapi/"), { method: "POST", body: { url } });
          expect(r.status, url).toBe(422);
          expect(r.body.valid).toBe(false);
          expect(r.body.errors[0].message, url).toMatch(why);
        }
        expect(hits).toBe(0);
      });
    });
  },
);

forEachAdapter(
  "entries behind the host's express.json()",
  () => [createEntriesService({ auth: jwtVerifier({ secret: SECRET, issuer: ISS, audience: AUD }) })],
  (t) => {
    it("submission and the validation address work on an already parsed body", async () => {
      const r = await call(`${t.url}/api/v1/types/countries/data`, {
        method: "POST",
        body: { name: "France", description: "d", customData: france },
        headers: { authorization: `Bearer ${await token()}` },
      });
      expect(r.status).toBe(201);
      const bad = await call(`${t.url}/api/v1/types/countries/data`, {
        method: "POST",
        body: { name: "France", description: "d", customData: { ...france, alpha2: "F" } },
        headers: { authorization: `Bearer ${await token()}` },
      });
      expect(bad.status).toBe(422);
      // express.json() keeps its own 100 kB default: a host taking large specs mounts the kit before it or raises that limit
      const small = generateSpec({ endpoints: 12, version: "1", format: "3.1", propertiesPerSchema: 2, descriptionLength: 10 });
      const v = await call(`${t.url}/api/dev/validate-openapi/`, { method: "POST", body: small.document });
      expect(v.body).toMatchObject({ valid: true, endpoints: 12 });
    });
  },
  { frameworks: ["express"], hostJsonParser: true },
);
