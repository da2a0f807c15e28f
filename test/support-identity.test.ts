// Verified customers and agent identities (docs/support.md#verified-customers, #agent-identities) under Express,
// Fastify and fetch on real sockets; the http-sqlite and http-postgres projects rerun it on SQL stores.
import { createHmac } from "node:crypto";
import { jwtVerifier, signHs256 } from "@mountkit/entries";
import { createSupportService } from "@mountkit/support";
import { describe, expect, it } from "vitest";
import { type AdapterTarget, call, forEachAdapter } from "./harness.js";
import { rawStream, waitFor, watch } from "./support/sse.js";

const SECRET = "product-verify-secret-0123456789";
const AGENT = "shared-agent-token-789";
const AGENT_JWT_SECRET = "agent-identity-hs256-secret-0123456789abcdef";
const cust = () => `cust_${crypto.randomUUID()}`;
const sign = (customerId: string, secret = SECRET) => createHmac("sha256", secret).update(customerId).digest("hex");
const agentH = { authorization: `Bearer ${AGENT}` };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const agentJwt = (claims: { sub: string; name?: string; expiresInSec?: number }, secret = AGENT_JWT_SECRET, now = Date.now()) =>
  signHs256(secret, claims, now);

/** Every error answer: the kit's body `{ error, requestId }` with the same id in `X-Request-Id`. */
function expectError(r: { status: number; headers: Headers; body: any }, status: number) {
  expect(r.status).toBe(status);
  expect(typeof r.body?.error).toBe("string");
  expect(typeof r.body?.requestId).toBe("string");
  expect(r.headers.get("x-request-id")).toBe(r.body.requestId);
}

const makeServices = () => [
  createSupportService({
    products: ["open", { slug: "signed", verifySecret: SECRET }],
    limits: { rateLimit: 100_000 },
    agentToken: AGENT,
    agentAuth: jwtVerifier({ secret: AGENT_JWT_SECRET }),
    heartbeatMs: 300,
  }),
];

