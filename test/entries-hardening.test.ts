// Entries hardening (issue #10, breaks 4 and 9; issue #24) under Express, Fastify and fetch, on every store: a spec cut
// by the time cap is never catalogued, tokens without exp need the host's opt-in and tokens may not live for ever,
// embedded-IPv4 and reserved-range SSRF targets, and a `$ref`-chain document never holds the event loop.
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { type AddressInfo, createServer, type Server } from "node:net";
import { createEntriesService, jwtVerifier, signHs256 } from "@mountkit/entries";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { france } from "../packages/entries/test/fixtures/countries.js";
import { refChainBomb } from "../packages/entries/test/fixtures/hostile-specs.js";
import { call, forEachAdapter } from "./harness.js";
import { watchLoop } from "./loop-delay.js";

const SECRET = "entries-hardening-secret-0123456789abcdef";
const TIME_CAP_MS = 400;

/**
 * A spec host that sends half an OpenAPI document at once and the rest never: `/close-delimited` with neither
 * Content-Length nor chunking (the body ends when the connection does), `/chunked` as chunks.
 */
let slow: Server;
let slowBase = "";
beforeAll(async () => {
  slow = createServer((socket) => {
    socket.on("error", () => {});
    socket.once("data", (head) => {
      const chunked = head.toString("latin1").startsWith("GET /chunked");
      const half = '{"openapi":"3.1.0","info":{"title":"Slow","version":"1"},"paths":{"/a":{"get":{}},';
      if (chunked) {
        socket.write("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n");
        socket.write(`${half.length.toString(16)}\r\n${half}\r\n`);
      } else {
        socket.write("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n");
        socket.write(half);
      }
    });
  });
  await new Promise<void>((r) => slow.listen(0, "127.0.0.1", r));
  slowBase = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => slow.close(r)));

