// The client's attachments against a real server (fetch adapter on node:http): upload, download URL, messages that
// name files (create, send, a live send and its retry with the same clientMessageId), refusals with the server's
// message, and a verified customer's identity on the upload and in the download URL.
import { createHmac } from "node:crypto";
import { createSupportService, type SupportService } from "@mountkit/support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen, type Running } from "../../../examples/server/src/listen.js";
import { createSupportClient, inMemoryStorage, liveConversation, readMetadata, SupportApiError } from "../src/index.js";

const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="), (c) =>
  c.charCodeAt(0),
);
const SECRET = "client-attachments-secret";
const MAX_BYTES = 4096;

describe("client attachments against a real server", () => {
  let service: SupportService;
  let running: Running;
  let base = "";
  beforeAll(async () => {
    service = createSupportService({
      products: ["demo", { slug: "signed", verifySecret: SECRET }],
      agentToken: "agent",
      limits: { rateLimit: 10_000 },
      attachments: { maxBytes: MAX_BYTES, maxPerCustomerPerDay: 6, sweepIntervalMs: 0 },
    });
    running = await listen("fetch", [service]);
    base = running.url;
  });
  afterAll(async () => {
    await running.close();
    await service.dispose();
  });

  it("uploads a file, names it on create and send, and downloads it from attachmentUrl", async () => {
    const client = createSupportClient({ baseUrl: base, productSlug: "demo", storage: inMemoryStorage() });
    const progress: number[] = [];
    const shot = await client.upload(new Blob([PNG], { type: "image/png" }), { name: "screen.png", onProgress: (n) => progress.push(n) });
    expect(shot).toMatchObject({ name: "screen.png", contentType: "image/png", size: PNG.byteLength });
    expect(progress.at(-1)).toBe(PNG.byteLength);
    const { conversationId } = await client.create({ message: "It breaks", clientMessageId: "msg_first", attachments: [shot.id] });
    const log = await client.upload(new File(["line 1\nline 2\n"], "app.log", { type: "text/plain" }));
    expect(log).toMatchObject({ name: "app.log", contentType: "text/plain" });
    await client.send(conversationId, "and the log", undefined, { attachments: [log.id] });
    const d = await client.get(conversationId);
    expect(d.issue.attachments).toEqual([shot]);
    expect(d.comments[0]!.attachments).toEqual([log]);

    const img = await fetch(client.attachmentUrl(shot.id));
    expect(img.status).toBe(200);
    expect(new Uint8Array(await img.arrayBuffer())).toEqual(PNG);
    // another customer's URL for the same id is refused
    const other = createSupportClient({ baseUrl: base, productSlug: "demo", storage: inMemoryStorage() });
    expect((await fetch(other.attachmentUrl(shot.id))).status).toBe(404);
  });

  it("rejects refused uploads with the server's status and message, and retries nothing", async () => {
    let uploads = 0;
    const counting: typeof fetch = (input, init) => {
      if (String(input).includes("/attachments")) uploads++;
      return fetch(input, init);
    };
    const client = createSupportClient({ baseUrl: base, productSlug: "demo", storage: inMemoryStorage(), fetch: counting });
    const html = client.upload(new Blob(["<!doctype html><script>alert(1)</script>"], { type: "text/html" }), { name: "x.html" });
    await expect(html).rejects.toMatchObject({ status: 415, message: expect.stringContaining("file type not allowed") });
    const big = client.upload(new Blob([new Uint8Array(MAX_BYTES + 1)], { type: "image/png" }), { name: "big.png" });
    await expect(big).rejects.toBeInstanceOf(SupportApiError);
    await expect(big).rejects.toMatchObject({ status: 413 });
    expect(uploads).toBe(2);
    for (let i = 0; i < 6; i++) await client.upload(new Blob([PNG]), { name: `s${i}.png` });
    const over = client.upload(new Blob([PNG]), { name: "seventh.png" });
    await expect(over).rejects.toMatchObject({ status: 429, retryable: true });
    expect(uploads).toBe(9);
  });

  it("a live send with files that fails is retried with the same clientMessageId and the same files: one message", async () => {
    let failPosts = true;
    const flaky: typeof fetch = async (input, init) => {
      if (String(input).includes("/messages") && init?.method === "POST" && failPosts) throw new TypeError("fetch failed");
      return fetch(input, init);
    };
    const client = createSupportClient({ baseUrl: base, productSlug: "demo", storage: inMemoryStorage(), fetch: flaky, postAttempts: 1 });
    const { conversationId } = await client.create({ message: "x" });
    const shot = await client.upload(new Blob([PNG]), { name: "a.png" });
    const live = liveConversation(client, conversationId);
    try {
      await expect(live.send("see attached", [shot])).rejects.toMatchObject({ status: 0 });
      const failed = live.state.comments.find((c) => c.text === "see attached")!;
      expect(failed).toMatchObject({ status: "failed", attachments: [shot] });
      failPosts = false;
      const ok = await live.retry(failed.clientMessageId!);
      expect(ok).toMatchObject({ status: "sent", clientMessageId: failed.clientMessageId, attachments: [shot] });
      const d = await client.get(conversationId);
      expect(d.comments).toHaveLength(1);
      expect(d.comments[0]!.attachments).toEqual([shot]);
      expect(readMetadata(d.comments[0]!.body)?.clientMessageId).toBe(failed.clientMessageId);
    } finally {
      live.close();
    }
  });

  it("a verified customer's upload carries the signature header and the download URL its query", async () => {
    const customerId = `cust_${crypto.randomUUID()}`;
    const customerSignature = createHmac("sha256", SECRET).update(customerId).digest("hex");
    const signed = createSupportClient({ baseUrl: base, productSlug: "signed", customerId, customerSignature });
    const a = await signed.upload(new Blob([PNG]), { name: "s.png" });
    await signed.create({ message: "signed", attachments: [a.id] });
    const url = signed.attachmentUrl(a.id);
    expect(new URL(url).searchParams.get("customerSignature")).toBe(customerSignature);
    expect((await fetch(url)).status).toBe(200);
    const unsigned = createSupportClient({ baseUrl: base, productSlug: "signed", customerId });
    await expect(unsigned.upload(new Blob([PNG]), { name: "u.png" })).rejects.toMatchObject({ status: 401 });
    expect((await fetch(unsigned.attachmentUrl(a.id))).status).toBe(401);
  });
});
