// A browser bundle a package ships for a service to serve (Node only, off the core's root entry). From the
// published package it is the prebuilt file in dist/; from the workspace's TypeScript sources it is bundled
// on first use with esbuild (a dev dependency of the workspace), so sources and bundle never drift.
import { readFileSync } from "node:fs";

export interface BrowserBundleOptions {
  /** `import.meta.url` of the calling module (src/index.ts in the workspace, dist/index.js when published). */
  from: string;
  /** The browser entry, relative to the calling module's source folder (e.g. "./browser.ts"). */
  source: string;
  /** The prebuilt bundle, relative to dist/ (e.g. "./widget.js"). */
  built: string;
}

/** A function giving the bundle's text, read or built once. */
export function browserBundle(options: BrowserBundleOptions): () => Promise<string> {
  let cached: Promise<string> | undefined;
  return () => {
    cached ??= options.from.endsWith(".ts")
      ? bundleFromSources(new URL(options.source, options.from).pathname)
      : Promise.resolve(readFileSync(new URL(options.built, options.from), "utf8"));
    return cached;
  };
}

async function bundleFromSources(entry: string): Promise<string> {
  const esbuild = await import("esbuild");
  const out = await esbuild.build({
    entryPoints: [entry],
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
