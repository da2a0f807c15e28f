// Attachments in-process: the text rule, a failed upload and a failed message leave no blob, and the sweep deletes
// uploads no message named within `pendingTtlMs` while keeping those a message carries.
import { manualClock } from "@mountkit/core";
import { createSupportService, inMemoryAttachmentStore, inMemoryBlobStore, isSafeText, sniffAttachment } from "@mountkit/support";
import { describe, expect, it } from "vitest";

const enc = (s: string) => new TextEncoder().encode(s);
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="), (c) =>
  c.charCodeAt(0),
);
const cust = () => `cust_${crypto.randomUUID()}`;

describe("the plain-text rule", () => {
  it("takes UTF-8 text and refuses NUL, invalid UTF-8 and markup", () => {
    expect(isSafeText(enc("héllo wörld\r\n\ttabbed\f"))).toBe(true);
    expect(isSafeText(enc("a < b and c > d, x<y"))).toBe(true);
    expect(isSafeText(enc("nul\u0000inside"))).toBe(false);
    expect(isSafeText(Uint8Array.from([0xc3, 0x28]))).toBe(false);
    for (const markup of [
      "<html>",
      "<!DOCTYPE html>",
      "<SCRIPT src=x>",
      "<svg/onload=1>",
      '<?xml version="1.0"?>',
      "text <iframe src=x>",
      "<!-- c -->",
    ])
      expect(isSafeText(enc(markup)), markup).toBe(false);
  });

  it("sniffs images and PDFs from their bytes, and refuses other formats", async () => {
    expect(await sniffAttachment(PNG)).toBe("image/png");
    expect(await sniffAttachment(enc("%PDF-1.7\n%%EOF"))).toBe("application/pdf");
    expect(await sniffAttachment(enc("plain words"))).toBe("text/plain");
    // a ZIP (and so any Office file) is a type outside the allow-list
    expect(
      await sniffAttachment(
        Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
      ),
    ).toBeNull();
  });
});

describe("no orphan blob", () => {
  it("a failed record write deletes the bytes it stored", async () => {
    const blobs = inMemoryBlobStore();
    const records = inMemoryAttachmentStore();
    const svc = createSupportService({
      products: ["demo"],
      attachments: { blobs, store: { ...records, insert: async () => Promise.reject(new Error("disk full")) }, sweepIntervalMs: 0 },
    });
    const res = await svc.fetch(
      new Request(`http://x/api/conversations/attachments?productSlug=demo&customerId=${cust()}`, {
        method: "POST",
        body: PNG,
        headers: { "content-type": "image/png" },
      }),
    );
    expect(res.status).toBe(500);
    expect(blobs.size).toBe(0);
    await svc.dispose();
  });

  it("the sweep deletes uploads no message named after pendingTtlMs, and keeps the ones a message carries", async () => {
    const clock = manualClock(Date.parse("2026-01-01T00:00:00Z"));
    const blobs = inMemoryBlobStore();
    const svc = createSupportService({ products: ["demo"], clock, attachments: { blobs, pendingTtlMs: 60_000, sweepIntervalMs: 0 } });
    const c = cust();
    const up = async () => {
      const r = await svc.fetch(
        new Request(`http://x/api/conversations/attachments?productSlug=demo&customerId=${c}&name=a.png`, {
          method: "POST",
          body: PNG,
          headers: { "content-type": "image/png" },
        }),
      );
      expect(r.status).toBe(200);
      return ((await r.json()) as { id: string }).id;
    };
    const kept = await up();
    const dropped = await up();
    await svc.api.createConversation({ productSlug: "demo", customerId: c, message: "hi", attachments: [kept] });
    expect(await svc.attachments.sweep()).toBe(0);
    clock.advance(60_001);
    expect(await svc.attachments.sweep()).toBe(1);
    expect(await blobs.get(dropped)).toBeNull();
    expect(await blobs.get(kept)).toEqual(PNG);
    await svc.dispose();
  });
});
