// Attachments over HTTP (docs/support.md#attachments) under Express, Fastify and fetch; the http-sqlite and
// http-postgres projects rerun it with the SQL record and blob stores: uploads sniffed from the bytes, downloads that
// no browser renders as a page of the API's origin, ownership, the limits' 413 and 429, dedup and no orphan blob; the
// customers' daily byte budget on a manual clock (deleted and swept uploads still count, parallel uploads never pass it).
import { type ManualClock, manualClock } from "@mountkit/core";
import { createSupportService, type SupportService } from "@mountkit/support";
import { describe, expect, it } from "vitest";
import { type AdapterTarget, call, forEachAdapter } from "./harness.js";

const AGENT = "agent-token-att";
const agentH = { authorization: `Bearer ${AGENT}` };
const cust = () => `cust_${crypto.randomUUID()}`;
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="), (c) =>
  c.charCodeAt(0),
);
const PDF = new TextEncoder().encode("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n");
const HTML = new TextEncoder().encode("<!doctype html><html><body><script>document.title='pwned'</script></body></html>");
const SVG = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
const MAX_BYTES = 64 * 1024;

function expectError(r: { status: number; headers: Headers; body: any }, status: number) {
  expect(r.status).toBe(status);
  expect(typeof r.body?.error).toBe("string");
  expect(typeof r.body?.requestId).toBe("string");
  expect(r.headers.get("x-request-id")).toBe(r.body.requestId);
}

const makeServices = () => [
  createSupportService({
    products: ["demo", "other"],
    limits: { rateLimit: 100_000 },
    agentToken: AGENT,
    attachments: { maxBytes: MAX_BYTES, maxPerMessage: 3, maxPerCustomerPerDay: 8, sweepIntervalMs: 0 },
  }),
];

