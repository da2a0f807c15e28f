// The reference pages under docs/ against what the services serve. Each service page's route tables must list exactly
// the routes of the service's OpenAPI document (method, path and statuses) and exactly its routes kept out of the
// document (pages, the documents themselves); the documents served over HTTP must agree with them. Links into docs/
// must land on a heading that exists, and no file may point at a specification document outside the repository.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Route, Service } from "@mountkit/core";
import { createEntriesService, jwtVerifier } from "@mountkit/entries";
import { createMemoryService } from "@mountkit/memory";
import { mcpHttp } from "@mountkit/memory/mcp";
import { createSupportService, githubBackend } from "@mountkit/support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { externalReferences, scanTree, textFiles } from "./external-references.js";

const ROOT = new URL("..", import.meta.url).pathname;
const PAGES = ["conventions", "entries", "memory", "support", "webhooks"] as const;
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");

interface DocRoute {
  key: string;
  /** Statuses the page lists, unmarked (must be in the document) and marked † (answered, missing from the document). */
  statuses: number[];
  unlisted: number[];
}

/** The rows of a page's route tables: `| Method | Path | Statuses | … |` (documented) and `| Method | Path | Serves |`. */
function routeTables(markdown: string): { documented: Map<string, DocRoute>; served: Set<string> } {
  const documented = new Map<string, DocRoute>();
  const served = new Set<string>();
  let kind: "documented" | "served" | undefined;
  let inTable = false;
  for (const line of markdown.split("\n")) {
    if (!line.startsWith("|")) {
      inTable = false;
      kind = undefined;
      continue;
    }
    const cells = line
      .slice(1, line.trimEnd().endsWith("|") ? line.trimEnd().length - 1 : undefined)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    if (!inTable) {
      inTable = true;
      if (cells[0] === "Method" && cells[1] === "Path") {
        if (cells[2] === "Statuses") kind = "documented";
        else if (cells[2] === "Serves") kind = "served";
        else throw new Error(`a route table's third column is "Statuses" or "Serves", not ${JSON.stringify(cells[2])}`);
      }
      continue;
    }
    if (!kind || /^-+$/.test(cells[0]!.replace(/:/g, ""))) continue;
    const key = `${cells[0]!.replace(/`/g, "")} ${cells[1]!.replace(/`/g, "")}`;
    const into = kind === "documented" ? documented : served;
    if ((kind === "documented" ? documented.has(key) : served.has(key)) || !/^[A-Z]+ \/\S*$/.test(key))
      throw new Error(`route row ${JSON.stringify(line)}: repeated or not "METHOD /path"`);
    if (into === served) {
      served.add(key);
      continue;
    }
    const all = cells[2]!.split(",").map((s) => s.trim());
    const statuses = all.filter((s) => !s.endsWith("†")).map(Number);
    const unlisted = all.filter((s) => s.endsWith("†")).map((s) => Number(s.slice(0, -1)));
    if ([...statuses, ...unlisted].some((n) => !Number.isInteger(n))) throw new Error(`statuses of ${key}: ${cells[2]}`);
    documented.set(key, { key, statuses, unlisted });
  }
  return { documented, served };
}

type Document = { paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> };
const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options"]);

/** `METHOD /path` -> sorted statuses, for every operation of an OpenAPI document. */
function operations(doc: Document): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item))
      if (METHODS.has(method))
        out.set(
          `${method.toUpperCase()} ${path}`,
          Object.keys(op.responses ?? {})
            .map(Number)
            .sort(byNumber),
        );
  return out;
}
const byNumber = (a: number, b: number) => a - b;
const internalRoutes = (routes: readonly Route[]) =>
  routes.filter((r) => r.internal).map((r) => `${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`);