function suite(t: AdapterTarget) {
  const u = (path: string) => `${t.url}${path}`;
  const q = (productSlug: string, customerId: string, signature?: string) =>
    `productSlug=${productSlug}&customerId=${customerId}${signature === undefined ? "" : `&customerSignature=${signature}`}`;
  const sigH = (signature?: string): Record<string, string> => (signature === undefined ? {} : { "x-customer-signature": signature });
  const create = (productSlug: string, customerId: string, signature?: string, message = "Hello") =>
    call(u("/api/conversations"), { headers: sigH(signature), body: { productSlug, customerId, message } });
  const list = (productSlug: string, customerId: string, signature?: string) =>
    call(u(`/api/conversations/list?${q(productSlug, customerId)}`), { headers: sigH(signature) });
  const detail = (productSlug: string, id: string, customerId: string, signature?: string) =>
    call(u(`/api/conversations/${id}?${q(productSlug, customerId)}`), { headers: sigH(signature) });
  const post = (productSlug: string, id: string, customerId: string, signature?: string) =>
    call(u(`/api/conversations/${id}/messages`), { headers: sigH(signature), body: { productSlug, customerId, message: "more" } });
  const agentReply = (id: string, headers: Record<string, string>, body: Record<string, unknown>) =>
    call(u(`/agent/conversations/${id}/messages`), { headers, body });

  /** A conversation of `signed` made with a correct signature. */
  async function signedConversation() {
    const c = cust();
    const r = await create("signed", c, sign(c));
    expect(r.status).toBe(200);
    return { c, id: r.body.conversationId as string };
  }

  describe("verified customers", () => {
    it("create: 401 without a signature, with a wrong one and with another customer's; 200 with the right one", async () => {
      const c = cust();
      expectError(await create("signed", c), 401);
      expectError(await create("signed", c, "0".repeat(64)), 401);
      expectError(await create("signed", c, sign(cust())), 401);
      expectError(await create("signed", c, sign(c, "another-secret")), 401);
      expectError(await create("signed", c, "not hex at all"), 401);
      const ok = await create("signed", c, sign(c));
      expect(ok.status).toBe(200);
      // hex is hex in either case
      expect((await create("signed", c, sign(c).toUpperCase())).status).toBe(200);
    });

    it("a wrong signature answers 401 on list, find, detail, post, close and rating; the right one works", async () => {
      const { c, id } = await signedConversation();
      const wrong = sign(cust());
      for (const r of [
        await list("signed", c, wrong),
        await call(u(`/api/conversations/find?${q("signed", c)}`), { headers: sigH(wrong) }),
        await detail("signed", id, c, wrong),
        await post("signed", id, c, wrong),
        await call(u(`/api/conversations/${id}/close`), {
          headers: sigH(wrong),
          body: { productSlug: "signed", customerId: c, action: "resolve" },
        }),
        await call(u(`/api/conversations/${id}/rating`), {
          headers: sigH(wrong),
          body: { productSlug: "signed", customerId: c, score: 5 },
        }),
      ])
        expectError(r, 401);
      // nothing was written by the refused post
      const d = await detail("signed", id, c, sign(c));
      expect(d.status).toBe(200);
      expect(d.body.comments).toEqual([]);
      const l = await list("signed", c, sign(c));
      expect(l.status).toBe(200);
      expect(l.body.conversations.map((x: { id: string }) => x.id)).toEqual([id]);
      expect((await post("signed", id, c, sign(c))).status).toBe(200);
      // the query parameter works as the header does (for clients that cannot set headers)
      const byQuery = await call(u(`/api/conversations/${id}?${q("signed", c, sign(c))}`));
      expect(byQuery.status).toBe(200);
      expect(byQuery.body.comments).toHaveLength(1);
      expectError(await call(u(`/api/conversations/${id}?${q("signed", c, wrong)}`)), 401);
      const closed = await call(u(`/api/conversations/${id}/close`), {
        headers: sigH(sign(c)),
        body: { productSlug: "signed", customerId: c, action: "resolve" },
      });
      expect(closed.status).toBe(200);
      const rated = await call(u(`/api/conversations/${id}/rating`), {
        headers: sigH(sign(c)),
        body: { productSlug: "signed", customerId: c, score: 4 },
      });
      expect(rated.status).toBe(200);
    });

    it("stream: 401 with a wrong or missing signature (raw and with a real EventSource); the right one streams events", async () => {
      const { c, id } = await signedConversation();
      const streamUrl = (signature?: string) => u(`/api/conversations/${id}/stream?${q("signed", c, signature)}`);
      for (const url of [streamUrl(), streamUrl(sign(cust()))]) {
        const raw = await rawStream(url);
        expect(raw.status).toBe(401);
        await raw.ended;
        expect(JSON.parse(raw.text()).error).toMatch(/signature/);
      }
      const headerWrong = await rawStream(streamUrl(), { "x-customer-signature": sign(cust()) });
      expect(headerWrong.status).toBe(401);
      headerWrong.close();
      const refused = watch(streamUrl(sign(cust())));
      try {
        await waitFor(() => refused.errors > 0, 8000, "the EventSource's error");
        expect(refused.events).toEqual([]);
      } finally {
        refused.close();
      }
      const viaHeader = await rawStream(streamUrl(), { "x-customer-signature": sign(c) });
      expect(viaHeader.status).toBe(200);
      viaHeader.close();
      const w = watch(streamUrl(sign(c)));
      try {
        await waitFor(() => w.events.some((e) => e.type === "connected"), 8000, "connected");
        expect((await agentReply(id, agentH, { body: "On it", author: "Ann" })).status).toBe(200);
        await waitFor(() => w.events.some((e) => e.type === "new_comment"), 8000, "the agent's reply");
        expect(w.events.find((e) => e.type === "new_comment")!.data.author).toBe("Ann");
      } finally {
        w.close();
      }
    });

    it("the next-page link keeps a signature that came in the query", async () => {
      const c = cust();
      for (let i = 0; i < 3; i++) expect((await create("signed", c, sign(c), `n${i}`)).status).toBe(200);
      const first = await call(u(`/api/conversations/list?${q("signed", c, sign(c))}&limit=2`));
      expect(first.status).toBe(200);
      const next = /^<([^>]+)>; rel="next"$/.exec(first.headers.get("link") ?? "")?.[1];
      expect(next).toContain(`customerSignature=${sign(c)}`);
      const second = await call(`${t.url}${next}`);
      expect(second.status).toBe(200);
      expect(second.body.conversations).toHaveLength(1);
    });

    it("an anonymous product works without a signature, and ignores one", async () => {
      const c = cust();
      const r = await create("open", c);
      expect(r.status).toBe(200);
      const id = r.body.conversationId;
      expect((await list("open", c)).status).toBe(200);
      expect((await detail("open", id, c)).status).toBe(200);
      expect((await post("open", id, c, "whatever")).status).toBe(200);
      const raw = await rawStream(u(`/api/conversations/${id}/stream?${q("open", c)}`));
      expect(raw.status).toBe(200);
      raw.close();
    });

    it("the public document lists the header, the query parameter and the 401", async () => {
      const doc = (await call(u("/api/conversations/openapi.json"))).body;
      for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths))
        for (const [method, op] of Object.entries<any>(methods)) {
          expect(op.responses["401"], `${method} ${path}`).toBeDefined();
          expect(
            op.parameters.some((p: any) => p.in === "header" && p.name === "X-Customer-Signature"),
            `${method} ${path}`,
          ).toBe(true);
        }
      const stream = doc.paths["/api/conversations/{id}/stream"].get;
      expect(stream.parameters.some((p: any) => p.in === "query" && p.name === "customerSignature")).toBe(true);
    });
  });

  describe("agent identities", () => {
    it("a verified agent's reply carries their name for the customer and their id for agents", async () => {
      const c = cust();
      const id = (await create("open", c)).body.conversationId;
      const token = await agentJwt({ sub: "agent-42", name: "Grace Hopper" });
      const me = await call(u("/agent/me"), { headers: bearer(token) });
      expect(me.status).toBe(200);
      expect(me.body).toEqual({ via: "identity", id: "agent-42", name: "Grace Hopper" });
      // the identity names the author, whatever the body says
      const r = await agentReply(id, bearer(token), { body: "Looking into it", author: "Someone Else" });
      expect(r.status).toBe(200);
      const d = await detail("open", id, c);
      const reply = d.body.comments.find((m: { id: string }) => m.id === r.body.id);
      expect(reply).toMatchObject({ author: "Grace Hopper", isCustomer: false });
      const agentView = await call(u(`/agent/conversations/${id}`), { headers: bearer(token) });
      expect(agentView.status).toBe(200);
      const mine = agentView.body.messages.find((m: { id: string }) => m.id === r.body.id);
      expect(mine).toMatchObject({ author: "Grace Hopper", authorId: "agent-42" });
      expect(agentView.body.messages.find((m: { isCustomer: boolean }) => m.isCustomer).authorId).toBeNull();
    });

    it("the shared token still works: its reply names the author it sends, and needs one", async () => {
      const c = cust();
      const id = (await create("open", c)).body.conversationId;
      expect((await call(u("/agent/me"), { headers: agentH })).body).toEqual({ via: "token", id: null, name: null });
      expectError(await agentReply(id, agentH, { body: "no name" }), 400);
      const r = await agentReply(id, agentH, { body: "Hi", author: "Ann" });
      expect(r.status).toBe(200);
      const agentView = await call(u(`/agent/conversations/${id}`), { headers: agentH });
      expect(agentView.body.messages.find((m: { id: string }) => m.id === r.body.id)).toMatchObject({ author: "Ann", authorId: null });
    });

    it("assignment by agent id: the signed-in agent assigns to themself and the list filters by that id", async () => {
      const c = cust();
      const id = (await create("open", c)).body.conversationId;
      const token = await agentJwt({ sub: `agent-${crypto.randomUUID()}`, name: "Ada" });
      const me = (await call(u("/agent/me"), { headers: bearer(token) })).body;
      const put = await call(u(`/agent/conversations/${id}/assignee`), {
        method: "PUT",
        headers: bearer(token),
        body: { assignee: me.id },
      });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({ assignee: me.id });
      const mine = await call(u(`/agent/conversations?productSlug=open&assignee=${encodeURIComponent(me.id)}`), { headers: bearer(token) });
      expect(mine.body.items.map((x: { id: string }) => x.id)).toEqual([id]);
    });

    it("401 for a bad token, a JWT signed with another key, an expired one and none; on streams too", async () => {
      const forged = await agentJwt({ sub: "agent-1", name: "Mallory" }, "some-other-hs256-secret-0123456789abcdef");
      const expired = await agentJwt({ sub: "agent-1", name: "Old", expiresInSec: 60 }, AGENT_JWT_SECRET, Date.now() - 3_600_000);
      for (const headers of [bearer("not-the-token"), bearer(forged), bearer(expired), {}, { authorization: "Basic abc" }]) {
        const r = await call(u("/agent/conversations?productSlug=open"), { headers });
        expectError(r, 401);
        expect(r.headers.get("www-authenticate")).toMatch(/^Bearer realm="support-agent"/);
        expectError(await call(u("/agent/me"), { headers }), 401);
      }
      const r = await call(u("/agent/me"), { headers: bearer(forged) });
      expect(r.headers.get("www-authenticate")).toContain('error="invalid_token"');
      const raw = await rawStream(u("/agent/conversations/stream?productSlug=open"), bearer(forged));
      expect(raw.status).toBe(401);
      raw.close();
      const ok = await rawStream(u("/agent/conversations/stream?productSlug=open"), bearer(await agentJwt({ sub: "agent-2" })));
      expect(ok.status).toBe(200);
      ok.close();
    });
  });
}

forEachAdapter("support identities", makeServices, suite);
