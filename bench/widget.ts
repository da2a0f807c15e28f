// The support widget's cost to a page: bundle size (raw and gzipped) and time to interactive in Chromium,
// from navigation start until the launcher button answers a click with the conversations list.
import { gzipSync } from "node:zlib";
import { listen } from "../examples/server/src/listen.js";
import { createSupportService } from "@mountkit/support";
import { supportWidgetScript } from "@mountkit/support-widget";
import { findChromium, launchChromium, servePage } from "../test/browser/browser.js";

/**
 * Runs in the page: waits for the launcher, clicks it, waits for the list. A string, not a function: the
 * TypeScript loader would add helpers (`__name`) the page does not have.
 */
const IN_PAGE = `(async () => {
  const until = (test) => new Promise((resolve) => { const look = () => (test() ? resolve() : requestAnimationFrame(look)); look(); });
  await until(() => document.querySelector("mountkit-support")?.shadowRoot?.querySelector(".launcher"));
  const root = document.querySelector("mountkit-support").shadowRoot;
  const ready = performance.now();
  root.querySelector(".launcher").click();
  await until(() => root.querySelector(".list, .empty"));
  return { ready, opened: performance.now() };
})()`;

export async function run(args: string[]): Promise<void> {
  const loads = Number(args[args.indexOf("--loads") + 1]) || 9;
  const script = await supportWidgetScript();
  console.log(
    `bundle: ${(script.length / 1024).toFixed(1)} KB minified, ${(gzipSync(script).length / 1024).toFixed(1)} KB gzipped (budget 30 KB)`,
  );

  const chromium = findChromium();
  if (!("path" in chromium)) {
    console.log(`time to interactive: skipped (${chromium.skip})`);
    return;
  }
  let apiUrl = "";
  const page = await servePage(
    () => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bench</title></head><body>
<script src="${apiUrl}/api/conversations/widget.js"></script><mountkit-support product="demo"></mountkit-support></body></html>`,
  );
  const support = createSupportService({ products: ["demo"], corsOrigins: [page.url], widgetScript: supportWidgetScript });
  const running = await listen("fastify", [support]);
  apiUrl = running.url;
  const browser = await launchChromium(chromium.path);
  try {
    const times: number[] = [];
    const ready: number[] = [];
    for (let i = 0; i < loads; i++) {
      const context = await browser.newContext();
      const tab = await context.newPage();
      await tab.goto(page.url, { waitUntil: "commit" });
      // measured inside the page, so the driver's own latency is not counted
      const t = (await tab.evaluate(IN_PAGE)) as { ready: number; opened: number };
      ready.push(t.ready);
      times.push(t.opened);
      await context.close();
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(`widget ready (navigation start → launcher rendered), ${loads} cold loads: median ${median(ready).toFixed(0)} ms`);
    console.log(
      `time to interactive (navigation start → launcher clicked → conversations list shown): median ${median(times).toFixed(0)} ms, ` +
        `min ${Math.min(...times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms (budget 500 ms)`,
    );
  } finally {
    await browser.close();
    await running.close();
    await support.dispose();
    await page.close();
  }
}
