// The API catalogue page in a real browser, served by the example server's entries service under Fastify,
// Express and fetch: a real published spec (GitHub's REST API description, from @octokit/openapi) is
// catalogued from a local address, found by search, its operations sorted and filtered; the validation page
// shows warnings at their paths; axe finds nothing serious; screenshots at desktop and 360 px.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { silentLogger } from "@mountkit/core";
import { type EntriesService, inMemoryEntriesStore, signHs256 } from "@mountkit/entries";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { load } from "js-yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FRAMEWORKS, listen, type Running } from "../servers.js";
import { entriesFromEnv } from "../../examples/server/src/services/entries.js";
import { call } from "../harness.js";
import { findChromium, launchChromium, screenshots } from "./browser.js";
import { accessibilityViolationsUnderCsp } from "./csp-axe.js";

const require = createRequire(import.meta.url);
// GitHub's published OpenAPI description of api.github.com (3.0.3, about 1,200 operations, 13 MB), as the
// @octokit/openapi package ships it; served below from a local port, as a host would publish its spec
const GITHUB_SPEC = readFileSync(require.resolve("@octokit/openapi/generated/api.github.com.json"));
// the OpenAPI Initiative's own example, read in place from the shared corpus (not copied into the repository)
const FIXTURES = join(import.meta.dirname, "..", "..", "..", "shared", "fixtures", "openapi");
const PETSTORE = readFileSync(join(FIXTURES, "oai30", "pass", "petstore-expanded.yaml"));
// a Swagger 2.0 document with two operations sharing an operationId: catalogued, with a warning at a path
const FLAWED = readFileSync(join(FIXTURES, "sp-validate-spec", "fail", "duplicate-operation-ids.yaml"), "utf8");
const SECRET = "catalogue-browser-test-secret-0123456789abcdef";
// two revisions of a small spec: the second removes an operation (packages/entries/test/fixtures/diff/)
const DIFF_PAIR = load(
  readFileSync(join(import.meta.dirname, "..", "..", "packages", "entries", "test", "fixtures", "diff", "removed-operation.yaml"), "utf8"),
) as {
  base: unknown;
  head: unknown;
};

const chromium = findChromium();
const describeBrowser = "path" in chromium ? describe : describe.skip;
if ("skip" in chromium) console.log(`[mountkit] browser tests skipped: ${chromium.skip}`);

interface Op {
  method: string;
  path: string;
  operationId?: string;
  summary?: string;
}

const collator = new Intl.Collator("en", { sensitivity: "base", numeric: true });