/** What a page says against what its services document: one message per disagreement, so a failure names them all. */
function compare(page: string, services: readonly Service[]): string[] {
  const { documented, served } = routeTables(read(`docs/${page}.md`));
  const inDocument = new Map<string, number[]>();
  for (const s of services) for (const [k, v] of operations(s.openapi() as Document)) inDocument.set(k, v);
  const problems: string[] = [];
  for (const [key, statuses] of inDocument) {
    const row = documented.get(key);
    if (!row) {
      problems.push(`${key}: in the OpenAPI document, not in docs/${page}.md`);
      continue;
    }
    const listed = [...row.statuses].sort(byNumber);
    if (listed.join() !== statuses.join())
      problems.push(`${key}: docs/${page}.md lists ${listed.join(", ")}, the document ${statuses.join(", ")}`);
    const nowDocumented = row.unlisted.filter((n) => statuses.includes(n));
    if (nowDocumented.length) problems.push(`${key}: ${nowDocumented.join(", ")} marked † in docs/${page}.md but now in the document`);
  }
  for (const key of documented.keys()) if (!inDocument.has(key)) problems.push(`${key}: in docs/${page}.md, in no OpenAPI document`);
  const internal = new Set(services.flatMap((s) => internalRoutes(s.routes)));
  for (const key of internal) if (!served.has(key)) problems.push(`${key}: served outside the document, not in docs/${page}.md`);
  for (const key of served) if (!internal.has(key)) problems.push(`${key}: in docs/${page}.md's served routes, not served`);
  return problems;
}

async function get(service: Service, path: string, headers: Record<string, string> = {}): Promise<Response> {
  const res = await service.fetch(new Request(`http://docs.test${path}`, { headers }));
  expect(res.status, path).toBe(200);
  return res;
}

const SECRET = "docs-test-secret-of-at-least-32-bytes";
let entries: Service;
let memory: Service;
let support: Service;
let supportGithub: Service;

beforeAll(() => {
  // every optional route on: the page scripts' text does not matter here, only that the routes exist
  entries = createEntriesService({ auth: jwtVerifier({ secret: SECRET }), catalogueScript: "/* page */" });
  // with every optional route (the MCP server's too): the page lists them all
  memory = createMemoryService({ explorerScript: "/* page */", mcp: mcpHttp(), worker: { start: false } });
  support = createSupportService({
    products: ["demo"],
    spiToken: "spi",
    agentToken: "agent",
    widgetScript: "/* widget */",
    inboxScript: "/* page */",
    pruneIntervalMs: 0,
  });
  // the webhook route exists only beside a product on a backend that takes webhooks
  const backend = githubBackend({
    repo: "octo/support",
    token: "unused",
    webhookSecret: "unused",
    apiUrl: "http://127.0.0.1:9",
    botLogin: "kit[bot]",
    reconcileIntervalMs: 0,
  });
  supportGithub = createSupportService({ products: [{ slug: "gh", backend }], pruneIntervalMs: 0 });
});

afterAll(async () => {
  for (const s of [entries, memory, support, supportGithub]) await s?.dispose();
});

