// Attachments in a real browser, under Express, Fastify and fetch: a PNG screenshot (made here, a real image) and a
// text file attached in the widget on a page of another origin, sent, shown in the agent inbox as a loaded thumbnail
// and a link; pasted and dropped images; the agent's file reaching the widget; refused files said in the widget with
// the service's reason, sending nothing.
import { deflateSync } from "node:zlib";
import { createSupportService, type SupportService } from "@mountkit/support";
import { supportInboxScript } from "@mountkit/support-inbox";
import { supportWidgetScript } from "@mountkit/support-widget";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../harness.js";
import { FRAMEWORKS, listen, type Running } from "../servers.js";
import { accessibilityViolations, describeInChromium, screenshots, servePage } from "./browser.js";

const AGENT = "agent-token-attachments-0123";
const MAX_BYTES = 64 * 1024;

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes: Uint8Array) => {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};

/** A real RGB PNG of `width` × `height`: 16-pixel tiles of colour, like a screenshot's flat areas (it compresses well). */
export function pngScreenshot(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit, truecolour, deflate, no filter, no interlace
  const rows = Buffer.alloc(height * (1 + width * 3));
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) rows.set([(x >> 4) * 16, (y >> 4) * 16, 160], y * (1 + width * 3) + 1 + x * 3);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk("IHDR", header), chunk("IDAT", deflateSync(rows)), chunk("IEND", Buffer.alloc(0))]);
}

const PDF = Buffer.from("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n");

