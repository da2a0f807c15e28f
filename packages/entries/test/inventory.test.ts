// Inventories of real-world-sized specs (generated: hundreds of operations, $ref-heavy), exact counts and order.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { catalogue, parseSpec } from "@mountkit/entries";
import { safeFetch, validateSpec } from "@mountkit/entries/node";
import { dump } from "js-yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GeneratedOperation, generateSpec } from "./fixtures/spec-generator.js";

const byPathThenMethod = (ops: GeneratedOperation[]) =>
  [...ops].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.method < b.method ? -1 : a.method > b.method ? 1 : 0));

async function validated(input: string | Record<string, unknown>, options = {}) {
  const r = await validateSpec(typeof input === "string" ? input : JSON.stringify(input), options);
  if (!r.answer.valid) throw new Error(`expected valid, got ${JSON.stringify(r.answer.errors)}`);
  return { answer: r.answer, inventory: r.inventory! };
}

describe("catalogue of generated real-world-sized specs", () => {
  const cases = [
    { label: "Swagger 2.0, 189 endpoints, version 2.0 (inventory A's shape)", endpoints: 189, version: "2.0", format: "2.0" as const },
    {
      label: "OpenAPI 3.0, 414 endpoints, version 2026-01-28.clover (inventory B's shape)",
      endpoints: 414,
      version: "2026-01-28.clover",
      format: "3.0" as const,
    },
    { label: "OpenAPI 3.1, 600 endpoints", endpoints: 600, version: "1.4.0", format: "3.1" as const },
  ];
  for (const c of cases) {
    it(`${c.label}: JSON and YAML give the same exact inventory`, async () => {
      const g = generateSpec({ endpoints: c.endpoints, version: c.version, format: c.format, extraSchemas: 200 });
      const json = JSON.stringify(g.document);
      const yaml = dump(g.document, { noRefs: true, lineWidth: -1 });
      for (const text of [json, yaml]) {
        const { answer, inventory } = await validated(text);
        expect(answer.endpoints).toBe(c.endpoints);
        expect(answer.version).toBe(c.version);
        expect(answer.warningCount).toBe(0);
        expect(inventory.endpoints).toBe(c.endpoints);
        expect(inventory.operations.length).toBe(c.endpoints);
        expect(inventory.paths).toBe(g.paths);
        expect(inventory.tags).toEqual(["api", "openapi", `v${c.version}`]);
        expect(inventory.operations).toEqual(byPathThenMethod(g.operations));
      }
    });
  }

  it("the two reference inventories' exact counts (docs/entries.md#reference-inventories): 189 at 2.0, 414 at 2026-01-28.clover", async () => {
    const a = await validated(generateSpec({ endpoints: 189, version: "2.0", format: "2.0" }).document);
    const b = await validated(generateSpec({ endpoints: 414, version: "2026-01-28.clover", format: "3.0" }).document);
    expect([a.inventory.endpoints, a.inventory.version, a.inventory.tags]).toEqual([189, "2.0", ["api", "openapi", "v2.0"]]);
    expect([b.inventory.endpoints, b.inventory.version, b.inventory.tags]).toEqual([
      414,
      "2026-01-28.clover",
      ["api", "openapi", "v2026-01-28.clover"],
    ]);
  });
});

