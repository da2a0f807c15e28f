// @mountkit/entries-catalogue on the server: the catalogue page's browser bundle as text, for the entries service
// to serve at `/api/dev/catalogue/` (`createEntriesService({ catalogueScript: entriesCatalogueScript })`).
import { browserBundle } from "@mountkit/core/browser-bundle";

/** The minified browser bundle (prebuilt `dist/catalogue.js` when published, bundled from sources in the workspace). */
export const entriesCatalogueScript: () => Promise<string> = browserBundle({
  from: import.meta.url,
  source: "./browser.ts",
  built: "./catalogue.js",
});
