// Browser pages a service serves under its own paths (the agent inbox, the memory explorer, the API
// catalogue): an HTML shell plus its script, both from the service, no CDN. Runtime-agnostic.
import { type Route, route, text } from "./route.js";

export interface PageOptions {
  /** The page's path, ending in "/" (e.g. "/agent/inbox/"); the slashless form redirects to it. */
  path: string;
  /** The document title. */
  title: string;
  /** The custom element the script defines, placed as the page's body (e.g. "mountkit-inbox"). */
  element: string;
  /** The browser bundle's text, or a function giving it (read once, then cached). */
  script: string | (() => string | Promise<string>);
}

/**
 * Security headers of every page: nothing but the service's own origin, styles inline only (shadow DOM
 * `<style>`), no framing. The page reads its API base from `<meta name="mountkit-base">`. Images may also come from
 * `blob:` URLs, which only the page's own script can make: the inbox shows attachments fetched with the agent's token.
 */
const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** The routes of one page: `GET path` (HTML), `GET path + "app.js"` (its script), and the slashless redirect. */
export function pageRoutes(options: PageOptions): Route[] {
  const { path, title, element } = options;
  if (!path.startsWith("/") || !path.endsWith("/") || path === "/") throw new Error(`page path must start and end with "/": ${path}`);
  if (!/^[a-z][a-z0-9]*-[a-z0-9-]+$/.test(element)) throw new Error(`not a custom element name: ${element}`);
  let script: Promise<string> | undefined;
  const load = () => {
    script ??= Promise.resolve(typeof options.script === "string" ? options.script : options.script()).catch((error) => {
      script = undefined;
      throw error;
    });
    return script;
  };
  return [
    route({
      method: "GET",
      path,
      internal: true,
      handler(ctx) {
        const html =
          `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
          `<meta name="viewport" content="width=device-width, initial-scale=1">` +
          `<meta name="mountkit-base" content="${escapeHtml(ctx.baseUrl)}">` +
          `<title>${escapeHtml(title)}</title><script src="app.js" defer></script></head>` +
          `<body style="margin:0"><${element}></${element}></body></html>`;
        return text(200, html, "text/html; charset=utf-8", PAGE_HEADERS);
      },
    }),
    route({
      method: "GET",
      path: `${path}app.js`,
      internal: true,
      async handler() {
        return text(200, await load(), "text/javascript; charset=utf-8", { ...PAGE_HEADERS, "cache-control": "public, max-age=300" });
      },
    }),
    route({
      method: "GET",
      path: path.slice(0, -1),
      internal: true,
      handler: () => ({ status: 308, headers: { location: path } }),
    }),
  ];
}