/** Serves the `$ref`-chain bomb (issue #24: 900 bytes that held the event loop for two minutes). */
const chain = refChainBomb();
let specs: HttpServer;
let specsBase = "";
beforeAll(async () => {
  specs = createHttpServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(chain));
  await new Promise<void>((r) => specs.listen(0, "127.0.0.1", r));
  specsBase = `http://127.0.0.1:${(specs.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => specs.close(r)));

forEachAdapter(
  "entries hardening",
  () => [
    createEntriesService({ auth: jwtVerifier({ secret: SECRET }), specFetch: { allowPrivate: true, timeoutMs: TIME_CAP_MS } }),
    createEntriesService({ auth: jwtVerifier({ secret: SECRET, allowTokensWithoutExp: true }), basePath: "/lenient" }),
    createEntriesService({ auth: jwtVerifier({ secret: SECRET }), basePath: "/strict" }),
  ],
  (t) => {
    const u = (p: string) => `${t.url}${p}`;
    const bearer = async (sub: string) => ({ authorization: `Bearer ${await signHs256(SECRET, { sub })}` });

    describe("a spec fetch that does not complete", () => {
      for (const path of ["/close-delimited", "/chunked"]) {
        it(`${path}: 422 naming the time cap, and nothing saved`, async () => {
          const owner = `slow-${t.framework}-${path.slice(1)}-${Date.now()}`;
          const headers = await bearer(owner);
          const r = await call(u("/api/v1/types/apis/data"), {
            headers,
            body: { name: "Slow API", description: "served slowly", customData: { specUrl: `${slowBase}${path}` } },
          });
          expect(r.status, r.text).toBe(422);
          expect(r.body.error).toMatch(new RegExp(`timed out: no complete answer within ${TIME_CAP_MS} ms`));
          expect(r.body.details).toEqual([{ path: "customData.specUrl", message: expect.stringMatching(/timed out/) }]);
          const mine = await call(u(`/api/v1/types/apis/data?ownerId=${owner}`), { headers });
          expect(mine.status).toBe(200);
          expect(mine.body.items).toEqual([]);
        });
      }
      it("the validation address's { url } answers 422 naming the time cap", async () => {
        const r = await call(u("/api/dev/validate-openapi/"), { body: { url: `${slowBase}/close-delimited` } });
        expect(r.status).toBe(422);
        expect(r.body.valid).toBe(false);
        expect(r.body.errors[0].message).toMatch(/timed out/);
      });
    });

    describe("tokens without exp", () => {
      const noExp = () => new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject("alice").sign(new TextEncoder().encode(SECRET));
      const submit = async (prefix: string, token: string) =>
        call(u(`${prefix}/api/v1/types/countries/data`), {
          headers: { authorization: `Bearer ${token}` },
          body: { name: "France", description: "d", customData: france },
        });
      it("are refused with 401 by default", async () => {
        const r = await submit("", await noExp());
        expect(r.status).toBe(401);
        expect(r.body.error).toMatch(/no expiry/);
      });
      it("are accepted where the host opted in; an expired token stays refused there", async () => {
        expect((await submit("/lenient", await noExp())).status).toBe(201);
        const expired = await signHs256(SECRET, { sub: "alice", expiresInSec: 60 }, Date.now() - 3600_000);
        expect((await submit("/lenient", expired)).status).toBe(401);
      });
    });

    describe("a $ref chain through $refs (issue #24)", () => {
      // generous: the document took 122 s on the event loop before pointers were resolved once each
      const answeredWithin = (r: { wallMs: number; worstDelayMs: number }) => {
        expect(r.wallMs).toBeLessThan(5_000);
        expect(r.worstDelayMs).toBeLessThan(250);
      };
      it("posted to the validation address: judged at once, the event loop never held", async () => {
        // the process's first validation compiles the specification's JSON Schema once (see the entries README): not
        // what is measured here
        const warm = '{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{}}';
        await call(u("/api/dev/validate-openapi/"), { method: "POST", rawBody: warm, headers: { "content-type": "application/json" } });
        const r = await watchLoop(() =>
          call(u("/api/dev/validate-openapi/"), { method: "POST", rawBody: chain, headers: { "content-type": "application/json" } }),
        );
        expect(r.result.status, r.result.text).toBe(200);
        expect(r.result.body).toMatchObject({ valid: true, warningCount: 0 });
        answeredWithin(r);
      });
      it("as { url }: the same", async () => {
        const r = await watchLoop(() => call(u("/api/dev/validate-openapi/"), { body: { url: `${specsBase}/chain.json` } }));
        expect(r.result.status, r.result.text).toBe(200);
        expect(r.result.body).toMatchObject({ valid: true, warningCount: 0 });
        answeredWithin(r);
      });
      it("as an apis entry's specUrl: saved, the event loop never held", async () => {
        const headers = await bearer(`chain-${t.framework}`);
        const r = await watchLoop(() =>
          call(u("/api/v1/types/apis/data"), {
            headers,
            body: { name: "Chain", description: "refs through refs", customData: { specUrl: `${specsBase}/chain.json` } },
          }),
        );
        expect(r.result.status, r.result.text).toBe(201);
        answeredWithin(r);
      });
    });

    describe("token lifetime", () => {
      it("a token claiming exp: 1e300 is refused with 401 and the usual body", async () => {
        const forever = await new SignJWT({ exp: 1e300 })
          .setProtectedHeader({ alg: "HS256" })
          .setSubject("alice")
          .setIssuedAt()
          .sign(new TextEncoder().encode(SECRET));
        const r = await call(u("/api/v1/types/countries/data"), {
          headers: { authorization: `Bearer ${forever}` },
          body: { name: "France", description: "d", customData: france },
        });
        expect(r.status).toBe(401);
        expect(r.body).toEqual({ error: "token lifetime exceeds the maximum of 86400 s", requestId: expect.any(String) });
        expect(r.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
      });
    });

    describe("reserved IPv6 ranges", () => {
      it("::/8 beyond the IPv4-compatible block, and other blocks outside 2000::/3, are refused", async () => {
        const headers = await bearer("alice");
        for (const specUrl of ["http://[::1:7f00:1]/openapi.json", "http://[0:1::1]/openapi.json", "http://[4000::1]/openapi.json"]) {
          const r = await call(u("/strict/api/v1/types/apis/data"), {
            headers,
            body: { name: "X", description: "Y", customData: { specUrl } },
          });
          expect(r.status, specUrl).toBe(422);
          expect(r.body.error, specUrl).toMatch(/^specUrl refused: .*reserved/);
        }
      });
    });

    describe("IPv6 forms embedding a private IPv4 address", () => {
      const targets: Array<[string, RegExp]> = [
        ["http://[::127.0.0.1]/openapi.json", /loopback/],
        ["http://[::7f00:1]/openapi.json", /IPv4-compatible address embedding 127\.0\.0\.1 is a loopback/],
        ["http://[::a9fe:a9fe]/latest/meta-data/", /169\.254\.169\.254 is a cloud metadata/],
        ["http://[::ffff:0:a00:1]/openapi.json", /IPv4-translated address embedding 10\.0\.0\.1 is a private/],
        ["http://[64:ff9b::7f00:1]/openapi.json", /NAT64 address embedding 127\.0\.0\.1 is a loopback/],
        ["http://[2002:c0a8:101::1]/openapi.json", /6to4 address embedding 192\.168\.1\.1 is a private/],
      ];
      it("are refused for specUrl and the validation address", async () => {
        const headers = await bearer("alice");
        for (const [specUrl, why] of targets) {
          const r = await call(u("/strict/api/v1/types/apis/data"), {
            headers,
            body: { name: "X", description: "Y", customData: { specUrl } },
          });
          expect(r.status, specUrl).toBe(422);
          expect(r.body.error, specUrl).toMatch(/^specUrl refused: /);
          expect(r.body.error, specUrl).toMatch(why);
          const v = await call(u("/strict/api/dev/validate-openapi/"), { body: { url: specUrl } });
          expect(v.status, specUrl).toBe(422);
          expect(v.body.errors[0].message, specUrl).toMatch(why);
        }
      });
    });
  },
);
