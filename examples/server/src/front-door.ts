// The example server's own routes beside the services. Development: the front door at `/` (every service, its pages,
// its OpenAPI documents and the generated credentials with curl lines), the API reference at /reference/, a demo page
// with the support widget, and the operator's routes. Production: only the operator's routes; `/` is a 404.
import { apiReferenceRoutes } from "@mountkit/api-reference";
import { defineService, json, type Route, route, type Service, text } from "@mountkit/core";
import { ENTRIES_CATALOGUE_PATH } from "@mountkit/entries";
import { EXPLORER_PATH } from "@mountkit/memory";
import type { Storage } from "@mountkit/sql";
import { INBOX_PATH } from "@mountkit/support";
import type { DevCredentials, Mode } from "./mode.js";
import { opsRoutes } from "./ops.js";
import { type Credential, FRONT_DOOR_SCRIPT, frontDoorHtml, type ServiceCard, widgetDemoHtml } from "./site/html.js";

export const REFERENCE_PATH = "/reference/";
/** Where the front door serves the entries service's own document (the service serves only each type's). */
const ENTRIES_DOCUMENT = "/reference/openapi/entries.json";
export const WIDGET_DEMO_PATH = "/demo/widget/";

/** Headers of the development pages: own origin only, and never cached (the front door shows credentials). */
const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

export interface HostOptions {
  mode: Mode;
  services: readonly Service[];
  storage?: Storage;
  credentials: DevCredentials;
  /** The Prometheus text, when /metrics is on. */
  prometheus?: () => Promise<string>;
  /** The support products (the first is the inbox's and the widget demo's). */
  products: readonly string[];
}

/**
 * A bearer credential the server generated, shown with a curl line that uses it (`rest`: the rest of the line after
 * the header); one configured by the operator is only named, never shown.
 */
function bearer(token: string | undefined, label: string, rest: string, configured: Credential): Credential {
  return token ? { label, value: token, curl: `curl -H 'Authorization: Bearer ${token}' ${rest}` } : configured;
}

/** What each service offers a visitor: pages, documents and one call to try. */
function cards(o: HostOptions, origin: string): ServiceCard[] {
  const c = o.credentials;
  const product = o.products[0] ?? "demo";
  const has = (name: string) => o.services.some((s) => s.name === name);
  const out: ServiceCard[] = [];
  const ref = (doc: string) => `${REFERENCE_PATH}?doc=${doc}`;
  if (has("entries"))
    out.push({
      name: "entries",
      title: "Typed entries",
      pages: [{ label: "API catalogue", href: ENTRIES_CATALOGUE_PATH }],
      documents: [{ label: "Entries API", href: ENTRIES_DOCUMENT, reference: ref("entries") }],
      credentials: [
        bearer(c.entriesToken, "Entries token (HS256, generated)", `${origin}/api/v1/types`, {
          label: "Entries token",
          note: "from AUTH_* (not shown)",
        }),
      ],
    });
  if (has("memory"))
    out.push({
      name: "memory",
      title: "Agent memory",
      pages: [{ label: "Memory explorer", href: EXPLORER_PATH }],
      documents: [{ label: "Memory API", href: "/openapi.yaml", reference: ref("memory") }],
      credentials: [
        bearer(
          c.memoryKey,
          'Memory key (brain "dev", generated)',
          `-H 'content-type: application/json' -d '{"content":"Ada joined Acme in 2021."}' ${origin}/v1/episodes`,
          { label: "Memory keys", note: "from MEMORY_API_KEYS (not shown)" },
        ),
      ],
    });
  if (has("support"))
    out.push({
      name: "support",
      title: "Customer support",
      pages: [
        { label: "Agent inbox", href: `${INBOX_PATH}?product=${encodeURIComponent(product)}` },
        { label: "Widget demo", href: WIDGET_DEMO_PATH },
      ],
      documents: [
        { label: "Public API (A)", href: "/api/conversations/openapi.json", reference: ref("support") },
        { label: "Support SPI (B)", href: "/care/openapi.json", reference: ref("support-spi") },
        { label: "Agent API", href: "/agent/openapi.json", reference: ref("support-agent") },
      ],
      credentials: [
        bearer(
          c.agentToken,
          "Agent token (inbox sign-in, generated)",
          `'${origin}/agent/conversations?productSlug=${encodeURIComponent(product)}'`,
          {
            label: "Agent token",
            note: "from SUPPORT_AGENT_TOKEN (not shown)",
          },
        ),
        bearer(
          c.spiToken,
          "SPI token (interface B, generated)",
          `'${origin}/care/conversations?customerId=cust_00000000-0000-4000-8000-000000000000'`,
          {
            label: "SPI token",
            note: "from SUPPORT_SPI_TOKEN (not shown)",
          },
        ),
      ],
    });
  return out;
}

