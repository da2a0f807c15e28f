// @mountkit/memory-explorer on the server: the explorer page's browser bundle as text, for the memory service
// to serve at `/v1/explorer/` (`createMemoryService({ explorerScript: memoryExplorerScript })`).
import { browserBundle } from "@mountkit/core/browser-bundle";

/** The minified browser bundle (prebuilt `dist/explorer.js` when published, bundled from sources in the workspace). */
export const memoryExplorerScript: () => Promise<string> = browserBundle({
  from: import.meta.url,
  source: "./browser.ts",
  built: "./explorer.js",
});
