// @mountkit/support-inbox on the server: the inbox page's browser bundle as text, for the support service to
// serve as a page at `/agent/inbox/` (`createSupportService({ inboxScript: supportInboxScript })`).
import { browserBundle } from "@mountkit/core/browser-bundle";

/** The minified browser bundle (prebuilt `dist/inbox.js` when published, bundled from sources in the workspace). */
export const supportInboxScript: () => Promise<string> = browserBundle({
  from: import.meta.url,
  source: "./browser.ts",
  built: "./inbox.js",
});
