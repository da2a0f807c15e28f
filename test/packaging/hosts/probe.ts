// Runs inside a packaged host (copied there by test/packaging/run.ts): the checks every host must pass
// against its own running server, plus require() of every installed mountkit package.
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const customerId = "cust_3b241101-e2bb-4255-8caf-4136c566a962";
const json = { "content-type": "application/json" };

/** Reads an SSE body until `text` shows up (or fails after `ms`). */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, text: string, ms = 5000): Promise<string> {
  const decoder = new TextDecoder();
  let seen = "";
  const deadline = Date.now() + ms;
  while (!seen.includes(text)) {
    assert.ok(Date.now() < deadline, `no "${text}" on the stream within ${ms} ms (got ${JSON.stringify(seen.slice(0, 300))})`);
    const r = await reader.read();
    assert.ok(!r.done, `stream ended before "${text}"`);
    seen += decoder.decode(r.value, { stream: true });
  }
  return seen;
}

/** Opens a support conversation stream and leaves it open; answers its reader. */
export async function openStream(base: string) {
  const created = await fetch(`${base}/api/conversations`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ productSlug: "demo", customerId, message: "hello from the host" }),
  });
  assert.equal(created.status, 200, `create conversation: ${created.status} ${await created.clone().text()}`);
  const { conversationId } = (await created.json()) as { conversationId: string };
  const stream = await fetch(`${base}/api/conversations/${conversationId}/stream?productSlug=demo&customerId=${customerId}`);
  assert.equal(stream.status, 200);
  assert.match(stream.headers.get("content-type") ?? "", /^text\/event-stream/);
  return { conversationId, reader: stream.body!.getReader() };
}

/** Support SSE round trip, one error body, memory's document; answers the still-open stream's reader. */
export async function probeAllServices(base: string) {
  const { conversationId, reader } = await openStream(base);
  const sent = await fetch(`${base}/api/conversations/${conversationId}/messages`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ productSlug: "demo", customerId, message: "round trip over SSE" }),
  });
  assert.ok(sent.status === 200 || sent.status === 201, `post message: ${sent.status}`);
  await readUntil(reader, "round trip over SSE");

  // a customer id that is not cust_<UUID>
  const denied = await fetch(`${base}/api/conversations/list?productSlug=demo&customerId=alice`);
  assert.equal(denied.status, 400);
  assert.match(denied.headers.get("content-type") ?? "", /^application\/json/);
  const body = (await denied.json()) as { error?: unknown };
  assert.equal(typeof body.error, "string", `error body: ${JSON.stringify(body)}`);

  const doc = await fetch(`${base}/openapi.yaml`);
  assert.equal(doc.status, 200);
  return reader;
}

/** require() of every package the host installed (ESM loaded through require on Node 20.19+). */
export function requireEach(names: readonly string[]): void {
  const require = createRequire(import.meta.url);
  for (const name of names) {
    const mod = require(name) as Record<string, unknown>;
    assert.ok(Object.keys(mod).length > 0, `require("${name}") gave no exports`);
  }
}

/** Runs `shutdown` with `reader`'s stream open; the stream must end cleanly and shutdown take under 1 s. */
export async function timedShutdown(reader: ReadableStreamDefaultReader<Uint8Array>, shutdown: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await shutdown();
  const ms = performance.now() - started;
  let r = await reader.read();
  while (!r.done) r = await reader.read();
  assert.ok(ms < 1000, `shutdown took ${ms.toFixed(0)} ms with a stream open`);
  return ms;
}