describe("operation order matches the reference inventories' listings", () => {
  it("inventory A's listed operations, written in shuffled order, come out in the published order", async () => {
    const listed: Array<[string, string, string]> = [
      ["POST", "/mobile/authorization-code", "CreateMobileAuthorizationCode"],
      ["GET", "/oauth2/authorize", "Authorize"],
      ["POST", "/oauth2/clients/{client_id}/access-token/renew", "RenewToken"],
      ["POST", "/oauth2/revoke", "RevokeToken"],
      ["POST", "/oauth2/token", "ObtainToken"],
      ["POST", "/v1/batch", "V1SubmitBatch"],
      ["GET", "/v1/{location_id}/payments", "V1ListPayments"],
      ["GET", "/v1/{location_id}/payments/{payment_id}", "V1RetrievePayment"],
      ["GET", "/v1/{location_id}/refunds", "V1ListRefunds"],
      ["POST", "/v1/{location_id}/refunds", "V1CreateRefund"],
      ["GET", "/v1/{location_id}/settlements", "V1ListSettlements"],
    ];
    const paths: Record<string, Record<string, unknown>> = {};
    for (const [method, path, operationId] of [...listed].reverse()) {
      paths[path] ??= {};
      paths[path]![method.toLowerCase()] = { operationId, responses: { "200": { description: "OK" } } };
    }
    const doc = { swagger: "2.0", info: { title: "Square Connect API", version: "2.0" }, paths };
    const { inventory } = await validated(doc);
    expect(inventory.operations).toEqual(listed.map(([method, path, operationId]) => ({ method, path, operationId })));
  });

  it("inventory B's listed operations keep summaries, and a missing summary stays missing", async () => {
    const listed: Array<[string, string, string | undefined]> = [
      ["GET", "/v1/account", "Retrieve account"],
      ["POST", "/v1/account_links", "Create an account link"],
      ["POST", "/v1/account_sessions", "Create an Account Session"],
      ["GET", "/v1/accounts", "List all connected accounts"],
      ["POST", "/v1/accounts", undefined],
      ["DELETE", "/v1/accounts/{account}", "Delete an account"],
      ["GET", "/v1/accounts/{account}", "Retrieve account"],
      ["POST", "/v1/accounts/{account}", "Update an account"],
      ["POST", "/v1/accounts/{account}/bank_accounts", "Create an external account"],
      ["DELETE", "/v1/accounts/{account}/bank_accounts/{id}", "Delete an external account"],
      ["GET", "/v1/accounts/{account}/bank_accounts/{id}", "Retrieve an external account"],
      ["POST", "/v1/accounts/{account}/bank_accounts/{id}", undefined],
      ["GET", "/v1/accounts/{account}/capabilities", "List all account capabilities"],
      ["GET", "/v1/accounts/{account}/capabilities/{capability}", "Retrieve an Account Capability"],
      ["POST", "/v1/accounts/{account}/capabilities/{capability}", "Update an Account Capability"],
      ["GET", "/v1/accounts/{account}/external_accounts", "List all external accounts"],
      ["POST", "/v1/accounts/{account}/external_accounts", "Create an external account"],
    ];
    const paths: Record<string, Record<string, unknown>> = {};
    for (const [method, path, summary] of [...listed].sort(() => 0.5 - Math.random())) {
      paths[path] ??= {};
      paths[path]![method.toLowerCase()] = { ...(summary ? { summary } : {}), responses: { "200": { description: "OK" } } };
    }
    const { inventory } = await validated({ openapi: "3.0.0", info: { title: "Stripe API", version: "2026-01-28.clover" }, paths });
    expect(inventory.operations).toEqual(listed.map(([method, path, summary]) => ({ method, path, ...(summary ? { summary } : {}) })));
    expect(inventory.tags).toEqual(["api", "openapi", "v2026-01-28.clover"]);
  });
});

describe("what counts as an endpoint", () => {
  it("path-level keys, x- extensions and path-item $refs", async () => {
    const doc = {
      openapi: "3.1.0",
      info: { title: "T", version: "v3" },
      paths: {
        "/a": { summary: "not an op", parameters: [], get: { responses: {} }, post: { responses: {} }, "x-internal": { get: {} } },
        "/b": { $ref: "#/components/pathItems/B" },
        "/empty": {},
        "x-extension": { get: { responses: {} } },
      },
      components: { pathItems: { B: { put: { responses: {} }, delete: { responses: {} }, trace: { responses: {} } } } },
    };
    const { inventory } = await validated(doc);
    expect(inventory.endpoints).toBe(5);
    expect(inventory.paths).toBe(2);
    expect(inventory.operations.map((o) => `${o.method} ${o.path}`)).toEqual(["GET /a", "POST /a", "DELETE /b", "PUT /b", "TRACE /b"]);
    expect(inventory.tags).toEqual(["api", "openapi", "v3"]);
  });

  it("YAML `version: 2.0` keeps the literal 2.0 (not 2), with a note", async () => {
    const { answer, inventory } = await validated(
      "swagger: '2.0'\ninfo:\n  title: T\n  version: 2.0\npaths:\n  /x:\n    get:\n      responses:\n        '200':\n          description: ok\n",
    );
    expect(inventory.version).toBe("2.0");
    expect(inventory.tags).toContain("v2.0");
    expect(answer.warnings.some((w) => w.path === "/info/version")).toBe(true);
  });
});

