// What the host's own HTTP layers answer before the kit decides: which body limit wins when a host runs
// express.json() before the kit (documented in the Express adapter's README: the host parser's, for JSON; the
// service's own when the kit is mounted first or the body is not JSON; a 216 KB spec shows all three), and the
// requests Node itself refuses (no Host, an unknown Expect) or that a framework routes apart (TRACE), which get the
// kit's error body on every adapter, sent byte for byte over raw sockets.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createEntriesService, jwtVerifier } from "@mountkit/entries";
import { mountkit } from "@mountkit/express";
import { createSupportService } from "@mountkit/support";
import express from "express";
import { dump } from "js-yaml";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { generateSpec } from "../packages/entries/test/fixtures/spec-generator.js";
import { FRAMEWORKS, listen, type Running } from "./servers.js";
import { type RawReply, rawExchange } from "./support/raw-http.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

async function host(order: "parser-first" | "kit-first", parserLimit?: string): Promise<string> {
  const service = createEntriesService({ auth: jwtVerifier({ secret: "host-parser-limits-secret-32-bytes!" }) });
  const app = express();
  const parser = express.json(parserLimit ? { limit: parserLimit } : {});
  if (order === "parser-first") app.use(parser);
  app.use(mountkit(service));
  if (order === "kit-first") app.use(parser);
  const server = createServer(app);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const spec = generateSpec({ endpoints: 320, version: "1", format: "3.1", propertiesPerSchema: 4, descriptionLength: 60 }).document;
const asJson = JSON.stringify(spec);
const asYaml = dump(spec);

const post = (url: string, body: string, type: string) =>
  fetch(`${url}/api/dev/validate-openapi/`, { method: "POST", headers: { "content-type": type }, body });

describe("express.json() before the kit", () => {
  it("is a spec past express.json()'s 100 kB default", () => {
    expect(asJson.length).toBeGreaterThan(200 * 1024);
  });

  it("the host parser's default limit wins for JSON: 413 in the service's error body", async () => {
    const url = await host("parser-first");
    const r = await post(url, asJson, "application/json");
    expect(r.status).toBe(413);
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(typeof ((await r.json()) as { error?: unknown }).error).toBe("string");
  });

  it("the same spec as YAML bypasses the JSON parser and meets the service's own limit", async () => {
    const url = await host("parser-first");
    const r = await post(url, asYaml, "application/yaml");
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ valid: true });
  });

  it("raising the parser's limit, or mounting the kit first, lets the service's limit apply to JSON", async () => {
    for (const url of [await host("parser-first", "5mb"), await host("kit-first")]) {
      const r = await post(url, asJson, "application/json");
      expect(r.status).toBe(200);
      expect(await r.json()).toMatchObject({ valid: true });
    }
  });
});

/** The kit's error body (docs/conventions.md#error-body), its id equal to the X-Request-Id header. */
function expectKitError(r: RawReply, status: number) {
  expect(r.status).toBe(status);
  expect(r.headers["content-type"]).toMatch(/^application\/json/);
  expect(typeof r.body?.error).toBe("string");
  expect(r.body.requestId).toMatch(/^\S+$/);
  expect(r.headers["x-request-id"]).toBe(r.body.requestId);
}

describe.each(FRAMEWORKS)("what Node and the framework refuse, in the kit's error body [%s]", (framework) => {
  let running: Running;
  let host: string;
  const support = createSupportService({ products: ["demo"] });
  beforeAll(async () => {
    running = await listen(framework, [support]);
    host = new URL(running.url).host;
  });
  afterAll(async () => {
    try {
      await running?.close();
    } finally {
      await support.dispose();
    }
  });
  const send = (head: string, body = "") => rawExchange(running.url, `${head}\r\n\r\n${body}`);
  const post = (headers: string, body = "{}") =>
    `POST /api/conversations HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n${headers}`;

  it("an HTTP/1.1 request without Host: 400 and the connection closed, whatever the path", async () => {
    for (const target of ["/api/conversations/list?productSlug=demo&customerId=x", "/nowhere"]) {
      const r = await send(`GET ${target} HTTP/1.1`);
      expectKitError(r, 400);
      expect(r.body.error).toMatch(/Host/);
      expect(r.closed).toBe(true);
    }
    // with Expect too: Host is checked first, as Node itself does
    expectKitError(await send(post("Expect: 999-bogus"), "{}"), 400);
  });

  it("HTTP/1.0 may leave Host out (Node's own rule), and HTTP/1.1 with Host is served", async () => {
    const cust = "cust_3b241101-e2bb-4255-8caf-4136c566a962";
    const r10 = await send(`GET /api/conversations/list?productSlug=demo&customerId=${cust} HTTP/1.0`);
    expect(r10.status).toBe(200);
    const r11 = await send(
      `GET /api/conversations/list?productSlug=demo&customerId=${cust} HTTP/1.1\r\nHost: ${host}\r\nConnection: close`,
    );
    expect(r11.status).toBe(200);
  });

  it("Expect other than 100-continue: 417; 100-continue still gets its interim answer", async () => {
    const r = await send(post(`Host: ${host}\r\nExpect: 999-bogus`), "{}");
    expectKitError(r, 417);
    expect(r.body.error).toMatch(/Expect/);
    const cont = await send(post(`Host: ${host}\r\nExpect: 100-continue\r\nConnection: close`), "{}");
    expect(cont.interim).toEqual([100]);
    // the service's own answer to the empty object it then read
    expectKitError(cont, 400);
  });

  it("TRACE: 405 with Allow on a route's path, the service's 404 under its mount, the generic 404 elsewhere", async () => {
    const trace = (target: string) => send(`TRACE ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close`);
    const route = await trace("/api/conversations");
    expectKitError(route, 405);
    expect(route.headers.allow).toBe("POST");
    expectKitError(await trace("/api/conversations/a/b/c"), 404);
    expectKitError(await trace("/nowhere"), 404);
  });
});