function suite(t: AdapterTarget) {
  const u = (path: string) => `${t.url}${path}`;
  const svc = () => t.services[0] as SupportService;
  const q = (customerId: string, productSlug = "demo") => `productSlug=${productSlug}&customerId=${encodeURIComponent(customerId)}`;
  const upload = (customerId: string, bytes: Uint8Array, name: string, type = "application/octet-stream", productSlug = "demo") =>
    call(u(`/api/conversations/attachments?${q(customerId, productSlug)}&name=${encodeURIComponent(name)}`), {
      method: "POST",
      headers: { "content-type": type },
      rawBody: bytes,
    });
  const uploaded = async (customerId: string, bytes: Uint8Array, name: string, type?: string) => {
    const r = await upload(customerId, bytes, name, type);
    expect(r.status, r.text).toBe(200);
    return r.body as { id: string; name: string; contentType: string; size: number };
  };
  const download = (id: string, customerId: string, productSlug = "demo") =>
    fetch(u(`/api/conversations/attachments/${encodeURIComponent(id)}?${q(customerId, productSlug)}`));
  const create = async (customerId: string, extra: Record<string, unknown> = {}) => {
    const r = await call(u("/api/conversations"), { body: { productSlug: "demo", customerId, message: "Help", ...extra } });
    expect(r.status, r.text).toBe(200);
    return r.body.conversationId as string;
  };
  const post = (id: string, customerId: string, extra: Record<string, unknown> = {}) =>
    call(u(`/api/conversations/${id}/messages`), { body: { productSlug: "demo", customerId, message: "see attached", ...extra } });
  const detail = (id: string, customerId: string) => call(u(`/api/conversations/${id}?${q(customerId)}`));

  describe("uploads", () => {
    it("reads the type from the bytes, not the Content-Type or the name", async () => {
      const a = await uploaded(cust(), PNG, "shot.html", "text/html");
      expect(a).toMatchObject({ contentType: "image/png", size: PNG.byteLength, name: "shot.html.png" });
      const p = await uploaded(cust(), PDF, "invoice.pdf", "image/png");
      expect(p).toMatchObject({ contentType: "application/pdf", name: "invoice.pdf" });
      const txt = await uploaded(cust(), new TextEncoder().encode("log line 1\nlog line 2\n"), "../../etc/app.log", "text/plain");
      expect(txt).toMatchObject({ contentType: "text/plain", name: "app.log" });
    });

    it("refuses HTML and SVG (415), whatever they are called", async () => {
      for (const [bytes, name, type] of [
        [HTML, "page.html", "text/html"],
        [HTML, "notes.txt", "text/plain"],
        [SVG, "logo.svg", "image/svg+xml"],
        [SVG, "logo.png", "image/png"],
      ] as const) {
        const r = await upload(cust(), bytes, name, type);
        expectError(r, 415);
      }
      // NUL and other binary that no signature names
      expectError(await upload(cust(), Uint8Array.from([0x41, 0x00, 0x42]), "a.txt"), 415);
      expectError(await upload(cust(), Uint8Array.from([0xff, 0xfe, 0x00, 0x01]), "a.bin"), 415);
    });

    it("answers 413 past maxBytes and 400 on an empty file, storing nothing", async () => {
      const big = new Uint8Array(MAX_BYTES + 1);
      big.set(PNG);
      const r = await upload(cust(), big, "big.png", "image/png");
      expectError(r, 413);
      expect(r.body.details).toEqual({ limit: MAX_BYTES });
      expectError(await upload(cust(), new Uint8Array(0), "empty.txt"), 400);
    });

    it("answers 429 with Retry-After past the customer's uploads per day", async () => {
      const c = cust();
      for (let i = 0; i < 8; i++) await uploaded(c, PNG, `s${i}.png`);
      const r = await upload(c, PNG, "one-more.png");
      expectError(r, 429);
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(3600);
      // another customer is not limited by that one
      await uploaded(cust(), PNG, "fine.png");
    });

    it("answers 404 for an unknown product", async () => {
      expectError(await upload(cust(), PNG, "a.png", "image/png", "nope"), 404);
    });
  });

  describe("messages and downloads", () => {
    it("carries files on the first message and later ones; the customer downloads them, headers that keep them inert", async () => {
      const c = cust();
      const a = await uploaded(c, PNG, "screen.png");
      const id = await create(c, { attachments: [a.id] });
      const b = await uploaded(c, new TextEncoder().encode("stack trace\n"), "trace.txt");
      const p = await post(id, c, { attachments: [b.id] });
      expect(p.status, p.text).toBe(200);
      const d = await detail(id, c);
      expect(d.body.issue.attachments).toEqual([a]);
      expect(d.body.comments.at(-1).attachments).toEqual([b]);

      const img = await download(a.id, c);
      expect(img.status).toBe(200);
      expect(new Uint8Array(await img.arrayBuffer())).toEqual(PNG);
      expect(img.headers.get("content-type")).toBe("image/png");
      expect(img.headers.get("content-disposition")).toMatch(/^inline; filename="screen.png"/);
      expect(img.headers.get("x-content-type-options")).toBe("nosniff");
      expect(img.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");

      const text = await download(b.id, c);
      expect(text.status).toBe(200);
      expect(await text.text()).toBe("stack trace\n");
      expect(text.headers.get("content-type")).toBe("text/plain; charset=utf-8");
      expect(text.headers.get("content-disposition")).toMatch(/^attachment; filename="trace.txt"/);
      expect(text.headers.get("x-content-type-options")).toBe("nosniff");
      expect(text.headers.get("content-security-policy")).toContain("sandbox");
    });

    it("answers 404 to another customer, another product and an unknown id; the agent reads every file", async () => {
      const c = cust();
      const a = await uploaded(c, PNG, "mine.png");
      await create(c, { attachments: [a.id] });
      const other = await download(a.id, cust());
      expect(other.status).toBe(404);
      expectError({ status: other.status, headers: other.headers, body: await other.json() }, 404);
      expect((await download(a.id, c, "other")).status).toBe(404);
      expect((await download("no-such-file", c)).status).toBe(404);
      const byAgent = await fetch(u(`/agent/attachments/${a.id}`), { headers: agentH });
      expect(byAgent.status).toBe(200);
      expect(byAgent.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
      expect((await fetch(u(`/agent/attachments/${a.id}`))).status).toBe(401);
    });

    it("refuses another customer's upload or an unknown id on a message (400), and more than maxPerMessage (413)", async () => {
      const c = cust();
      const theirs = await uploaded(cust(), PNG, "theirs.png");
      expectError(
        await call(u("/api/conversations"), { body: { productSlug: "demo", customerId: c, message: "x", attachments: [theirs.id] } }),
        400,
      );
      const id = await create(c);
      expectError(await post(id, c, { attachments: ["nope"] }), 400);
      const four = [];
      for (let i = 0; i < 4; i++) four.push((await uploaded(c, PNG, `p${i}.png`)).id);
      expectError(await post(id, c, { attachments: four }), 413);
      // the refused message took its uploads with it
      for (const f of four) expect(await svc().attachments.blobs.get(f)).toBeNull();
    });

    it("deduplicates a message with files by clientMessageId; a retry's other uploads are deleted", async () => {
      const c = cust();
      const id = await create(c);
      const a = await uploaded(c, PNG, "a.png");
      const first = await post(id, c, { clientMessageId: "m-1", attachments: [a.id] });
      expect(first.status, first.text).toBe(200);
      const again = await post(id, c, { clientMessageId: "m-1", attachments: [a.id] });
      expect(again.body.id).toBe(first.body.id);
      const reupload = await uploaded(c, PNG, "a.png");
      const third = await post(id, c, { clientMessageId: "m-1", attachments: [reupload.id] });
      expect(third.body.id).toBe(first.body.id);
      const d = await detail(id, c);
      expect(d.body.comments.filter((m: any) => m.attachments)).toHaveLength(1);
      expect((await download(a.id, c)).status).toBe(200);
      expect((await download(reupload.id, c)).status).toBe(404);
      expect(await svc().attachments.blobs.get(reupload.id)).toBeNull();
    });

    it("a refused message (closed conversation) leaves no blob behind", async () => {
      const c = cust();
      const id = await create(c);
      expect(
        (await call(u(`/api/conversations/${id}/close`), { body: { productSlug: "demo", customerId: c, action: "close" } })).status,
      ).toBe(200);
      const a = await uploaded(c, PNG, "late.png");
      expectError(await post(id, c, { attachments: [a.id] }), 409);
      expect((await download(a.id, c)).status).toBe(404);
      expect(await svc().attachments.blobs.get(a.id)).toBeNull();
    });

    it("an agent's reply carries the agent's upload to the conversation's customer only", async () => {
      const c = cust();
      const id = await create(c);
      const up = await call(u("/agent/attachments?productSlug=demo&name=guide.pdf"), {
        method: "POST",
        headers: { ...agentH, "content-type": "application/pdf" },
        rawBody: PDF,
      });
      expect(up.status, up.text).toBe(200);
      // not the customer's before it is sent
      expect((await download(up.body.id, c)).status).toBe(404);
      const r = await call(u(`/agent/conversations/${id}/messages`), {
        headers: agentH,
        body: { body: "Here is the guide", author: "Ada", attachments: [up.body.id] },
      });
      expect(r.status, r.text).toBe(200);
      const d = await detail(id, c);
      expect(d.body.comments.at(-1)).toMatchObject({ author: "Ada", attachments: [up.body] });
      const pdf = await download(up.body.id, c);
      expect(pdf.status).toBe(200);
      expect(pdf.headers.get("content-disposition")).toMatch(/^attachment; filename="guide.pdf"/);
      expect((await download(up.body.id, cust())).status).toBe(404);
    });
  });

  it("documents the routes in interface A's and the agent side's OpenAPI documents", async () => {
    const a = await call(u("/api/conversations/openapi.json"));
    expect(Object.keys(a.body.paths)).toEqual(
      expect.arrayContaining(["/api/conversations/attachments", "/api/conversations/attachments/{attachmentId}"]),
    );
    expect(a.body.paths["/api/conversations/attachments"].post.responses).toHaveProperty("413");
    expect(a.body.paths["/api/conversations/attachments"].post.responses).toHaveProperty("429");
    const agent = await call(u("/agent/openapi.json"));
    expect(Object.keys(agent.body.paths)).toEqual(expect.arrayContaining(["/agent/attachments", "/agent/attachments/{attachmentId}"]));
  });
}

forEachAdapter("support attachments", makeServices, suite);

// the byte budget: five PNGs per customer per product in 24 hours, the count limit out of the way
const BUDGET = PNG.byteLength * 5;
const DAY = 86_400_000;
const PENDING_TTL = 600_000;
const clocks = new WeakMap<SupportService, ManualClock>();
const makeBudgetServices = () => {
  const clock = manualClock("2026-03-01T00:00:00Z");
  const svc = createSupportService({
    products: ["demo", "other"],
    limits: { rateLimit: 100_000 },
    agentToken: AGENT,
    clock,
    attachments: {
      maxPerCustomerPerDay: 1000,
      maxPerMessage: 3,
      maxBytesPerCustomerPerDay: BUDGET,
      pendingTtlMs: PENDING_TTL,
      sweepIntervalMs: 0,
    },
  });
  clocks.set(svc, clock);
  return [svc];
};

function budgetSuite(t: AdapterTarget) {
  const u = (path: string) => `${t.url}${path}`;
  const svc = () => t.services[0] as SupportService;
  const clock = () => clocks.get(svc())!;
  const upload = (customerId: string, productSlug = "demo") =>
    call(u(`/api/conversations/attachments?productSlug=${productSlug}&customerId=${encodeURIComponent(customerId)}&name=s.png`), {
      method: "POST",
      headers: { "content-type": "image/png" },
      rawBody: PNG,
    });
  const uploaded = async (customerId: string, productSlug = "demo") => {
    const r = await upload(customerId, productSlug);
    expect(r.status, r.text).toBe(200);
    return r.body as { id: string; size: number };
  };
  const agentUpload = () =>
    call(u("/agent/attachments?productSlug=demo&name=a.png"), {
      method: "POST",
      headers: { ...agentH, "content-type": "image/png" },
      rawBody: PNG,
    });
  const expectOverBudget = (r: { status: number; headers: Headers; body: any }) => {
    expectError(r, 429);
    expect(r.body.error).toContain(`${BUDGET} bytes`);
    return Number(r.headers.get("retry-after"));
  };

  it("answers 429 with Retry-After at the customer's byte budget; other customers, products and agents are unaffected", async () => {
    const c = cust();
    const first = clock().now();
    await uploaded(c);
    clock().advance(3_600_000);
    for (let i = 0; i < 4; i++) await uploaded(c);
    const r = await upload(c);
    // the budget frees up when the first upload leaves the 24 hours: 23 hours from now
    expect(expectOverBudget(r)).toBe(Math.ceil((first + DAY - clock().now()) / 1000));
    await uploaded(cust());
    await uploaded(c, "other");
    for (let i = 0; i < 6; i++) {
      const a = await agentUpload();
      expect(a.status, a.text).toBe(200);
    }
    expectOverBudget(await upload(c));
  });

  it("counts uploads deleted since: a refused message's and the sweep's do not give their bytes back", async () => {
    const c = cust();
    const four = [await uploaded(c), await uploaded(c), await uploaded(c), await uploaded(c)];
    const refused = await call(u("/api/conversations"), {
      body: { productSlug: "demo", customerId: c, message: "four files", attachments: four.map((a) => a.id) },
    });
    expectError(refused, 413);
    expect(await svc().attachments.store.getMany(four.map((a) => a.id))).toEqual([]);
    const last = await uploaded(c);
    expectOverBudget(await upload(c));
    clock().advance(PENDING_TTL + 1000);
    expect(await svc().attachments.sweep()).toBeGreaterThanOrEqual(1);
    expect(await svc().attachments.store.getMany([last.id])).toEqual([]);
    expectOverBudget(await upload(c));
  });

  it("parallel uploads of one customer never pass the budget together", async () => {
    const c = cust();
    const results = await Promise.all(Array.from({ length: 12 }, () => upload(c)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
    expectOverBudget(await upload(c));
  });

  it("takes uploads again once the counted ones leave the 24 hours", async () => {
    const c = cust();
    for (let i = 0; i < 5; i++) await uploaded(c);
    clock().advance(DAY - 1000);
    expect(expectOverBudget(await upload(c))).toBe(1);
    clock().advance(1000);
    await uploaded(c);
    // the other four left at the same moment: four more fit, then the budget is full again
    for (let i = 0; i < 4; i++) await uploaded(c);
    expectOverBudget(await upload(c));
  });

  it("documents the byte budget in the upload's 429", async () => {
    const a = await call(u("/api/conversations/openapi.json"));
    expect(a.body.paths["/api/conversations/attachments"].post.responses["429"].description).toContain("maxBytesPerCustomerPerDay");
  });
}

forEachAdapter("support attachments: the byte budget per customer per day", makeBudgetServices, budgetSuite);
