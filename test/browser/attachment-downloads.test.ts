// Uploaded files never run as pages of the API's origin (docs/support.md#attachments), checked in Chromium under
// Express, Fastify and fetch: HTML and SVG are refused at upload (415); files that pass the sniffing yet carry script
// (a PNG, GIF and JPEG with HTML or JavaScript after their image data, text with event-handler markup, a namespaced
// SVG as text, a PDF with an OpenAction) are opened by the browser, at the API's origin, as a top-level navigation and
// embedded as <iframe>, <img>, <object>, <embed> and <script>, through the customer's and the agent's download routes.
// The server counts every request to the beacon path the payloads call; it must stay at zero, and the page that
// embedded them keeps its own DOM.
import type { IncomingMessage } from "node:http";
import { createSupportService, type SupportService } from "@mountkit/support";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../harness.js";
import { FRAMEWORKS, listen, type Running } from "../servers.js";
import { describeInChromium } from "./browser.js";

const AGENT = "agent-token-attachment-downloads";
const BEACON = "/pwned";

const text = (s: string) => new TextEncoder().encode(s);
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="), (c) =>
  c.charCodeAt(0),
);
/** Every way a payload calls home: a fetch, an image load, a navigation of the top page, a title change. */
const script = (tag: string) =>
  `fetch('${BEACON}?${tag}');new Image().src='${BEACON}?${tag}-img';document.title='pwned';try{top.location='${BEACON}?${tag}-top'}catch(e){}`;
const PAGE = (tag: string) =>
  `<!doctype html><html><head><title>pwned</title></head><body><script>${script(tag)}</script><img src=x onerror="${script(`${tag}-onerror`)}"></body></html>`;

/** Refused at upload: their bytes are HTML or SVG, whatever the name and Content-Type say. */
const REFUSED: Array<{ name: string; type: string; bytes: Uint8Array }> = [
  { name: "page.html", type: "text/html", bytes: text(PAGE("html")) },
  {
    name: "drawing.svg",
    type: "image/svg+xml",
    bytes: text(`<svg xmlns="http://www.w3.org/2000/svg" onload="${script("svg")}"><script>${script("svg-script")}</script></svg>`),
  },
  { name: "notes.txt", type: "text/plain", bytes: text(`<script>fetch('${BEACON}')</script>`) },
  { name: "readme.txt", type: "text/plain", bytes: text(PAGE("html-as-txt")) },
  {
    name: "photo.png",
    type: "image/png",
    bytes: text(`<svg xmlns="http://www.w3.org/2000/svg"><script>${script("svg-as-png")}</script></svg>`),
  },
  {
    name: "data.xml",
    type: "application/xml",
    bytes: text(`<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><script>${script("xhtml")}</script></html>`),
  },
];

/** Stored: the sniffing lets them through (an allowed type), but each carries script a browser would run if it rendered it. */
const STORED: Array<{ name: string; type: string; bytes: Uint8Array; stored: string }> = [
  { name: "screenshot.png", type: "image/png", bytes: concat(PNG, text(PAGE("png-tail"))), stored: "image/png" },
  { name: "shot.html", type: "text/html", bytes: concat(PNG, text(PAGE("png-as-html"))), stored: "image/png" },
  // a GIF whose header is also JavaScript (the GIFAR trick): it runs if a page may load it as a script
  { name: "anim.gif", type: "image/gif", bytes: text(`GIF89a=1;${script("gif-js")};/*${"\0".repeat(8)}*/`), stored: "image/gif" },
  {
    name: "photo.jpg",
    type: "image/jpeg",
    bytes: concat(Uint8Array.of(0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1), text(PAGE("jpeg-tail"))),
    stored: "image/jpeg",
  },
  // event handlers on tags the text rule does not list: plain text, as long as nothing renders it
  {
    name: "log.txt",
    type: "text/html",
    bytes: text(
      `<details open ontoggle="${script("details")}">x</details><input autofocus onfocus="${script("input")}"><video><source onerror="${script("video")}"></video>`,
    ),
    stored: "text/plain",
  },
  {
    name: "page.html",
    type: "text/html",
    bytes: text(`<x:svg xmlns:x="http://www.w3.org/2000/svg" onload="${script("nssvg")}"/>`),
    stored: "text/plain",
  },
  {
    name: "report.pdf",
    type: "application/pdf",
    bytes: text(
      `%PDF-1.4\n1 0 obj\n<< /Type /Catalog /OpenAction << /S /JavaScript /JS (app.launchURL('${BEACON}?pdf')) >> >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n`,
    ),
    stored: "application/pdf",
  },
];

