// @mountkit/api-reference: an interactive reference page for OpenAPI documents (Swagger UI from swagger-ui-dist),
// served with its assets from the host's own origin: no CDN, no inline script, no request to another origin.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { defineService, type Route, route, type Service, text } from "@mountkit/core";

/** One OpenAPI document the page offers. */
export interface ApiDocument {
  /** A short id, picked by `?doc=<name>` in the page's URL. */
  name: string;
  /** What the page's document menu shows; default the name. */
  title?: string;
  /**
   * Where the browser fetches the document (JSON or YAML): an absolute URL on the same origin, or a path. A path
   * starting with "/" is taken under the host's mount prefix, as the page itself is.
   */
  url: string;
}

export interface ApiReferenceOptions {
  /** The page's path, ending in "/"; default "/reference/". Its assets are served beside it. */
  path?: string;
  /** The document title; default "API reference". */
  title?: string;
  documents: readonly ApiDocument[];
}

/**
 * The page's security headers: its own origin only; inline styles only because Swagger UI's React sets style
 * attributes; `connect-src 'self'` covers the documents and "Try it out" against the same server.
 */
const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

/** The files the page loads from swagger-ui-dist, with their media types. */
const ASSETS: Record<string, string> = {
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui-standalone-preset.js": "text/javascript; charset=utf-8",
  "swagger-ui.css": "text/css; charset=utf-8",
};

/**
 * Starts Swagger UI from the configuration block of the page (a JSON data block: the CSP runs no inline script).
 * `validatorUrl: null` keeps Swagger UI from asking its public validator for a badge.
 */
const INIT_SCRIPT = `"use strict";
(function () {
  var config = JSON.parse(document.getElementById("mountkit-reference-config").textContent);
  var wanted = new URLSearchParams(location.search).get("doc");
  var primary = config.documents.filter(function (d) { return d.name === wanted; })[0] || config.documents[0];
  window.ui = SwaggerUIBundle({
    urls: config.documents.map(function (d) { return { url: d.url, name: d.title }; }),
    "urls.primaryName": primary ? primary.title : undefined,
    dom_id: "#swagger-ui",
    validatorUrl: null,
    queryConfigEnabled: false,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: "StandaloneLayout",
  });
})();
`;

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** JSON that cannot end its `<script>` block early. */
const jsonInHtml = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

let assetDir: string | undefined;
const assets = new Map<string, Promise<string>>();

/** One of swagger-ui-dist's files, read once. */
function asset(file: string): Promise<string> {
  assetDir ??= dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/swagger-ui-bundle.js"));
  let text = assets.get(file);
  if (!text) {
    text = readFile(join(assetDir, file), "utf8");
    text.catch(() => assets.delete(file));
    assets.set(file, text);
  }
  return text;
}

/** The reference page's routes, for a service's own table: the page, its start script and Swagger UI's files. */
export function apiReferenceRoutes(options: ApiReferenceOptions): Route[] {
  const path = options.path ?? "/reference/";
  if (!path.startsWith("/") || !path.endsWith("/") || path === "/") throw new Error(`reference path must start and end with "/": ${path}`);
  if (!options.documents.length) throw new Error("the API reference needs at least one document");
  const title = options.title ?? "API reference";
  const documents = options.documents.map((d) => ({ name: d.name, title: d.title ?? d.name, url: d.url }));
  const page = route({
    method: "GET",
    path,
    internal: true,
    handler(ctx) {
      const config = { documents: documents.map((d) => ({ ...d, url: d.url.startsWith("/") ? ctx.mountPath + d.url : d.url })) };
      const html =
        `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
        `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>` +
        `<link rel="stylesheet" href="swagger-ui.css"></head><body style="margin:0">` +
        `<main id="swagger-ui" aria-label="${escapeHtml(title)}"></main>` +
        `<script type="application/json" id="mountkit-reference-config">${jsonInHtml(config)}</script>` +
        `<script src="swagger-ui-bundle.js"></script><script src="swagger-ui-standalone-preset.js"></script>` +
        `<script src="init.js"></script></body></html>`;
      return text(200, html, "text/html; charset=utf-8", PAGE_HEADERS);
    },
  });
  const cached = { ...PAGE_HEADERS, "cache-control": "public, max-age=3600" };
  return [
    page,
    route({
      method: "GET",
      path: `${path}init.js`,
      internal: true,
      handler: () => text(200, INIT_SCRIPT, "text/javascript; charset=utf-8", cached),
    }),
    ...Object.entries(ASSETS).map(([file, type]) =>
      route({
        method: "GET",
        path: `${path}${file}`,
        internal: true,
        handler: async () => text(200, await asset(file), type, cached),
      }),
    ),
    route({ method: "GET", path: path.slice(0, -1), internal: true, handler: () => ({ status: 308, headers: { location: path } }) }),
  ];
}

/** The reference page as a service of its own, for a host to mount beside the kit's services (`path` is its mount). */
export function apiReference(options: ApiReferenceOptions & { basePath?: string }): Service {
  const path = options.path ?? "/reference/";
  return defineService({
    name: "api-reference",
    title: options.title ?? "API reference",
    version: "1.0.0",
    mounts: [path.slice(0, -1)],
    routes: apiReferenceRoutes(options),
    basePath: options.basePath,
  });
}
