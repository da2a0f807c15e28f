// Which body limit wins when a host runs express.json() before the kit (documented in the Express
// adapter's README): the host parser's, for JSON; the service's own when the kit is mounted first or the
// body is not JSON. A 216 KB spec shows all three.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createEntriesService, jwtVerifier } from "@mountkit/entries";
import { mountkit } from "@mountkit/express";
import express from "express";
import { dump } from "js-yaml";
import { afterEach, describe, expect, it } from "vitest";
import { generateSpec } from "../packages/entries/test/fixtures/spec-generator.js";

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