describeInChromium("attachment downloads never run in the API's origin (Chromium)", (chromium) => {
  let browser: Browser;

  beforeAll(async () => {
    browser = chromium.browser;
  });

  for (const framework of FRAMEWORKS) {
    describe(framework, () => {
      let running: Running;
      let support: SupportService;
      let apiUrl = "";
      /** Requests to the beacon path the server received, by path and query. */
      const beacons: string[] = [];
      const customerId = `cust_${crypto.randomUUID()}`;
      /** Each stored file's customer and agent download URLs. */
      const files: Array<{ name: string; stored: string; customer: string; agent: string }> = [];

      beforeAll(async () => {
        support = createSupportService({
          products: ["demo"],
          agentToken: AGENT,
          limits: { rateLimit: 100_000 },
          attachments: { maxPerMessage: 10, maxPerCustomerPerDay: 100, sweepIntervalMs: 0 },
        });
        running = await listen(framework, [support]);
        apiUrl = running.url;
        // counted before any framework sees the request, on every host alike
        running.server.prependListener("request", (req: IncomingMessage) => {
          if (req.url?.startsWith(BEACON) || req.url?.startsWith("/beacon-control")) beacons.push(req.url);
        });
      });
      afterAll(async () => {
        await running?.close();
        await support?.dispose();
      });

      const upload = (f: { name: string; type: string; bytes: Uint8Array }) =>
        call(`${apiUrl}/api/conversations/attachments?productSlug=demo&customerId=${customerId}&name=${encodeURIComponent(f.name)}`, {
          method: "POST",
          headers: { "content-type": f.type },
          rawBody: f.bytes,
        });

      it("refuses HTML and SVG at upload with 415, whatever the name and Content-Type", async () => {
        for (const f of REFUSED) {
          const r = await upload(f);
          expect(r.status, `${f.name}: ${r.text}`).toBe(415);
        }
        const agentUpload = await call(`${apiUrl}/agent/attachments?productSlug=demo&name=page.html`, {
          method: "POST",
          headers: { authorization: `Bearer ${AGENT}`, "content-type": "text/html" },
          rawBody: REFUSED[0]!.bytes,
        });
        expect(agentUpload.status).toBe(415);
      });

      it("stores the files that pass the sniffing, as their sniffed type, on a conversation of the customer", async () => {
        const ids: string[] = [];
        for (const f of STORED) {
          const r = await upload(f);
          expect(r.status, `${f.name}: ${r.text}`).toBe(200);
          expect(r.body.contentType, f.name).toBe(f.stored);
          ids.push(r.body.id);
          files.push({
            name: f.name,
            stored: f.stored,
            customer: `${apiUrl}/api/conversations/attachments/${r.body.id}?productSlug=demo&customerId=${customerId}`,
            agent: `${apiUrl}/agent/attachments/${r.body.id}`,
          });
        }
        // named in a message, so the agent's route serves them as it serves any conversation's files
        const made = await call(`${apiUrl}/api/conversations`, {
          body: { productSlug: "demo", customerId, message: "Files attached", attachments: ids.slice(0, 5) },
        });
        expect(made.status, made.text).toBe(200);
        const more = await call(`${apiUrl}/api/conversations/${made.body.conversationId}/messages`, {
          body: { productSlug: "demo", customerId, message: "And these", attachments: ids.slice(5) },
        });
        expect(more.status, more.text).toBe(200);
        // the headers every download carries, on both routes
        for (const f of files)
          for (const [url, headers] of [
            [f.customer, {}],
            [f.agent, { authorization: `Bearer ${AGENT}` }],
          ] as const) {
            const r = await fetch(url, { headers });
            expect(r.status, url).toBe(200);
            expect(r.headers.get("content-type")).toBe(f.stored === "text/plain" ? "text/plain; charset=utf-8" : f.stored);
            expect(r.headers.get("x-content-type-options")).toBe("nosniff");
            expect(r.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
            expect(r.headers.get("content-disposition")).toMatch(f.stored.startsWith("image/") ? /^inline;/ : /^attachment;/);
            await r.arrayBuffer();
          }
      });

      for (const side of ["customer", "agent"] as const)
        it(`the ${side}'s downloads, opened and embedded at the API's origin, run nothing`, async () => {
          expect(files).toHaveLength(STORED.length);
          const context: BrowserContext = await browser.newContext({
            acceptDownloads: true,
            // the agent's route needs the bearer token on every request the page makes, navigations and embeds alike
            ...(side === "agent" ? { extraHTTPHeaders: { authorization: `Bearer ${AGENT}` } } : {}),
          });
          context.setDefaultTimeout(15_000);
          const seenByBrowser: string[] = [];
          context.on("request", (r) => {
            if (new URL(r.url()).pathname.startsWith(BEACON)) seenByBrowser.push(r.url());
          });
          try {
            const page = await context.newPage();
            const dialogs: string[] = [];
            page.on("dialog", (d) => {
              dialogs.push(d.message());
              void d.dismiss();
            });
            const hostPage = `${apiUrl}/attachment-host-${side}`;
            for (const f of files) {
              const url = f[side];
              await openDirectly(page, hostPage, url, f);
              await embedAll(page, hostPage, url, f);
            }
            // the counter counts: a request the test makes itself at the same origin reaches it
            await page.goto(hostPage);
            await page.evaluate(() => fetch("/beacon-control").then((r) => r.text()));
            await expect.poll(() => beacons.filter((b) => b.startsWith("/beacon-control")).length).toBe(1);
            beacons.splice(beacons.indexOf("/beacon-control"), 1);
            // a payload that ran would have called home by now; give a slow one a moment more
            await page.waitForTimeout(1000);
            expect(beacons).toEqual([]);
            expect(seenByBrowser).toEqual([]);
            expect(dialogs).toEqual([]);
          } finally {
            await context.close();
          }
        });
    });
  }
});

/** A page of the API's origin (the kit's JSON 404) that marks itself, so a replaced document shows. */
async function markedHost(page: Page, hostPage: string) {
  await page.goto(hostPage);
  await page.evaluate(() => {
    document.title = "host";
    document.body.dataset.host = "kept";
    (window as unknown as { __host: boolean }).__host = true;
  });
}

/** The file as a top-level navigation: images show as an image document, the rest download; nothing runs. */
async function openDirectly(page: Page, hostPage: string, url: string, f: { name: string; stored: string }) {
  await markedHost(page, hostPage);
  const download = page.waitForEvent("download", { timeout: 5000 }).catch(() => undefined);
  const navigated = await page.goto(url).then(
    (r) => r,
    (e: Error) => e,
  );
  if (f.stored.startsWith("image/")) {
    // shown inline as an image: the document Chromium builds for an image, with no script in it
    expect(navigated, f.name).not.toBeInstanceOf(Error);
    const doc = await page.evaluate(() => ({
      title: document.title,
      scripts: document.scripts.length,
      tags: [...document.querySelectorAll("body *")].map((e) => e.tagName),
      contentType: document.contentType,
    }));
    expect(doc.scripts, f.name).toBe(0);
    expect(doc.title, f.name).not.toBe("pwned");
    expect(
      doc.tags.filter((t) => t !== "IMG"),
      f.name,
    ).toEqual([]);
    expect(doc.contentType, f.name).toBe(f.stored);
  } else {
    // a download: the browser stays on the page it was on, with that page's DOM
    expect(navigated, f.name).toBeInstanceOf(Error);
    expect(String((navigated as Error).message), f.name).toMatch(/Download is starting|net::ERR_ABORTED/);
    const d = await download;
    expect(d, `${f.name} downloaded`).toBeDefined();
    await d?.cancel();
    expect(
      await page.evaluate(() => [document.title, document.body.dataset.host, (window as unknown as { __host?: boolean }).__host]),
      f.name,
    ).toEqual(["host", "kept", true]);
  }
}

/** The file embedded five ways in a page of the API's origin: the page keeps its DOM and title. */
async function embedAll(page: Page, hostPage: string, url: string, f: { name: string }) {
  await markedHost(page, hostPage);
  await page.evaluate((src) => {
    const add = (tag: string, attrs: Record<string, string>) => {
      const el = document.createElement(tag);
      for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
      document.body.append(el);
      return el;
    };
    add("iframe", { src });
    add("img", { src });
    add("object", { data: src });
    add("embed", { src });
    add("script", { src });
  }, url);
  await page.waitForLoadState("load");
  await page.waitForTimeout(300);
  const after = await page.evaluate(() => ({
    title: document.title,
    host: document.body.dataset.host,
    marked: (window as unknown as { __host?: boolean }).__host,
    children: [...document.body.children].map((e) => e.tagName),
  }));
  expect(after, f.name).toEqual({
    title: "host",
    host: "kept",
    marked: true,
    children: expect.arrayContaining(["IFRAME", "IMG", "OBJECT", "EMBED", "SCRIPT"]),
  });
  // whatever the frame holds, none of it is a document with script (an image document, a sandboxed text view or nothing)
  for (const frame of page.frames().slice(1)) {
    const inside = await frame.evaluate(() => ({ scripts: document.scripts.length, title: document.title })).catch(() => undefined);
    if (inside) expect(inside, `${f.name} in a frame`).toMatchObject({ scripts: 0 });
    if (inside) expect(inside.title, `${f.name} in a frame`).not.toBe("pwned");
  }
}