/** The development-only routes: front door, reference, widget demo and the entries document. */
function developmentRoutes(o: HostOptions): Route[] {
  const entries = o.services.find((s) => s.name === "entries");
  const product = o.products[0] ?? "demo";
  const documents = [
    ...(entries ? [{ name: "entries", title: "Entries API", url: ENTRIES_DOCUMENT }] : []),
    ...(o.services.some((s) => s.name === "memory") ? [{ name: "memory", title: "Memory API", url: "/openapi.yaml" }] : []),
    ...(o.services.some((s) => s.name === "support")
      ? [
          { name: "support", title: "Support: public API (A)", url: "/api/conversations/openapi.json" },
          { name: "support-spi", title: "Support SPI (B)", url: "/care/openapi.json" },
          { name: "support-agent", title: "Support agent API", url: "/agent/openapi.json" },
        ]
      : []),
  ];
  const storage = o.storage ? `${o.storage.db.dialect} at ${o.storage.db.location}` : "in memory";
  return [
    route({
      method: "GET",
      path: "/",
      internal: true,
      handler: (ctx) => {
        const origin = `http://${ctx.headers.host ?? "127.0.0.1"}`;
        return text(
          200,
          frontDoorHtml({ cards: cards(o, origin), origin, storage, reference: REFERENCE_PATH }),
          "text/html; charset=utf-8",
          PAGE_HEADERS,
        );
      },
    }),
    // browsers ask every page's origin for one; a 404 would be a console error on each page
    route({ method: "GET", path: "/favicon.ico", internal: true, handler: () => ({ status: 204 }) }),
    route({
      method: "GET",
      path: "/front-door.js",
      internal: true,
      handler: () => text(200, FRONT_DOOR_SCRIPT, "text/javascript; charset=utf-8", PAGE_HEADERS),
    }),
    route({
      method: "GET",
      path: WIDGET_DEMO_PATH,
      internal: true,
      handler: () => text(200, widgetDemoHtml(product), "text/html; charset=utf-8", PAGE_HEADERS),
    }),
    route({
      method: "GET",
      path: WIDGET_DEMO_PATH.slice(0, -1),
      internal: true,
      handler: () => ({ status: 308, headers: { location: WIDGET_DEMO_PATH } }),
    }),
    ...(entries
      ? [
          route({
            method: "GET",
            path: ENTRIES_DOCUMENT,
            internal: true,
            handler: (ctx) => json(200, entries.openapi({ mountPath: ctx.mountPath })),
          }),
        ]
      : []),
    ...(documents.length ? apiReferenceRoutes({ path: REFERENCE_PATH, title: "mountkit API reference", documents }) : []),
  ];
}

/**
 * The example server's own service, mounted after the kit's. In development it owns every path the services leave
 * (so `/` is the front door and the rest answer the kit's 404); in production only its operator's routes.
 */
export function hostService(o: HostOptions): Service {
  const ops = opsRoutes({ storage: o.storage, prometheus: o.prometheus });
  const production = o.mode === "production";
  return defineService({
    name: "example-server",
    title: "mountkit example server",
    version: "1.0.0",
    mounts: production ? ops.map((r) => r.path) : ["/"],
    routes: production ? ops : [...ops, ...developmentRoutes(o)],
  });
}
