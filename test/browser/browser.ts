// Real-browser plumbing for page tests: Debian's Chromium driven by playwright-core, a static page server on
// another origin, axe-core checks and screenshots. Missing Chromium skips with a reason (an error under CI).
import { existsSync, mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe } from "vitest";

const CANDIDATES = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/** The Chromium binary, or why there is none. */
export function findChromium(): { path: string } | { skip: string } {
  const path = CANDIDATES.find((p): p is string => !!p && existsSync(p));
  if (path) return { path };
  const reason = "no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)";
  if (process.env.CI === "true" || process.env.CI === "1") throw new Error(`CI=true requires the browser tests: ${reason}`);
  return { skip: reason };
}

export async function launchChromium(path: string): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: path,
    headless: true,
    // the machine has no outside network: keep Chromium from dialling its own services
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
}

/** A page server on its own port: another origin than the API's. */
export async function servePage(html: () => string): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.url === "/favicon.ico") {
      res.writeHead(204).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    // "localhost" against the API's 127.0.0.1: another host as well as another port
    url: `http://localhost:${port}`,
    server,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const require = createRequire(import.meta.url);

/** axe-core's serious and critical violations on the page, shadow roots included. */
export async function accessibilityViolations(page: Page): Promise<Array<{ id: string; impact: string; help: string; nodes: number }>> {
  const axePath = require.resolve("axe-core/axe.min.js");
  await page.addScriptTag({ path: axePath });
  const result = (await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, o: unknown): Promise<unknown> } }).axe;
    return axe.run(document, { resultTypes: ["violations"] });
  })) as { violations: Array<{ id: string; impact: string | null; help: string; nodes: unknown[] }> };
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, impact: v.impact!, help: v.help, nodes: v.nodes.length }));
}

const SHOTS = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "docs", "screenshots");

/** Writes `docs/screenshots/<name>-desktop.png` and `<name>-360.png` of the page as it is now. */
export async function screenshots(page: Page, name: string, reopen?: (page: Page) => Promise<void>): Promise<string[]> {
  mkdirSync(SHOTS, { recursive: true });
  const files: string[] = [];
  for (const [suffix, size] of [
    ["desktop", { width: 1280, height: 800 }],
    ["360", { width: 360, height: 740 }],
  ] as const) {
    await page.setViewportSize(size);
    await reopen?.(page);
    const file = join(SHOTS, `${name}-${suffix}.png`);
    await page.screenshot({ path: file });
    files.push(file);
  }
  return files;
}

/**
 * A describe block with one Chromium launched before its tests and closed after them (`chromium.browser`, set once its
 * first hook ran). Skipped, with the reason printed, where no Chromium is installed; under CI=true that is an error
 * (findChromium).
 */
export function describeInChromium(title: string, body: (chromium: { readonly browser: Browser }) => void): void {
  const found = findChromium();
  if ("skip" in found) {
    console.log(`[mountkit] browser tests skipped: ${found.skip}`);
    describe.skip(`${title} (skipped: ${found.skip})`, () => {});
    return;
  }
  describe(title, () => {
    let browser: Browser | undefined;
    beforeAll(async () => {
      browser = await launchChromium(found.path);
    });
    afterAll(async () => {
      await browser?.close();
    });
    body({
      get browser() {
        if (!browser) throw new Error("Chromium is not launched yet: read chromium.browser in a hook or a test");
        return browser;
      },
    });
  });
}