async function serveSpecs(): Promise<{ url: string; close(): Promise<void> }> {
  const files: Record<string, { body: Buffer | string; type: string }> = {
    "/github/api.github.com.json": { body: GITHUB_SPEC, type: "application/json" },
    "/petstore-expanded.yaml": { body: PETSTORE, type: "application/yaml" },
    "/flawed.yaml": { body: FLAWED, type: "application/yaml" },
    "/pets-v1.json": { body: JSON.stringify(DIFF_PAIR.base), type: "application/json" },
    "/pets-v2.json": { body: JSON.stringify(DIFF_PAIR.head), type: "application/json" },
  };
  const server: Server = createServer((req, res) => {
    const file = files[req.url ?? ""];
    if (!file) res.writeHead(404).end();
    else res.writeHead(200, { "content-type": file.type }).end(file.body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

// skipped only where no Chromium is installed (the reason is printed above); CI=true makes that an error
describeBrowser("API catalogue in Chromium", () => {
  let browser: Browser;
  let specs: Awaited<ReturnType<typeof serveSpecs>>;
  // one store behind the three adapters' services, as processes share a database: GitHub's 13 MB spec is
  // catalogued once (through whichever adapter runs first), not three times on a busy machine
  const store = inMemoryEntriesStore();
  let github: Promise<{ id: string; tags: string[]; derivedTags: string[] }> | undefined;

  beforeAll(async () => {
    browser = await launchChromium((chromium as { path: string }).path);
    specs = await serveSpecs();
  });
  afterAll(async () => {
    await browser?.close();
    await specs?.close();
  });

  for (const framework of FRAMEWORKS) {
    describe(framework, () => {
      let running: Running | undefined;
      let entries: EntriesService;
      let context: BrowserContext;
      let page: Page;
      let base = "";
      let githubId = "";
      const operations: Op[] = [];

      beforeAll(async () => {
        // the example server's own wiring: the page is on, specUrl may point at this machine (tests only)
        entries = await entriesFromEnv(
          { AUTH_HS256_SECRET: SECRET, SPEC_FETCH_ALLOW_PRIVATE: "1" },
          { logger: silentLogger, selfUrl: () => running?.url ?? "", store },
        );
        running = await listen(framework, [entries]);
        base = running.url;
        context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        context.setDefaultTimeout(15_000);
        page = await context.newPage();
      });
      afterAll(async () => {
        await context?.close();
        await running?.close();
        await entries?.dispose();
      });

      const submit = async (name: string, description: string, specUrl: string, tags: string[]) => {
        const token = await signHs256(SECRET, { sub: "catalogue-author", expiresInSec: 600 });
        const r = await call(`${base}/api/v1/types/apis/data`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}` },
          body: { name, description, customData: { specUrl }, tags },
        });
        expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(201);
        return r.body as { id: string; tags: string[]; derivedTags: string[] };
      };
      const table = () => page.locator("mountkit-catalogue table.ops");
      const column = (n: number) => table().locator(`tbody tr td:nth-child(${n})`).allInnerTexts();
      const countText = () => page.locator("mountkit-catalogue #ops-count").innerText();
      const loaded = async () =>
        expect.poll(countText, { timeout: 30_000 }).toMatch(new RegExp(`, ${operations.length.toLocaleString("en")} in all\\.$`));

      it("serves the page under the entries service's own path, with its script and CSP", async () => {
        const shell = await fetch(`${base}/api/dev/catalogue/`);
        expect(shell.status).toBe(200);
        expect(shell.headers.get("content-security-policy")).toContain("default-src 'self'");
        expect(await shell.text()).toContain("<mountkit-catalogue>");
        const script = await fetch(`${base}/api/dev/catalogue/app.js`);
        expect(script.status).toBe(200);
        expect(await script.text()).toContain("mountkit-catalogue");
        const slashless = await fetch(`${base}/api/dev/catalogue`, { redirect: "manual" });
        expect(slashless.status).toBe(308);
      });

      it("catalogues a real published spec fetched from a local address", { timeout: 120_000 }, async () => {
        github ??= submit(
          "GitHub REST API",
          "GitHub's published OpenAPI description of api.github.com.",
          `${specs.url}/github/api.github.com.json`,
          ["vendor-github"],
        );
        const saved = await github;
        // every adapter submits one of its own
        const pets = await submit(
          `Swagger Petstore (${framework})`,
          "The OpenAPI Initiative's expanded pet store example.",
          `${specs.url}/petstore-expanded.yaml`,
          [`example-${framework}`],
        );
        expect(pets.tags).toEqual([`example-${framework}`]);
        expect(pets.derivedTags).toEqual(expect.arrayContaining(["api", "openapi"]));
        githubId = saved.id;
        expect(saved.tags).toContain("vendor-github");
        // the whole inventory through the API, to judge the page against
        let cursor: string | null = null;
        do {
          const r: { status: number; body: { operations: Op[]; next: string | null; endpoints: number } } = await call(
            `${base}/api/v1/types/apis/data/${githubId}/inventory?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
          );
          expect(r.status).toBe(200);
          operations.push(...r.body.operations);
          cursor = r.body.next;
        } while (cursor);
        expect(operations.length).toBeGreaterThan(1000);
      });

      it("finds entries by text and by tag", async () => {
        await page.goto(`${base}/api/dev/catalogue/#/entries/apis`);
        const list = page.locator("mountkit-catalogue ol.entries");
        const all = (await call(`${base}/api/v1/types/apis/data?limit=100`)).body.items.length as number;
        expect(all).toBeGreaterThanOrEqual(2);
        await expect.poll(() => list.locator(":scope > li").count()).toBe(all);
        await page.locator("mountkit-catalogue").getByLabel("Search name and description").fill("GITHUB");
        await page.locator("mountkit-catalogue").getByRole("button", { name: "Search" }).click();
        await expect.poll(() => list.locator(":scope > li h3").allInnerTexts()).toEqual(["GitHub REST API"]);
        expect(page.url()).toContain("q=GITHUB");
        await page.locator("mountkit-catalogue").getByRole("link", { name: "Clear filters" }).click();
        await expect.poll(() => list.locator(":scope > li").count()).toBe(all);
        await page
          .locator("mountkit-catalogue")
          .getByRole("link", { name: `Only entries tagged example-${framework}` })
          .click();
        await expect.poll(() => list.locator(":scope > li h3").allInnerTexts()).toEqual([`Swagger Petstore (${framework})`]);
        expect(page.url()).toContain(`tag=example-${framework}`);
      });

      it("opens the spec's inventory, sorts its operations and filters them", { timeout: 90_000 }, async () => {
        await page.goto(`${base}/api/dev/catalogue/#/entries/apis`);
        await page.locator("mountkit-catalogue").getByRole("link", { name: "GitHub REST API" }).click();
        await page.locator("mountkit-catalogue").getByRole("heading", { name: "Inventory" }).waitFor();
        await loaded();
        // default: by path, ascending; the first slice of rows is in that order
        const header = (name: string) => table().getByRole("columnheader", { name });
        expect(await header("Path").getAttribute("aria-sort")).toBe("ascending");
        const paths = await column(2);
        expect(paths.length).toBe(Math.min(500, operations.length));
        for (let i = 1; i < paths.length; i++) expect(collator.compare(paths[i - 1]!, paths[i]!)).toBeLessThanOrEqual(0);

        await header("Path").getByRole("button").click();
        expect(await header("Path").getAttribute("aria-sort")).toBe("descending");
        const desc = await column(2);
        const lastPath = [...operations.map((o) => o.path)].sort(collator.compare).at(-1);
        expect(desc[0]).toBe(lastPath);
        for (let i = 1; i < desc.length; i++) expect(collator.compare(desc[i - 1]!, desc[i]!)).toBeGreaterThanOrEqual(0);

        await header("Operation id").getByRole("button").click();
        expect(await header("Operation id").getAttribute("aria-sort")).toBe("ascending");
        expect(await header("Path").getAttribute("aria-sort")).toBeNull();
        const ids = await column(3);
        for (let i = 1; i < ids.length; i++) if (ids[i]) expect(collator.compare(ids[i - 1]!, ids[i]!)).toBeLessThanOrEqual(0);
        // the headers are buttons: the keyboard sorts too
        await header("Summary").getByRole("button").focus();
        await page.keyboard.press("Enter");
        expect(await header("Summary").getAttribute("aria-sort")).toBe("ascending");
        await page.keyboard.press("Enter");
        expect(await header("Summary").getAttribute("aria-sort")).toBe("descending");
        await header("Operation id").getByRole("button").click();

        // text and method filters, against what the API holds
        const ui = page.locator("mountkit-catalogue");
        await ui.getByLabel("Filter operations").fill("pulls review");
        await ui.getByLabel("Method").selectOption("POST");
        const expected = operations.filter(
          (o) =>
            o.method.toUpperCase() === "POST" &&
            ["pulls", "review"].every((w) => `${o.path}\n${o.operationId ?? ""}\n${o.summary ?? ""}`.toLowerCase().includes(w)),
        );
        expect(expected.length).toBeGreaterThan(0);
        await expect.poll(() => table().locator("tbody tr").count()).toBe(expected.length);
        expect(await countText()).toContain(`of ${expected.length} matching operations`);
        expect(new Set(await column(1))).toEqual(new Set(["POST"]));
        expect((await column(3)).sort()).toEqual(expected.map((o) => o.operationId ?? "").sort());

        // the filtered, sorted view is a link: a reload restores it
        expect(page.url()).toMatch(/filter=pulls(\+|%20)review/);
        await page.reload();
        await loaded();
        expect(await ui.getByLabel("Filter operations").inputValue()).toBe("pulls review");
        expect(await table().locator("tbody tr").count()).toBe(expected.length);
        expect(await header("Operation id").getAttribute("aria-sort")).toBe("ascending");
      });

      it("shows the spec changes between two revisions of an entry, breaking first", async () => {
        const created = await submit(`Pets (${framework})`, "Two revisions.", `${specs.url}/pets-v1.json`, []);
        const token = await signHs256(SECRET, { sub: "catalogue-author", expiresInSec: 600 });
        const changed = await call(`${base}/api/v1/types/apis/data/${created.id}`, {
          method: "PATCH",
          headers: { authorization: `Bearer ${token}` },
          body: { customData: { specUrl: `${specs.url}/pets-v2.json` } },
        });
        expect(changed.status).toBe(200);
        await page.goto(`${base}/api/dev/catalogue/#/entries/apis/${created.id}`);
        const form = page.locator("mountkit-catalogue form.diff-form");
        await expect.poll(() => form.getByLabel("From").inputValue()).toBe("1");
        expect(await form.getByLabel("To").inputValue()).toBe("2");
        await form.getByRole("button", { name: "Compare specs" }).click();
        const first = page.locator("mountkit-catalogue .diff-result section").first();
        await expect.poll(() => first.locator("h4").innerText()).toBe("Breaking (1)");
        expect(await first.locator("li").innerText()).toContain("DELETE /pets/{id}");
      });

      it("renders a type's OpenAPI readably", async () => {
        await page.goto(`${base}/api/dev/catalogue/#/types`);
        const ui = page.locator("mountkit-catalogue");
        const doc = (await call(`${base}/api/v1/types/apis/openapi.json`)).body as { info: { title: string } };
        await ui.locator('a[href="#/types/apis"]').click();
        await ui.getByRole("heading", { level: 2, name: doc.info.title }).waitFor();
        const submitOp = ui.locator("details.op", { has: page.locator("summary", { hasText: "POST" }) }).first();
        await submitOp.locator("summary").click();
        await expect.poll(() => submitOp.innerText()).toContain("specUrl");
        expect(await submitOp.innerText()).toMatch(/specUrl\s*required/);
      });

      it("validates a pasted document and a URL, showing each warning at its path", async () => {
        const answer = (await call(`${base}/api/dev/validate-openapi/`, {
          method: "POST",
          headers: { "content-type": "application/yaml" },
          rawBody: FLAWED,
        })) as { status: number; body: { valid: boolean; warnings: Array<{ path: string; message: string }> } };
        expect(answer.status).toBe(200);
        expect(answer.body.warnings.length).toBeGreaterThan(0);
        const warning = answer.body.warnings[0]!;
        expect(warning.path).toMatch(/^\/paths\//);

        await page.goto(`${base}/api/dev/catalogue/#/validate`);
        const ui = page.locator("mountkit-catalogue");
        await ui.getByLabel("OpenAPI document (JSON or YAML)").fill(FLAWED);
        await ui.getByRole("button", { name: "Validate document" }).click();
        await ui.getByRole("heading", { name: /^Valid: / }).waitFor();
        const shown = ui.locator("ol.issue-warning > li");
        await expect.poll(() => shown.count()).toBe(answer.body.warnings.length);
        const first: Locator = shown.first();
        expect(await first.locator(".pointer").innerText()).toBe(warning.path);
        expect(await first.locator(".message").innerText()).toBe(warning.message);

        await ui.getByLabel("Document URL").fill(`${specs.url}/flawed.yaml`);
        await ui.getByRole("button", { name: "Validate URL" }).click();
        await expect.poll(() => ui.locator("ol.issue-warning .pointer").first().innerText()).toBe(warning.path);

        await ui.getByLabel("OpenAPI document (JSON or YAML)").fill('{ "openapi": "3.1.0", "paths": {} }');
        await ui.getByRole("button", { name: "Validate document" }).click();
        await ui.getByRole("heading", { name: /^Not valid: / }).waitFor();
        expect(await ui.locator("ol.issue-error > li").count()).toBeGreaterThan(0);
      });

      it("shows a warning's line and column when the validator gives them", async () => {
        // the validator's answer as it is, plus the optional positions a newer validator adds to each warning
        // (line of the operationId the warning points at, found in the document's text)
        const lines = FLAWED.split("\n");
        await page.route("**/api/dev/validate-openapi/", async (route) => {
          const real = await route.fetch();
          const body = (await real.json()) as { warnings?: Array<{ path: string; line?: number; column?: number }> };
          for (const w of body.warnings ?? []) {
            const key = w.path.split("/").at(-1)!;
            const at = lines.findLastIndex((l) => l.trimStart().startsWith(`${key}:`));
            if (at >= 0) Object.assign(w, { line: at + 1, column: lines[at]!.indexOf(key) + 1 });
          }
          await route.fulfill({ response: real, json: body });
        });
        try {
          await page.goto(`${base}/api/dev/catalogue/#/validate`);
          const ui = page.locator("mountkit-catalogue");
          await ui.getByLabel("OpenAPI document (JSON or YAML)").fill(FLAWED);
          await ui.getByRole("button", { name: "Validate document" }).click();
          const first = ui.locator("ol.issue-warning > li").first();
          await expect.poll(() => first.locator(".pos").innerText()).toMatch(/^line \d+, column \d+$/);
          const line = Number((await first.locator(".pos").innerText()).match(/^line (\d+)/)![1]);
          expect(await first.locator(".excerpt mark").innerText()).toContain(lines[line - 1]!.trim());
        } finally {
          await page.unroute("**/api/dev/validate-openapi/");
        }
      });

      it("has no serious or critical accessibility violation on any view", { timeout: 90_000 }, async () => {
        const ui = page.locator("mountkit-catalogue");
        for (const [hash, ready] of [
          ["#/types", () => ui.getByRole("heading", { level: 2, name: "Types" })],
          ["#/types/apis", () => ui.getByRole("heading", { name: /^Operations/ })],
          ["#/entries/apis", () => ui.getByRole("link", { name: "GitHub REST API" })],
          [`#/entries/apis/${githubId}`, () => ui.getByRole("heading", { name: "Inventory" })],
          ["#/validate", () => ui.getByRole("button", { name: "Validate document" })],
        ] as const) {
          await page.goto(`${base}/api/dev/catalogue/${hash}`);
          await ready().waitFor();
          if (hash === "#/types/apis") await ui.locator("details.op summary").first().click();
          if (hash === "#/validate") {
            await ui.getByLabel("OpenAPI document (JSON or YAML)").fill(FLAWED);
            await ui.getByRole("button", { name: "Validate document" }).click();
            await ui.locator("ol.issue-warning").waitFor();
          }
          expect(await accessibilityViolationsUnderCsp(page), hash).toEqual([]);
        }
      });

      if (framework === FRAMEWORKS[0])
        it("writes screenshots of the inventory and the validation page (desktop and 360 px)", { timeout: 90_000 }, async () => {
          const ui = page.locator("mountkit-catalogue");
          const files = await screenshots(page, "catalogue", async (p) => {
            await p.goto(`${base}/api/dev/catalogue/#/entries/apis/${githubId}?filter=issues+comment&sort=method`);
            await ui.getByRole("heading", { name: "Inventory" }).waitFor();
            await loaded();
            // the table is what the picture is for
            await ui.locator("#ops-title").evaluate((el) => el.scrollIntoView({ block: "start" }));
          });
          expect(files).toHaveLength(2);
          const validation = await screenshots(page, "catalogue-validate", async (p) => {
            await p.goto(`${base}/api/dev/catalogue/#/validate`);
            await ui.getByLabel("OpenAPI document (JSON or YAML)").fill(FLAWED);
            await ui.getByRole("button", { name: "Validate document" }).click();
            await ui.locator("ol.issue-warning").waitFor();
            await ui.locator("#result-title").evaluate((el) => el.scrollIntoView({ block: "start" }));
          });
          expect(validation).toHaveLength(2);
          // nothing but the table's own scroller may be wider than a 360 px screen
          const overflow = await p360Overflow(page);
          expect(overflow).toBeLessThanOrEqual(360);
        });
    });
  }
});

/** The document's scroll width at the current viewport: over 360 means the page scrolls sideways. */
async function p360Overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth);
}