describeInChromium("attachments in the widget and the inbox, in Chromium", (chromium) => {
  let browser: Browser;
  let apiUrl = "";
  let shop: Awaited<ReturnType<typeof servePage>>;

  beforeAll(async () => {
    browser = chromium.browser;
    shop = await servePage(
      () => `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Shop</title></head><body><main><h1>A shop on another origin</h1></main>
<script src="${apiUrl}/api/conversations/widget.js"></script>
<mountkit-support product="demo" heading="Shop support"></mountkit-support></body></html>`,
    );
  });
  afterAll(async () => {
    await shop?.close();
  });

  for (const framework of FRAMEWORKS) {
    describe(framework, () => {
      let running: Running;
      let support: SupportService;
      let contexts: BrowserContext[] = [];
      let customer: Page;
      let inbox: Page;
      let conversationId = "";
      const errors: string[] = [];
      const screenshot = pngScreenshot(320, 200);
      const subject = `Checkout button missing ${framework} ${crypto.randomUUID().slice(0, 6)}`;

      beforeAll(async () => {
        support = createSupportService({
          products: ["demo"],
          agentToken: AGENT,
          corsOrigins: [shop.url],
          widgetScript: supportWidgetScript,
          inboxScript: supportInboxScript,
          limits: { rateLimit: 1000 },
          attachments: { maxBytes: MAX_BYTES, sweepIntervalMs: 0 },
        });
        running = await listen(framework, [support]);
        apiUrl = running.url;
        contexts = [await browser.newContext(), await browser.newContext({ acceptDownloads: true })];
        for (const c of contexts) c.setDefaultTimeout(15_000);
        customer = await contexts[0]!.newPage();
        inbox = await contexts[1]!.newPage();
        for (const page of [customer, inbox]) {
          page.on("pageerror", (e) => errors.push(String(e)));
          page.on("console", (m) => {
            // refused uploads answer 413/415: the browser logs the status, the page is not at fault
            if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) errors.push(m.text());
          });
        }
      });
      afterAll(async () => {
        for (const c of contexts) await c.close();
        await running?.close();
        await support?.dispose();
      });

      const widget = () => customer.locator("mountkit-support");
      const app = () => inbox.locator("mountkit-inbox");
      const agentApi = (path: string) => call(`${apiUrl}/agent${path}`, { headers: { authorization: `Bearer ${AGENT}` } });
      const detail = async () => (await agentApi(`/conversations/${conversationId}`)).body;
      const loaded = (img: ReturnType<Page["locator"]>) => img.evaluate((el) => (el as HTMLImageElement).naturalWidth);

      it("attaches a PNG screenshot and a text file in the widget, shows their upload, and sends them with the message", async () => {
        await customer.goto(shop.url);
        await widget().getByRole("button", { name: "Support" }).click();
        await widget().getByRole("button", { name: "New conversation" }).click();
        await widget().getByLabel("How can we help?").fill(subject);
        await widget()
          .locator("input[type=file]")
          .setInputFiles([
            { name: "checkout.png", mimeType: "image/png", buffer: screenshot },
            { name: "console.txt", mimeType: "text/plain", buffer: Buffer.from("TypeError: price is undefined\n") },
          ]);
        const chips = widget().getByRole("list", { name: "Files to send" });
        await expect.poll(() => chips.locator(".chip[data-state=ready]").count()).toBe(2);
        await expect.poll(() => chips.innerText()).toContain("checkout.png");
        // a chip can be removed before sending
        await widget()
          .locator("input[type=file]")
          .setInputFiles({ name: "oops.txt", mimeType: "text/plain", buffer: Buffer.from("not this one\n") });
        await expect.poll(() => chips.locator(".chip[data-state=ready]").count()).toBe(3);
        await widget().getByRole("button", { name: "Remove oops.txt" }).click();
        await expect.poll(() => chips.locator(".chip").count()).toBe(2);
        await widget().getByRole("button", { name: "Send" }).click();

        const thread = widget().getByRole("list", { name: "Messages" });
        await expect.poll(() => thread.innerText()).toContain(subject);
        const list = await agentApi(`/conversations?productSlug=demo&q=${encodeURIComponent(subject)}`);
        expect(list.body.items).toHaveLength(1);
        conversationId = list.body.items[0].id;
        const [first] = (await detail()).messages;
        expect(first.attachments.map((a: { name: string; contentType: string }) => [a.name, a.contentType])).toEqual([
          ["checkout.png", "image/png"],
          ["console.txt", "text/plain"],
        ]);
        // the widget shows its own thumbnail, loaded through the customer's download URL
        const thumb = thread.locator(`[data-attachment-id="${first.attachments[0].id}"] img`);
        await expect.poll(() => loaded(thumb)).toBe(320);
        const link = thread.locator(`[data-attachment-id="${first.attachments[1].id}"] a`);
        expect(await link.innerText()).toBe("console.txt");
        expect(await link.getAttribute("href")).toContain(`customerId=`);
      });

      it("shows them in the inbox: a loaded image thumbnail that opens full size, and the text file as a link that saves it", async () => {
        await inbox.goto(`${apiUrl}/agent/inbox/?product=demo`);
        await app().getByLabel("Agent token").fill(AGENT);
        await app().getByLabel("Your name (shown to customers)").fill("Ada");
        await app().getByRole("button", { name: "Sign in" }).click();
        await app()
          .getByRole("button", { name: new RegExp(subject) })
          .click();
        const thread = app().getByRole("list", { name: "Messages" });
        await expect.poll(() => thread.innerText()).toContain(subject);
        const [first] = (await detail()).messages;
        const [png, txt] = first.attachments;
        const thumb = thread.locator(`[data-attachment-id="${png.id}"] img`);
        await expect.poll(() => loaded(thumb)).toBe(320);
        expect(await thumb.getAttribute("src")).toMatch(/^blob:/);
        const box = await thumb.boundingBox();
        expect(box!.width).toBeLessThanOrEqual(200);
        expect(box!.height).toBeLessThanOrEqual(150);
        const link = thread.locator(`[data-attachment-id="${txt.id}"] a`);
        expect(await link.innerText()).toBe("console.txt");
        expect(await thread.locator(`[data-attachment-id="${txt.id}"]`).innerText()).toContain("30 B");
        const [download] = await Promise.all([inbox.waitForEvent("download"), link.click()]);
        expect(download.suggestedFilename()).toBe("console.txt");
        const { readFile } = await import("node:fs/promises");
        expect(await readFile((await download.path())!, "utf8")).toBe("TypeError: price is undefined\n");

        await thread.locator(`[data-attachment-id="${png.id}"] button`).click();
        const dialog = app().getByRole("dialog", { name: "checkout.png" });
        await expect.poll(() => loaded(dialog.locator("img"))).toBe(320);
        await inbox.keyboard.press("Escape");
        await expect.poll(() => app().getByRole("dialog").count()).toBe(0);
      });

      it("sends an agent's PDF from the inbox composer; the widget shows it as a link with its name and size", async () => {
        await app().locator("input[type=file]").setInputFiles({ name: "refund-form.pdf", mimeType: "application/pdf", buffer: PDF });
        await expect.poll(() => app().locator(".chip[data-state=ready]").count()).toBe(1);
        await app().getByLabel("Reply").fill("Please fill in this form.");
        await app().getByRole("button", { name: "Send reply" }).click();
        await widget().getByText("Please fill in this form.").waitFor();
        const last = (await detail()).messages.at(-1);
        expect(last.attachments).toEqual([expect.objectContaining({ name: "refund-form.pdf", contentType: "application/pdf" })]);
        const item = widget().locator(`[data-attachment-id="${last.attachments[0].id}"]`);
        await expect.poll(() => item.innerText()).toContain("refund-form.pdf");
        expect(await item.innerText()).toContain(`${PDF.length} B`);
        expect(await item.locator("img").count()).toBe(0);
        // the inbox shows its own reply's file the same way
        await expect.poll(() => app().locator(`[data-attachment-id="${last.attachments[0].id}"] a`).count()).toBe(1);
        await expect.poll(() => app().locator(".chip").count()).toBe(0);
      });

      it("takes an image pasted into the reply and one dropped on the thread, and sends them with the same message", async () => {
        const image = pngScreenshot(40, 30).toString("base64");
        await widget()
          .getByLabel("Your message")
          .evaluate((el, b64) => {
            const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
            const pasted = new DataTransfer();
            pasted.items.add(new File([bytes], "image.png", { type: "image/png" }));
            el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: pasted, bubbles: true, cancelable: true }));
            const dropped = new DataTransfer();
            dropped.items.add(new File([bytes], "dropped.png", { type: "image/png" }));
            const zone = el.closest("form")!;
            zone.dispatchEvent(new DragEvent("dragover", { dataTransfer: dropped, bubbles: true, cancelable: true }));
            zone.dispatchEvent(new DragEvent("drop", { dataTransfer: dropped, bubbles: true, cancelable: true }));
          }, image);
        await expect.poll(() => widget().locator(".chip[data-state=ready]").count()).toBe(2);
        await widget().getByRole("button", { name: "Send" }).click();
        await expect.poll(async () => (await detail()).messages.at(-1).attachments?.length).toBe(2);
        const last = (await detail()).messages.at(-1);
        expect(last.body).toContain("Attached: image.png, dropped.png");
        for (const a of last.attachments) {
          await expect.poll(() => loaded(app().locator(`[data-attachment-id="${a.id}"] img`))).toBe(40);
          await expect.poll(() => loaded(widget().locator(`[data-attachment-id="${a.id}"] img`))).toBe(40);
        }
      });

      if (framework === FRAMEWORKS[0])
        it("writes screenshots of the files in the inbox and the widget (desktop and 360 px)", async () => {
          const files = [
            ...(await screenshots(inbox, "support-attachments-inbox")),
            ...(await screenshots(customer, "support-attachments-widget")),
          ];
          expect(files).toHaveLength(4);
          await inbox.setViewportSize({ width: 1280, height: 800 });
          await customer.setViewportSize({ width: 1280, height: 800 });
        });

      it("says why a file over the limit or of a refused type was not attached, and sends nothing", async () => {
        const before = (await detail()).messages.length;
        const pending = () => support.attachments.store.listPending({ before: new Date(Date.now() + 60_000).toISOString(), limit: 100 });
        const pendingBefore = (await pending()).length;
        const input = widget().locator("input[type=file]");
        await input.setInputFiles({
          name: "page.html",
          mimeType: "text/html",
          buffer: Buffer.from("<!doctype html><script>alert(1)</script>"),
        });
        const alert = widget().getByRole("alert");
        await expect.poll(() => alert.innerText()).toContain("page.html was not attached: file type not allowed");
        const big = Buffer.concat([pngScreenshot(8, 8), Buffer.alloc(MAX_BYTES + 1)]);
        await input.setInputFiles({ name: "huge.png", mimeType: "image/png", buffer: big });
        await expect.poll(() => alert.innerText()).toMatch(/huge\.png was not attached: .*too large/);
        expect(await widget().locator(".chip").count()).toBe(0);
        // nothing to send: no words, no files
        await widget().getByRole("button", { name: "Send" }).click();
        await new Promise((r) => setTimeout(r, 300));
        expect((await detail()).messages.length).toBe(before);
        // the refused files were not stored
        expect((await pending()).length).toBe(pendingBefore);
      });

      it("revokes the inbox's object URLs when another conversation opens", async () => {
        const urls = await app()
          .locator("[data-attachment-id] img")
          .evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).src));
        expect(urls.length).toBeGreaterThan(0);
        // whether each URL still gives an image (an <img>, as the page's CSP allows blob: images and no blob: fetch)
        const loadable = () =>
          inbox.evaluate(
            (list) =>
              Promise.all(
                list.map(
                  (u) =>
                    new Promise<boolean>((resolve) => {
                      const img = new Image();
                      img.onload = () => resolve(true);
                      img.onerror = () => resolve(false);
                      img.src = u;
                    }),
                ),
              ),
            urls,
          );
        expect(await loadable()).toEqual(urls.map(() => true));
        const other = `Another question ${framework}`;
        await call(`${apiUrl}/api/conversations`, {
          body: { productSlug: "demo", customerId: `cust_${crypto.randomUUID()}`, message: other },
        });
        await app()
          .getByRole("button", { name: new RegExp(other) })
          .click();
        await expect.poll(() => app().getByRole("list", { name: "Messages" }).innerText()).toContain(other);
        expect(await loadable()).toEqual(urls.map(() => false));
      });

      it("has no serious accessibility violation in the widget with files shown and a file pending", async () => {
        await widget()
          .locator("input[type=file]")
          .setInputFiles({ name: "later.txt", mimeType: "text/plain", buffer: Buffer.from("later\n") });
        await expect.poll(() => widget().locator(".chip[data-state=ready]").count()).toBe(1);
        expect(await widget().locator("[data-attachment-id] img").count()).toBeGreaterThan(0);
        expect(await accessibilityViolations(customer)).toEqual([]);
      });

      it("ran without a script error or a CSP violation", () => {
        expect(errors).toEqual([]);
      });
    });
  }
});
