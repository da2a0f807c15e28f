// @mountkit/support-widget on the server: the widget's browser bundle as text, for the support service to
// serve at `/api/conversations/widget.js` (`createSupportService({ widgetScript: supportWidgetScript })`).
import { readFileSync } from "node:fs";

let cached: Promise<string> | undefined;

/**
 * The minified browser bundle. From the published package it is the prebuilt `dist/widget.js`; from the
 * workspace's TypeScript sources it is bundled on first use with esbuild, so sources and bundle never drift.
 */
export function supportWidgetScript(): Promise<string> {
  cached ??= import.meta.url.endsWith(".ts")
    ? bundleFromSources()
    : Promise.resolve(readFileSync(new URL("./widget.js", import.meta.url), "utf8"));
  return cached;
}

async function bundleFromSources(): Promise<string> {
  const esbuild = await import("esbuild");
  const out = await esbuild.build({
    entryPoints: [new URL("./browser.ts", import.meta.url).pathname],
    bundle: true,
    minify: true,
    format: "iife",
    target: "es2022",
    platform: "browser",
    conditions: ["mountkit-source"],
    write: false,
    legalComments: "none",
  });
  return out.outputFiles[0]!.text;
}
