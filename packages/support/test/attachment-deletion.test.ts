// Deleting what carries files deletes the files: an agent deleting a message or a conversation removes the attachment
// records and their bytes (here on the filesystem store, so the files are seen to go), keeps what another message
// still shows, and leaves other conversations' files alone.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSupportService } from "@mountkit/support";
import { fileBlobStore } from "@mountkit/support/node";
import { afterAll, expect, it } from "vitest";

const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="), (c) =>
  c.charCodeAt(0),
);
const cust = () => `cust_${crypto.randomUUID()}`;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function setup() {
  const root = mkdtempSync(join(tmpdir(), "mk-att-del-"));
  dirs.push(root);
  const blobs = fileBlobStore({ root, fsync: false });
  const svc = createSupportService({ products: ["demo"], attachments: { blobs, sweepIntervalMs: 0 } });
  const upload = async (customerId: string) => {
    const r = await svc.fetch(
      new Request(`http://x/api/conversations/attachments?productSlug=demo&customerId=${customerId}&name=a.png`, {
        method: "POST",
        body: PNG,
        headers: { "content-type": "image/png" },
      }),
    );
    expect(r.status).toBe(200);
    return ((await r.json()) as { id: string }).id;
  };
  /** The attachment ids that have a file on disk. */
  const onDisk = () =>
    readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && !e.parentPath.endsWith("tmp"))
      .map((e) => e.name)
      .sort();
  return { svc, blobs, upload, onDisk };
}

it("deleting a message deletes the files it carried, records and bytes, and keeps the other messages' files", async () => {
  const { svc, upload, onDisk } = setup();
  const c = cust();
  const [a, b, d] = [await upload(c), await upload(c), await upload(c)];
  const { conversationId } = await svc.api.createConversation({ productSlug: "demo", customerId: c, message: "one", attachments: [a] });
  const second = await svc.api.postMessage({ productSlug: "demo", customerId: c, conversationId, message: "two", attachments: [b, d] });
  expect(onDisk()).toEqual([a, b, d].sort());

  await svc.api.agent.deleteMessage(conversationId, second.id);
  expect(onDisk()).toEqual([a]);
  expect((await svc.attachments.store.getMany([a, b, d])).map((r) => r.id)).toEqual([a]);
  const gone = await svc.fetch(new Request(`http://x/api/conversations/attachments/${b}?productSlug=demo&customerId=${c}`));
  expect(gone.status).toBe(404);
  await svc.dispose();
});

it("a file the customer named again on a later message stays while that message shows it", async () => {
  const { svc, upload, onDisk } = setup();
  const c = cust();
  const a = await upload(c);
  const { conversationId } = await svc.api.createConversation({ productSlug: "demo", customerId: c, message: "one" });
  const first = await svc.api.postMessage({ productSlug: "demo", customerId: c, conversationId, message: "file", attachments: [a] });
  const again = await svc.api.postMessage({ productSlug: "demo", customerId: c, conversationId, message: "again", attachments: [a] });
  await svc.api.agent.deleteMessage(conversationId, first.id);
  expect(onDisk()).toEqual([a]);
  await svc.api.agent.deleteMessage(conversationId, again.id);
  expect(onDisk()).toEqual([]);
  await svc.dispose();
});

it("deleting a conversation deletes every file its messages carried, and no other conversation's", async () => {
  const { svc, upload, onDisk } = setup();
  const [c1, c2] = [cust(), cust()];
  const [a, b, other] = [await upload(c1), await upload(c1), await upload(c2)];
  const one = await svc.api.createConversation({ productSlug: "demo", customerId: c1, message: "one", attachments: [a] });
  await svc.api.postMessage({ productSlug: "demo", customerId: c1, conversationId: one.conversationId, message: "two", attachments: [b] });
  await svc.api.createConversation({ productSlug: "demo", customerId: c2, message: "elsewhere", attachments: [other] });
  // an upload not on any message yet is the sweep's, not the delete's
  const pending = await upload(c1);

  await svc.api.agent.remove(one.conversationId);
  expect(onDisk()).toEqual([other, pending].sort());
  expect((await svc.attachments.store.getMany([a, b, other, pending])).map((r) => r.id).sort()).toEqual([other, pending].sort());
  await svc.dispose();
});