describe("docs/ route tables", () => {
  it("entries.md lists the entries service's routes and statuses", () => {
    expect(compare("entries", [entries])).toEqual([]);
  });

  it("memory.md lists the memory service's routes and statuses", () => {
    expect(compare("memory", [memory])).toEqual([]);
  });

  it("support.md lists the support service's routes and statuses, webhooks included", () => {
    expect(compare("support", [support, supportGithub])).toEqual([]);
  });

  it("the documents served over HTTP hold the routes the pages list", async () => {
    // memory: GET /openapi.yaml
    const yaml = parseYaml(await (await get(memory, "/openapi.yaml")).text()) as Document;
    expect([...operations(yaml).keys()].sort()).toEqual([...routeTables(read("docs/memory.md")).documented.keys()].sort());
    // support: one document per interface, together the page's routes
    const supportRows = routeTables(read("docs/support.md")).documented;
    const interfaces = new Map<string, number[]>();
    for (const [path, token] of [
      ["/api/conversations/openapi.json", ""],
      ["/care/openapi.json", "spi"],
      ["/agent/openapi.json", "agent"],
    ] as const) {
      for (const s of [support, supportGithub]) {
        const doc = (await (await get(s, path, token ? { authorization: `Bearer ${token}` } : {})).json()) as Document;
        for (const [k, v] of operations(doc)) interfaces.set(k, v);
      }
    }
    expect([...interfaces.keys()].sort()).toEqual([...supportRows.keys()].sort());
    // entries: each type's document describes its routes with the type's id in the path; every route and status it
    // lists is on the page (statuses the service's own document lacks are the ones marked †)
    const entryRows = routeTables(read("docs/entries.md")).documented;
    const types = (await (await get(entries, "/api/v1/types")).json()) as { items: Array<{ id: string; openapi: string }> };
    expect(types.items.map((t) => t.id)).toEqual(expect.arrayContaining(["apis", "countries"]));
    const missing: string[] = [];
    for (const type of types.items) {
      const doc = (await (await get(entries, type.openapi)).json()) as Document;
      for (const [key, statuses] of operations(doc)) {
        const general = key.replace(`/api/v1/types/${type.id}/`, "/api/v1/types/{typeId}/");
        const row = entryRows.get(general);
        if (!row) missing.push(`${key} (${type.id}'s document)`);
        else
          for (const n of statuses)
            if (![...row.statuses, ...row.unlisted].includes(n)) missing.push(`${general} ${n} (${type.id}'s document)`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("a route the page does not list fails the comparison", () => {
    const { documented } = routeTables(read("docs/memory.md"));
    expect(documented.size).toBeGreaterThan(10);
    const extra = createMemoryService({ worker: { start: false } });
    try {
      const doc = extra.openapi() as Document;
      doc.paths["/v1/undocumented"] = { get: { responses: { 200: {} } } };
      const fake: Service = { ...extra, openapi: () => doc as ReturnType<Service["openapi"]> };
      expect(compare("memory", [fake])).toContain("GET /v1/undocumented: in the OpenAPI document, not in docs/memory.md");
    } finally {
      void extra.dispose();
    }
  });
});

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6}\s+(.+)$/gm))
    out.add(
      m[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, "")
        .replace(/\s/g, "-"),
    );
  return out;
}

describe("links into docs/", () => {
  const pageAnchors = new Map(PAGES.map((p) => [p, anchors(read(`docs/${p}.md`))]));

  it("every docs/<page>.md#anchor in the repository lands on a heading", () => {
    const broken: string[] = [];
    let seen = 0;
    for (const file of textFiles(ROOT)) {
      const text = read(file);
      for (const m of text.matchAll(/docs\/([a-z-]+)\.md(?:#([\w-]+))?/g)) {
        seen++;
        const set = pageAnchors.get(m[1] as (typeof PAGES)[number]);
        if (!set) broken.push(`${file}: ${m[0]} (no such page)`);
        else if (m[2] && !set.has(m[2])) broken.push(`${file}: ${m[0]} (no such heading)`);
      }
    }
    expect(seen).toBeGreaterThan(20);
    expect(broken).toEqual([]);
  });

  it("every link inside the pages lands on a page and a heading", () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const m of read(`docs/${page}.md`).matchAll(/\]\(([a-z-]*)(?:\.md)?(?:#([\w-]+))?\)/g)) {
        const target = (m[1] || page) as (typeof PAGES)[number];
        const set = pageAnchors.get(target);
        if (!set) broken.push(`docs/${page}.md: ${m[0]}`);
        else if (m[2] && !set.has(m[2])) broken.push(`docs/${page}.md: ${m[0]} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe("documents outside the repository", () => {
  it("the scan recognises each way of pointing at them, and not a random generator's seed", () => {
    const c = "CONTRACT";
    const s = "seed";
    const pointers = [
      `see ${c}.md §2`,
      `(${c} §0)`,
      `in ../${"shared"}/fixtures/openapi`,
      `${s} 001: at quota 1`,
      `as the ${s} says`,
      `the ${s}'s table`,
    ];
    expect(pointers.filter((t) => externalReferences("x.ts", t).length !== 1)).toEqual([]);
    const innocent = [
      `a ${s}ed generator`,
      `the same ${s} gives the same texts`,
      `${s} \${n}: GET /v1`,
      "contract tests",
      "the shared store",
    ];
    expect(innocent.flatMap((t) => externalReferences("x.ts", t))).toEqual([]);
  });

  it("no file points at a specification document kept beside the repository", () => {
    const found = scanTree(ROOT).map((r) => `${r.file}:${r.line} (${r.kind}) ${r.text}`);
    expect(found).toEqual([]);
  });
});