describe("errors versus warnings", () => {
  const errorsOf = async (text: string) => {
    const r = await validateSpec(text);
    return r.answer.valid ? [] : r.answer.errors;
  };
  it("only what blocks cataloguing is an error", async () => {
    expect((await errorsOf("{not json"))[0]!.message).toMatch(/not valid JSON/);
    expect((await errorsOf("a: [unclosed"))[0]!.message).toMatch(/not valid JSON or YAML/);
    expect((await errorsOf("[]"))[0]!.message).toMatch(/must be an object/);
    expect((await errorsOf(JSON.stringify({ info: { title: "t", version: "1" }, paths: {} })))[0]!.message).toMatch(
      /no `openapi` or `swagger`/,
    );
    expect((await errorsOf(JSON.stringify({ openapi: "4.0.0", info: { title: "t", version: "1" }, paths: {} })))[0]!.path).toBe("/openapi");
    expect((await errorsOf(JSON.stringify({ swagger: "1.2", info: { title: "t", version: "1" }, paths: {} })))[0]!.path).toBe("/swagger");
    expect((await errorsOf(JSON.stringify({ openapi: "3.0.3", info: { version: "1" }, paths: {} }))).map((e) => e.path)).toEqual([
      "/info/title",
    ]);
    expect((await errorsOf(JSON.stringify({ openapi: "3.0.3", info: { title: "t" } }))).map((e) => e.path)).toEqual([
      "/info/version",
      "/paths",
    ]);
  });

  it("schema violations, dangling refs and other-origin refs are capped warnings on a valid answer", async () => {
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 80; i++)
      paths[`/p${i}`] = { get: { responses: { "200": { description: "ok", schema: { $ref: "#/definitions/Missing" } } }, bogus: i } };
    paths["/ext"] = {
      get: { responses: { "200": { description: "ok", schema: { $ref: "https://elsewhere.example/defs.json#/Thing" } } } },
    };
    const r = await validateSpec(JSON.stringify({ swagger: "2.0", info: { title: "t", version: "1" }, paths, extraRoot: true }));
    expect(r.answer.valid).toBe(true);
    if (!r.answer.valid) return;
    expect(r.answer.endpoints).toBe(81);
    expect(r.answer.warnings.length).toBe(50);
    expect(r.answer.warningCount).toBeGreaterThan(80);
    const all = (
      await validateSpec(JSON.stringify({ swagger: "2.0", info: { title: "t", version: "1" }, paths, extraRoot: true }), {
        maxWarnings: 10_000,
      })
    ).answer;
    if (!all.valid) return;
    expect(all.warnings.filter((w) => /dangling reference #\/definitions\/Missing/.test(w.message)).length).toBe(80);
    // a reference to another origin is left unchecked, said in `notices`: not a defect of the document (issue #13)
    expect(all.notices?.some((w) => /outside the document's origin/.test(w.message))).toBe(true);
    expect(all.warnings.some((w) => /outside the document's origin/.test(w.message))).toBe(false);
    expect(all.warnings.some((w) => /additional properties/.test(w.message))).toBe(true);
  });
});

describe("external $refs: resolved within the document's own origin only", () => {
  let main: Server;
  let other: Server;
  let mainUrl = "";
  let otherUrl = "";
  const mainHits: string[] = [];
  const otherHits: string[] = [];
  beforeAll(async () => {
    other = createServer((req, res) => {
      otherHits.push(req.url ?? "");
      res.end("{}");
    });
    await new Promise<void>((r) => other.listen(0, "127.0.0.1", r));
    otherUrl = `http://localhost:${(other.address() as AddressInfo).port}`;
    main = createServer((req, res) => {
      mainHits.push(req.url ?? "");
      const files: Record<string, string> = {
        "/specs/main.yaml": [
          "openapi: 3.0.3",
          "info: {title: Split API, version: '1.2'}",
          "paths:",
          "  /pets:",
          "    $ref: 'paths/pets.yaml'",
          "  /owners:",
          "    $ref: './paths/owners.json#/item'",
          "  /far:",
          "    get:",
          "      responses:",
          "        '200':",
          "          description: ok",
          `          content: {application/json: {schema: {$ref: '${otherUrl}/defs.json#/Far'}}}`,
        ].join("\n"),
        "/specs/paths/pets.yaml":
          "get:\n  operationId: listPets\n  responses: {'200': {description: ok}}\npost:\n  operationId: createPet\n  responses: {'201': {description: ok}}\n",
        "/specs/paths/owners.json": JSON.stringify({
          item: { get: { operationId: "listOwners", responses: { "200": { description: "ok" } } } },
        }),
      };
      const body = files[req.url ?? ""];
      if (!body) res.writeHead(404).end();
      else res.end(body);
    });
    await new Promise<void>((r) => main.listen(0, "127.0.0.1", r));
    mainUrl = `http://127.0.0.1:${(main.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => main.close(r));
    await new Promise((r) => other.close(r));
  });

  it("path items from same-origin files are catalogued; another origin is never contacted", async () => {
    const fetchOptions = { allowPrivate: true };
    const doc = await safeFetch(`${mainUrl}/specs/main.yaml`, fetchOptions);
    const r = await validateSpec(doc.body, { baseUrl: doc.url, fetchDocument: async (u) => (await safeFetch(u, fetchOptions)).body });
    expect(r.answer.valid).toBe(true);
    expect(r.inventory!.operations).toEqual([
      { method: "GET", path: "/far" },
      { method: "GET", path: "/owners", operationId: "listOwners" },
      { method: "GET", path: "/pets", operationId: "listPets" },
      { method: "POST", path: "/pets", operationId: "createPet" },
    ]);
    expect(r.inventory!.endpoints).toBe(4);
    expect(r.inventory!.paths).toBe(3);
    expect(mainHits.sort()).toEqual(["/specs/main.yaml", "/specs/paths/owners.json", "/specs/paths/pets.yaml"]);
    expect(otherHits).toEqual([]);
    if (r.answer.valid) expect(r.answer.notices?.some((w) => w.message.includes("outside the document's origin"))).toBe(true);
  });

  it("without a fetcher, a catalogue of the same document leaves the external path items out", () => {
    const parsed = parseSpec("openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a: {$ref: 'a.yaml'}\n");
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(catalogue(parsed.spec).endpoints).toBe(0);
  });
});
