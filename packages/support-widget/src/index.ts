// @mountkit/support-widget on the server: the widget's browser bundle as text, for the support service to
// serve at `/api/conversations/widget.js` (`createSupportService({ widgetScript: supportWidgetScript })`).
import { browserBundle } from "@mountkit/core/browser-bundle";

/** The minified browser bundle (prebuilt `dist/widget.js` when published, bundled from sources in the workspace). */
export const supportWidgetScript: () => Promise<string> = browserBundle({
  from: import.meta.url,
  source: "./browser.ts",
  built: "./widget.js",
});
