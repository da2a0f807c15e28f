// The example server's front door in Chromium, the server started as `npm start` does in development mode: `/`
// lists every page and document; each link loads with no console error and no request to another origin (the API
// reference included), and the inbox signs in with the agent token the server printed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServer } from "../storage/server-process.js";
import { findChromium, launchChromium } from "./browser.js";

const chromium = findChromium();
// Skipped only on a machine without Chromium (its reason printed below); CI installs Debian's chromium first.
const describeBrowser = "path" in chromium ? describe : describe.skip;
if ("skip" in chromium) console.log(`[mountkit] browser tests skipped: ${chromium.skip}`);

describeBrowser("example server front door in Chromium", () => {
  let browser: Browser;
  let server: ServerProcess;
  let dataDir: string;
  let context: BrowserContext;
  let page: Page;
  /** Console errors, page errors and requests to another origin, per page visited. */
  const faults: string[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "mk-front-door-browser-"));
    server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: "info", MOUNTKIT_ENV: "", NODE_ENV: "" });
    browser = await launchChromium((chromium as { path: string }).path);
    context = await browser.newContext();
    context.setDefaultTimeout(15_000);
    const origin = new URL(server.url).origin;
    context.on("request", (r) => {
      const url = new URL(r.url());
      if (url.protocol !== "data:" && url.origin !== origin) faults.push(`request to another origin: ${r.url()}`);
    });
    page = await context.newPage();
    page.on("console", (m) => {
      if (m.type() === "error") faults.push(`console error on ${page.url()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => faults.push(`page error on ${page.url()}: ${String(e)}`));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  let links: string[] = [];

  it("shows every service, its pages and documents, and the printed credentials", async () => {
    await page.goto(`${server.url}/`);
    for (const heading of ["Typed entries", "Agent memory", "Customer support", "Operations"])
      await page.getByRole("heading", { name: heading }).first().waitFor();
    const agentToken = /agent token \(inbox sign-in\): (\S+)/.exec(server.output())?.[1];
    expect(agentToken).toBeTruthy();
    expect(await page.locator("body").innerText()).toContain(agentToken!);
    links = await page.locator("main a[href]").evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
    const paths = links.map((l) => new URL(l).pathname);
    for (const p of ["/api/dev/catalogue/", "/v1/explorer/", "/agent/inbox/", "/demo/widget/", "/reference/", "/openapi.yaml", "/readyz"])
      expect(paths, p).toContain(p);
    expect(faults).toEqual([]);
  });

  it("follows each link: it loads with no console error and no request to another origin", async () => {
    expect(links.length).toBeGreaterThan(10);
    for (const link of [...new Set(links)]) {
      const path = new URL(link).pathname;
      // a document (YAML, JSON) or a metrics text is a download or a plain view: fetched, not visited
      if (/\.(ya?ml|json)$|^\/(metrics|healthz|readyz)$/.test(path)) {
        const r = await context.request.get(link);
        expect(r.status(), link).toBe(200);
        continue;
      }
      const response = await page.goto(link, { waitUntil: "load" });
      expect(response?.status(), link).toBe(200);
      if (path === "/reference/") {
        // Swagger UI drew the document the link names
        await page.locator(".swagger-ui .info .title").first().waitFor();
        await page.locator(".opblock").first().waitFor();
      }
      if (path === "/demo/widget/") await page.locator("mountkit-support").waitFor({ state: "attached" });
      // a page's own requests (documents, first API calls) settle before the next link
      await page.waitForLoadState("networkidle");
    }
    expect(faults).toEqual([]);
  });

  it("signs into the inbox with the printed agent token", async () => {
    const agentToken = /agent token \(inbox sign-in\): (\S+)/.exec(server.output())![1]!;
    await page.goto(`${server.url}/`);
    await page.getByRole("link", { name: "Agent inbox" }).click();
    const app = page.locator("mountkit-inbox");
    await app.getByLabel("Agent token").fill(agentToken);
    await app.getByLabel("Your name (shown to customers)").fill("Ada");
    await app.getByRole("button", { name: "Sign in" }).click();
    await app.getByRole("list", { name: "Conversations" }).waitFor();
    await app.getByText("Live", { exact: true }).waitFor();
    expect(faults).toEqual([]);
  });
});
