// Runs inside a packaged host (copied there by test/packaging/run.ts): the checks every host must pass
// against its own running server, plus require() of every installed mountkit package.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createRequire } from "node:module";

/** The HS256 secret every host's entries service verifies with. */
export const JWT_SECRET = "packaging-test-secret-of-32-bytes!";

/** A short-lived HS256 token for `sub` (what the host's identity provider would issue). */
function token(sub: string): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const now = Math.floor(Date.now() / 1000);
  const unsigned = `${part({ alg: "HS256", typ: "JWT" })}.${part({ sub, iat: now, exp: now + 300 })}`;
  return `${unsigned}.${createHmac("sha256", JWT_SECRET).update(unsigned).digest("base64url")}`;
}

/** Asserts the kit's error body (docs/conventions.md#error-body): `{ error, details?, requestId }`. */
async function assertErrorBody(res: Response, status: number): Promise<{ error: string; details?: unknown; requestId: string }> {
  assert.equal(res.status, status, `expected ${status}, got ${res.status} ${await res.clone().text()}`);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  const body = (await res.json()) as { error?: unknown; requestId?: unknown; details?: unknown };
  assert.equal(typeof body.error, "string", `error body: ${JSON.stringify(body)}`);
  assert.equal(typeof body.requestId, "string", `error body without requestId: ${JSON.stringify(body)}`);
  return body as { error: string; details?: unknown; requestId: string };
}

/** Entries under the prefix: 201 with a prefixed Location that answers, and 422 with every failing path. */
export async function probeEntries(base: string, typeId: string, good: object, bad: object, badPaths: string[]) {
  const headers = { authorization: `Bearer ${token("host-user")}`, "content-type": "application/json" };
  const url = `${base}/api/v1/types/${typeId}/data`;
  const created = await fetch(url, { method: "POST", headers, body: JSON.stringify({ name: "N", description: "D", customData: good }) });
  assert.equal(created.status, 201, `submit ${typeId}: ${created.status} ${await created.clone().text()}`);
  const location = created.headers.get("location") ?? "";
  const prefix = new URL(base).pathname;
  assert.ok(location.startsWith(`${prefix}/api/v1/types/${typeId}/data/`), `Location ${location} lacks the mount prefix ${prefix}`);
  const read = await fetch(new URL(location, base));
  assert.equal(read.status, 200, `GET Location ${location}: ${read.status}`);
  const refused = await fetch(url, { method: "POST", headers, body: JSON.stringify({ name: "N", description: "D", customData: bad }) });
  const body = await assertErrorBody(refused, 422);
  const paths = (body.details as Array<{ path: string }>).map((d) => d.path).sort();
  assert.deepEqual(paths, badPaths);
}

/** Memory under the prefix with a key the host created. */
export async function probeMemory(base: string, key: string) {
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const posted = await fetch(`${base}/v1/episodes`, {
    method: "POST",
    headers,
    body: JSON.stringify({ content: "Ada joined Acme in 2024." }),
  });
  assert.ok(posted.status === 201 || posted.status === 202, `post episode: ${posted.status} ${await posted.clone().text()}`);
  await assertErrorBody(await fetch(`${base}/v1/episodes`), 401);
}

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

const france = {
  emoji: "🇫🇷",
  name: "France",
  officialName: "French Republic",
  sovereignty: "UN member state",
  alpha2: "FR",
  alpha3: "FRA",
  numeric: "250",
};

/**
 * All three services under the prefix: entries (built-in `countries`), memory, the support SSE round trip
 * and error bodies, the OpenAPI document; answers the still-open stream's reader.
 */
export async function probeAllServices(base: string, memoryKey: string) {
  const badFrance = { ...france, alpha3: "fr", numeric: "25" };
  await probeEntries(base, "countries", france, badFrance, ["customData.alpha3", "customData.numeric"]);
  await probeMemory(base, memoryKey);
  const { conversationId, reader } = await openStream(base);
  const sent = await fetch(`${base}/api/conversations/${conversationId}/messages`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ productSlug: "demo", customerId, message: "round trip over SSE" }),
  });
  assert.ok(sent.status === 200 || sent.status === 201, `post message: ${sent.status}`);
  await readUntil(reader, "round trip over SSE");

  // a customer id that is not cust_<UUID>
  await assertErrorBody(await fetch(`${base}/api/conversations/list?productSlug=demo&customerId=alice`), 400);

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
