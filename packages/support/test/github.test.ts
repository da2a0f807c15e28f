// The GitHub Issues backend against a stand-in GitHub on a loopback socket: customer actions become issue
// writes, signed webhooks become stream events (once per delivery), rate limits pause and serialise writes,
// and the reconciliation poll catches what a lost webhook missed.
import { createHmac } from "node:crypto";
import { inMemoryPubSub, type PubSub } from "@mountkit/core/jobs";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSupportService, githubBackend, inMemorySupportStore, parseMetadata, type SupportStore, stripMetadata } from "../src/index.js";
import type { GhIssue } from "../src/backends/github/mapping.js";
import { type FakeGithubOptions, fakeGithub } from "./fakes/github.js";
import { loadGithubDescription } from "./fakes/github-openapi.js";
import { githubDelivery } from "./fakes/github-webhooks.js";
import { call, openStream, until } from "./fakes/streams.js";

const REPO = "acme/support-inbox";
const BOT = "mountkit-bot";
const SECRET = "whsec-test-123";
const cust = () => `cust_${crypto.randomUUID()}`;
const cleanups: Array<() => Promise<void>> = [];
beforeAll(() => loadGithubDescription());
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

let tokenCounter = 0;
async function setup(
  o: {
    backend?: Partial<Parameters<typeof githubBackend>[0]>;
    store?: SupportStore;
    bus?: PubSub;
    github?: Partial<FakeGithubOptions>;
    service?: Partial<Parameters<typeof createSupportService>[0]>;
  } = {},
) {
  const gh = await fakeGithub({ repo: REPO, botLogin: BOT, ...o.github });
  cleanups.push(async () => {
    await gh.close();
    // every request the backend sent is one GitHub's REST description allows
    expect(gh.violations).toEqual([]);
  });
  const store = o.store ?? inMemorySupportStore();
  const bus = o.bus ?? inMemoryPubSub();
  const make = (extra: Partial<Parameters<typeof githubBackend>[0]> = {}) => {
    const backend = githubBackend({
      repo: REPO,
      // a token per test: write queues are per token and per process
      token: `ghp_test_${process.pid}_${tokenCounter++}`,
      webhookSecret: SECRET,
      apiUrl: gh.url,
      reconcileIntervalMs: 0,
      minWriteIntervalMs: 0,
      rateLimitBackoffMs: 200,
      ...o.backend,
      ...extra,
    });
    const s = createSupportService({
      products: ["demo", { slug: "gh", backend }],
      store,
      bus,
      pruneIntervalMs: 0,
      limits: { rateLimit: 10_000 },
      agentToken: "tok",
      ...o.service,
    });
    cleanups.push(() => s.dispose());
    return { s, backend };
  };
  const { s, backend } = make();
  let delivery = 0;
  /** A signed delivery built on GitHub's official example of the event; `form` sends GitHub's default content type. */
  async function hook(event: string, payload: unknown, opts: { secret?: string; delivery?: string; to?: typeof s; form?: boolean } = {}) {
    const json = JSON.stringify(githubDelivery(event, payload, REPO));
    const raw = opts.form ? new URLSearchParams({ payload: json }).toString() : json;
    const sig = `sha256=${createHmac("sha256", opts.secret ?? SECRET)
      .update(raw)
      .digest("hex")}`;
    return call(opts.to ?? s, "POST", "/agent/webhooks/github", raw, {
      "content-type": opts.form ? "application/x-www-form-urlencoded" : "application/json",
      "x-hub-signature-256": sig,
      "x-github-event": event,
      "x-github-delivery": opts.delivery ?? `dlv-${++delivery}-${crypto.randomUUID()}`,
    });
  }
  const create = async (customerId: string, message = "My printer is on fire\nplease help", extra: object = {}) => {
    const r = await call(s, "POST", "/api/conversations", { productSlug: "gh", customerId, message, ...extra });
    expect(r.status).toBe(200);
    return r.body.conversationId as string;
  };
  const q = (c: string) => `productSlug=gh&customerId=${c}`;
  const detail = (id: string, c: string) => call(s, "GET", `/api/conversations/${id}?${q(c)}`);
  const post = (id: string, c: string, message: string, extra: object = {}) =>
    call(s, "POST", `/api/conversations/${id}/messages`, { productSlug: "gh", customerId: c, message, ...extra });
  const stream = (id: string, c: string, headers: Record<string, string> = {}, to = s) =>
    openStream(to, `/api/conversations/${id}/stream?${q(c)}`, headers);
  const numberOf = (id: string) => Number(/_(\d+)$/.exec(id)![1]);
  return { gh, s, backend, store, bus, make, hook, create, detail, post, stream, numberOf, q };
}

describe("GitHub Issues backend", () => {
  it("a conversation is an issue: title, body with the hidden block, the `new` label; detail and list read the mirror", async () => {
    const t = await setup();
    const c = cust();
    const id = await t.create(c, "Where is my order?", { clientMessageId: "msg_first" });
    const issue = t.gh.issues.get(t.numberOf(id))!;
    expect(issue.title).toBe("Where is my order?");
    expect(issue.labels).toEqual(["new"]);
    expect(parseMetadata(issue.body)).toEqual({ customerId: c, clientMessageId: "msg_first" });
    expect(t.gh.requests.every((r) => r.auth?.startsWith("Bearer ghp_test_"))).toBe(true);
    const d = await t.detail(id, c);
    expect(d.status).toBe(200);
    expect(d.body.issue).toMatchObject({ id, title: "Where is my order?", state: "open", status: "new", labels: ["new"] });
    expect(d.body.issue.body).toBe(issue.body);
    expect((await call(t.s, "GET", `/api/conversations/list?${t.q(c)}`)).body.conversations.map((x: any) => x.id)).toEqual([id]);
    // isolation: another customer, another product
    expect((await t.detail(id, cust())).status).toBe(404);
    expect((await call(t.s, "GET", `/api/conversations/${id}?productSlug=demo&customerId=${c}`)).status).toBe(404);
  });

  it("customer messages are bot comments with the block; status label moves to waiting-for-agent; clientMessageId dedups", async () => {
    const t = await setup();
    const c = cust();
    const id = await t.create(c);
    const n = t.numberOf(id);
    const m1 = await t.post(id, c, "More details", { clientMessageId: "msg_a" });
    const m2 = await t.post(id, c, "More details", { clientMessageId: "msg_a" });
    expect(m1.status).toBe(200);
    expect(m2.body).toEqual(m1.body);
    const mine = t.gh.comments.filter((x) => x.issue === n);
    expect(mine).toHaveLength(1);
    expect(parseMetadata(mine[0]!.body)).toEqual({ customerId: c, clientMessageId: "msg_a" });
    await until(() => t.gh.issues.get(n)!.labels.join() === "waiting-for-agent", "label swap on GitHub");
    const d = await t.detail(id, c);
    expect(d.body.issue.status).toBe("waiting-for-agent");
    expect(d.body.comments).toHaveLength(1);
    expect(d.body.comments[0]).toMatchObject({ id: m1.body.id, isCustomer: true, author: "Customer" });
  });

  it("an agent's comment arrives by signed webhook: new_comment (isCustomer false) on the stream, status and label follow; a redelivery does nothing", async () => {
    const t = await setup();
    const c = cust();
    const id = await t.create(c);
    const n = t.numberOf(id);
    const st = await t.stream(id, c);
    expect(st.status).toBe(200);
    const comment = t.gh.agentComment(n, "octo-agent", "Have you tried turning it off and on again?");
    const payload = { action: "created", issue: t.gh.issueJson(n), comment: t.gh.commentJson(comment) };
    const first = await t.hook("issue_comment", payload, { delivery: "dlv-fixed-1" });
    expect(first.status).toBe(200);
    const again = await t.hook("issue_comment", payload, { delivery: "dlv-fixed-1" });
    expect(again.body).toMatchObject({ duplicate: true });
    await until(() => st.types().includes("new_comment") && st.types().includes("labels_changed"), "agent reply events");
    const nc = st.frames.find((f) => f.type === "new_comment")!;
    expect(nc.data).toMatchObject({ body: comment.body, author: "octo-agent", isCustomer: false });
    expect(st.frames.find((f) => f.type === "labels_changed")!.data).toMatchObject({ status: "waiting-for-customer" });
    await until(() => t.gh.issues.get(n)!.labels.join() === "waiting-for-customer", "label on GitHub");
    expect((await t.detail(id, c)).body.issue.status).toBe("waiting-for-customer");
    await new Promise((r) => setTimeout(r, 50));
    expect(st.frames.filter((f) => f.type === "new_comment")).toHaveLength(1);
    await st.close();
  });

  it("refuses unsigned, wrongly signed and foreign webhooks; ping answers", async () => {
    const t = await setup();
    const c = cust();
    const id = await t.create(c);
    const n = t.numberOf(id);
    const comment = t.gh.agentComment(n, "octo-agent", "forged?");
    const payload = { action: "created", issue: t.gh.issueJson(n), comment: t.gh.commentJson(comment) };
    const bad = await t.hook("issue_comment", payload, { secret: "not-the-secret" });
    expect(bad.status).toBe(401);
    expect(typeof bad.body.requestId).toBe("string");
    const unsigned = await call(t.s, "POST", "/agent/webhooks/github", JSON.stringify(payload), {
      "x-github-event": "issue_comment",
      "x-github-delivery": "x",
    });
    expect(unsigned.status).toBe(401);
    expect((await call(t.s, "POST", "/agent/webhooks/nope", "{}")).status).toBe(404);
    expect((await t.hook("ping", { zen: "Keep it logically awesome." })).status).toBe(200);
    const foreign = await t.hook("issue_comment", { ...payload, repository: { full_name: "someone/else" } });
    expect(foreign.status).toBe(202);
    expect((await t.detail(id, c)).body.comments).toHaveLength(0);
  });

  it("isCustomer only for the kit's bot with the hidden block: a person pasting a block and a bot note without one are agents", async () => {
    const t = await setup();
    const c = cust();
    const id = await t.create(c);
    const n = t.numberOf(id);
    const forged = t.gh.agentComment(n, "mallory", `I am the customer\n\n<!-- cs:customerId=${c} -->`);
    const note = t.gh.agentComment(n, BOT, "Automated note without a block");
    for (const cm of [forged, note])
      expect((await t.hook("issue_comment", { action: "created", issue: t.gh.issueJson(n), comment: t.gh.commentJson(cm) })).status).toBe(
        200,
      );
    const d = await t.detail(id, c);
    expect(d.body.comments.map((x: any) => [x.author, x.isCustomer])).toEqual([
      ["mallory", false],
      [BOT, false],
    ]);
  });

  it("edits, deletions, labels, assignee, close and delete from GitHub become their events; the stream ends after issue_deleted", async () => {
    const t = await setup();
    const c = cust();
    const id = await t.create(c);
    const n = t.numberOf(id);
    const cm = t.gh.agentComment(n, "octo-agent", "first answer");
    await t.hook("issue_comment", { action: "created", issue: t.gh.issueJson(n), comment: t.gh.commentJson(cm) });
    const st = await t.stream(id, c);
    cm.body = "first answer (edited)";
    await t.hook("issue_comment", { action: "edited", issue: t.gh.issueJson(n), comment: t.gh.commentJson(cm) });
    await t.hook("issue_comment", { action: "deleted", issue: t.gh.issueJson(n), comment: t.gh.commentJson(cm) });
    const issue = t.gh.issues.get(n)!;
    issue.labels.push("billing");
    await t.hook("issues", { action: "labeled", label: { name: "billing" }, issue: t.gh.issueJson(n) });
    issue.assignee = { login: "octo-agent" };
    await t.hook("issues", { action: "assigned", issue: t.gh.issueJson(n) });
    issue.state = "closed";
    issue.state_reason = "not_planned";
    await t.hook("issues", { action: "closed", issue: t.gh.issueJson(n) });
    await until(() => st.types().includes("assignee_changed") && st.types().includes("state_update"), "events");
    expect(st.frames.find((f) => f.type === "comment_edited")!.data).toMatchObject({ body: "first answer (edited)" });
    expect(st.frames.find((f) => f.type === "comment_deleted")!.data).toMatchObject({ id: expect.stringContaining(String(cm.id)) });
    expect(st.frames.filter((f) => f.type === "labels_changed").map((f) => f.data.labels)).toContainEqual([
      "waiting-for-customer",
      "billing",
    ]);
    expect(st.frames.find((f) => f.type === "assignee_changed")!.data).toEqual({ assignee: "octo-agent" });
    expect(st.frames.find((f) => f.type === "state_update")!.data).toMatchObject({ state: "closed", status: "closed" });
    const d = await t.detail(id, c);
    expect(d.body.issue).toMatchObject({ state: "closed", status: "closed", labels: ["closed", "billing"] });
    expect(d.body.comments).toHaveLength(0);
    expect((await t.post(id, c, "hello?")).status).toBe(409);
    await t.hook("issues", { action: "deleted", issue: t.gh.issueJson(n) });
    await st.ended;
    expect(st.types().at(-1)).toBe("issue_deleted");
    expect((await t.detail(id, c)).status).toBe(404);
  });

  it("resolve closes as completed, close as not_planned; a message on a resolved one reopens the issue", async () => {
    const t = await setup();
    const c = cust();
    const a = await t.create(c, "one");
    const b = await t.create(c, "two");
    expect(
      (await call(t.s, "POST", `/api/conversations/${a}/close`, { productSlug: "gh", customerId: c, action: "resolve" })).body,
    ).toEqual({
      success: true,
      message: "Conversation marked as resolved",
    });
    expect((await call(t.s, "POST", `/api/conversations/${b}/close`, { productSlug: "gh", customerId: c, action: "close" })).status).toBe(
      200,
    );
    const ia = t.gh.issues.get(t.numberOf(a))!;
    const ib = t.gh.issues.get(t.numberOf(b))!;
    expect([ia.state, ia.state_reason]).toEqual(["closed", "completed"]);
    expect([ib.state, ib.state_reason]).toEqual(["closed", "not_planned"]);
    await until(() => ia.labels.length === 0 && ib.labels.length === 0, "status labels removed");
    expect((await t.detail(a, c)).body.issue.status).toBe("resolved");
    expect((await t.detail(b, c)).body.issue.status).toBe("closed");
    // idempotent
    expect((await call(t.s, "POST", `/api/conversations/${a}/close`, { productSlug: "gh", customerId: c, action: "resolve" })).status).toBe(
      200,
    );
    const st = await t.stream(a, c);
    expect((await t.post(a, c, "it broke again")).status).toBe(200);
    await until(() => ia.state === "open" && ia.labels.join() === "waiting-for-agent", "reopened on GitHub");
    await until(() => st.types().includes("state_update"), "state_update");
    expect(st.frames.find((f) => f.type === "state_update")!.data).toMatchObject({ state: "open", status: "waiting-for-agent" });
    expect((await t.post(b, c, "hello?")).status).toBe(409);
    await st.close();
  });

  it("rate limits: a secondary limit (retry-after), a primary one (reset) and a 429 pause and retry; writes never overlap", async () => {
    const t = await setup({ github: { writeDelayMs: 20 } });
    const c = cust();
    t.gh.limit({ kind: "secondary", retryAfter: 1 });
    const started = Date.now();
    const id = await t.create(c);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    t.gh.limit({ kind: "primary", resetInSeconds: 0 }, { kind: "429", retryAfter: 0 }, { kind: "secondary" });
    const posts = await Promise.all(Array.from({ length: 6 }, (_, i) => t.post(id, c, `burst ${i}`)));
    expect(posts.map((p) => p.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(t.gh.comments.filter((x) => x.issue === t.numberOf(id))).toHaveLength(6);
    expect(t.gh.maxInFlightWrites).toBe(1);
    const limited = t.gh.requests.filter((r) => r.status === 403 || r.status === 429);
    expect(limited).toHaveLength(4);
  });

  it("a limit longer than a customer may wait answers 429 with Retry-After, and the pause holds for later writes", async () => {
    const t = await setup({ backend: { maxWaitMs: 300 } });
    const c = cust();
    t.gh.limit({ kind: "secondary", retryAfter: 30 });
    const r = await call(t.s, "POST", "/api/conversations", { productSlug: "gh", customerId: c, message: "hi" });
    expect(r.status).toBe(429);
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(29);
    const before = t.gh.requests.length;
    expect((await call(t.s, "POST", "/api/conversations", { productSlug: "gh", customerId: c, message: "hi" })).status).toBe(429);
    // paused: the second request never reached GitHub
    expect(t.gh.requests.length).toBe(before);
  });

  it("the reconciliation poll repairs lost webhooks: missed comments, edits and label changes become events", async () => {
    const t = await setup();
    const c = cust();
    const id = await t.create(c);
    const n = t.numberOf(id);
    const st = await t.stream(id, c);
    const cm = t.gh.agentComment(n, "octo-agent", "answer nobody was told about");
    t.gh.issues.get(n)!.labels = ["waiting-for-customer", "vip"];
    const r = await t.backend.reconcile();
    expect(r.issues).toBeGreaterThanOrEqual(1);
    await until(() => st.types().includes("new_comment") && st.types().includes("labels_changed"), "reconciled events");
    const d = await t.detail(id, c);
    expect(d.body.issue).toMatchObject({ status: "waiting-for-customer", labels: ["waiting-for-customer", "vip"] });
    expect(d.body.comments.map((x: any) => x.body)).toEqual([cm.body]);
    // a second pass finds nothing new
    const count = st.frames.length;
    await t.backend.reconcile();
    await new Promise((r2) => setTimeout(r2, 50));
    expect(st.frames.length).toBe(count);
    await st.close();
  });

  it("another process sharing store and bus delivers the webhook's event to its own streams, with Last-Event-ID replay", async () => {
    const store = inMemorySupportStore();
    const bus = inMemoryPubSub();
    const t = await setup({ store, bus });
    const other = t.make();
    const c = cust();
    const id = await t.create(c);
    const n = t.numberOf(id);
    const st = await t.stream(id, c, {}, other.s);
    const cm = t.gh.agentComment(n, "octo-agent", "seen everywhere");
    await t.hook("issue_comment", { action: "created", issue: t.gh.issueJson(n), comment: t.gh.commentJson(cm) });
    await until(() => st.types().includes("new_comment"), "cross-process event");
    const seq = st.frames.find((f) => f.type === "new_comment")!.id!;
    await st.close();
    const replay = await t.stream(id, c, { "last-event-id": String(Number(seq) - 1) }, other.s);
    await until(() => replay.types().includes("new_comment"), "replay");
    expect(replay.frames.find((f) => f.type === "new_comment")!.id).toBe(seq);
    await replay.close();
  });

  it("the agent API refuses mirrored conversations (they are worked on GitHub)", async () => {
    const t = await setup();
    const c = cust();
    const id = await t.create(c);
    const auth = { authorization: "Bearer tok" };
    expect((await call(t.s, "GET", "/agent/conversations?productSlug=gh", undefined, auth)).status).toBe(501);
    expect((await call(t.s, "GET", `/agent/conversations/${id}`, undefined, auth)).status).toBe(501);
    expect((await call(t.s, "POST", `/agent/conversations/${id}/messages`, { body: "x", author: "a" }, auth)).status).toBe(501);
  }, 10_000);

  it("an App installation token needs botLogin: refused at start-up without it; with it, no GET /user and the bot's posts read as the customer's", async () => {
    expect(() => githubBackend({ repo: REPO, token: "ghs_installation", webhookSecret: SECRET })).toThrow(/botLogin.*\[bot\]/);
    expect(() => githubBackend({ repo: REPO, token: () => "ghs_rotating", webhookSecret: SECRET })).toThrow(/botLogin/);
    const t = await setup({ backend: { token: "ghs_installation_token", botLogin: BOT } });
    const c = cust();
    const id = await t.create(c);
    const n = t.numberOf(id);
    expect((await t.post(id, c, "more", { clientMessageId: "msg_app" })).status).toBe(200);
    await until(() => t.gh.issues.get(n)!.labels.join() === "waiting-for-agent", "label swap on GitHub");
    // the webhook echo and the poll both read the kit's own comment as the customer's message
    const mine = t.gh.comments.find((x) => x.issue === n)!;
    expect((await t.hook("issue_comment", { action: "created", issue: t.gh.issueJson(n), comment: t.gh.commentJson(mine) })).status).toBe(
      200,
    );
    await t.backend.reconcile();
    const d = await t.detail(id, c);
    expect(d.body.comments.map((x: any) => [x.isCustomer, x.author])).toEqual([[true, "Customer"]]);
    expect(d.body.issue.status).toBe("waiting-for-agent");
    expect(t.gh.requests.filter((r) => r.path === "/user")).toEqual([]);
  });

  it("a token whose login cannot be learnt writes nothing: 502 naming botLogin, no issue on GitHub", async () => {
    const t = await setup({ github: { identity: false } });
    const r = await call(t.s, "POST", "/api/conversations", { productSlug: "gh", customerId: cust(), message: "hello" });
    expect(r.status).toBe(502);
    expect(JSON.stringify(r.body)).not.toMatch(/at .*\.ts/);
    expect(t.gh.issues.size).toBe(0);
    expect(t.gh.requests.filter((x) => x.method !== "GET")).toEqual([]);
  });

  it("GitHub's default form-encoded webhook (a `payload` field) is accepted, its signature checked over the form bytes", async () => {
    const t = await setup();
    const c = cust();
    const id = await t.create(c);
    const n = t.numberOf(id);
    const cm = t.gh.agentComment(n, "octo-agent", "Answer sent as a form: 100% & <b>fine</b>");
    const payload = { action: "created", issue: t.gh.issueJson(n), comment: t.gh.commentJson(cm) };
    expect((await t.hook("issue_comment", payload, { form: true, secret: "wrong" })).status).toBe(401);
    const r = await t.hook("issue_comment", payload, { form: true });
    expect(r.status).toBe(200);
    expect((await t.hook("ping", { zen: "Design for failure." }, { form: true })).status).toBe(200);
    const d = await t.detail(id, c);
    expect(d.body.comments.map((x: any) => x.body)).toEqual([cm.body]);
    // a form without the field, signed: a clear 400
    const raw = "nothing=here";
    const sig = `sha256=${createHmac("sha256", SECRET).update(raw).digest("hex")}`;
    const bad = await call(t.s, "POST", "/agent/webhooks/github", raw, {
      "content-type": "application/x-www-form-urlencoded",
      "x-hub-signature-256": sig,
      "x-github-event": "issue_comment",
      "x-github-delivery": "dlv-no-payload",
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error ?? bad.body.message).toBeDefined();
  });

  it("customer @-mentions notify nobody on GitHub, and the customer reads back exactly what they wrote", async () => {
    const t = await setup();
    const c = cust();
    const first = "Ping @octocat and @acme/support-team!\nMail me: me@example.com";
    const id = await t.create(c, first, { clientMessageId: "msg_m1" });
    const n = t.numberOf(id);
    const second = "Also @\u200dhidden-joiner stays as typed, and @@double";
    expect((await t.post(id, c, second, { clientMessageId: "msg_m2" })).status).toBe(200);
    const onGithub = [t.gh.issues.get(n)!.body!, t.gh.comments.find((x) => x.issue === n)!.body];
    for (const body of onGithub) expect(body).not.toMatch(/@[A-Za-z0-9]/);
    expect(onGithub[0]).toContain("@\u200doctocat");
    const st = await t.stream(id, c);
    // the webhook echo of the kit's own comment and a reconciliation pass change nothing
    const mine = t.gh.comments.find((x) => x.issue === n)!;
    await t.hook("issue_comment", { action: "created", issue: t.gh.issueJson(n), comment: t.gh.commentJson(mine) });
    await t.hook("issue_comment", { action: "edited", issue: t.gh.issueJson(n), comment: t.gh.commentJson(mine) });
    await t.hook("issues", { action: "edited", changes: { body: { from: "before" } }, issue: t.gh.issueJson(n) });
    await t.backend.reconcile();
    const d = await t.detail(id, c);
    expect(stripMetadata(d.body.issue.body)).toBe(first);
    expect(d.body.comments.map((x: any) => stripMetadata(x.body))).toEqual([second]);
    await new Promise((r) => setTimeout(r, 50));
    expect(st.types().filter((x) => x === "comment_edited" || x === "new_comment")).toEqual([]);
    await st.close();
  });

  it("a retry after a failure that follows the GitHub write posts nothing twice: the comment is found by its hidden block", async () => {
    const base = inMemorySupportStore();
    let failAppend = 0;
    const store: SupportStore = {
      ...base,
      async appendMessage(input) {
        if (failAppend > 0) {
          failAppend--;
          throw new Error("the store went away");
        }
        return base.appendMessage(input);
      },
    };
    const t = await setup({ store });
    const c = cust();
    const id = await t.create(c);
    const n = t.numberOf(id);
    failAppend = 1;
    const failed = await t.post(id, c, "exactly once please", { clientMessageId: "msg_once" });
    expect(failed.status).toBe(500);
    expect(t.gh.comments.filter((x) => x.issue === n)).toHaveLength(1);
    const retry = await t.post(id, c, "exactly once please", { clientMessageId: "msg_once" });
    expect(retry.status).toBe(200);
    const again = await t.post(id, c, "exactly once please", { clientMessageId: "msg_once" });
    expect(again.body).toEqual(retry.body);
    expect(t.gh.comments.filter((x) => x.issue === n)).toHaveLength(1);
    const d = await t.detail(id, c);
    expect(d.body.comments.map((x: any) => [x.id, parseMetadata(x.body)?.clientMessageId])).toEqual([[retry.body.id, "msg_once"]]);
    // a new message still posts
    expect((await t.post(id, c, "another", { clientMessageId: "msg_two" })).status).toBe(200);
    expect(t.gh.comments.filter((x) => x.issue === n)).toHaveLength(2);
  });

  it("the reconciliation poll follows Link headers past 100 pages", async () => {
    const t = await setup({ github: { maxPerPage: 1 } });
    const c = cust();
    const id = await t.create(c);
    const n = t.numberOf(id);
    for (let i = 0; i < 130; i++) t.gh.agentComment(n, "octo-agent", `answer ${i}`);
    await t.backend.reconcile();
    const d = await t.detail(id, c);
    expect(d.body.comments).toHaveLength(130);
    expect(d.body.comments.at(-1).body).toBe("answer 129");
    expect(t.gh.requests.filter((r) => r.path.includes(`/issues/${n}/comments`)).length).toBeGreaterThan(100);
  });

  it("labels GitHub drops (no triage access) do not make the poll or a webhook misread the status", async () => {
    const t = await setup({ github: { canLabel: false } });
    const c = cust();
    const id = await t.create(c);
    const n = t.numberOf(id);
    expect(t.gh.issues.get(n)!.labels).toEqual([]);
    await t.backend.reconcile();
    expect((await t.detail(id, c)).body.issue.status).toBe("new");
    const cm = t.gh.agentComment(n, "octo-agent", "answer");
    await t.hook("issue_comment", { action: "created", issue: t.gh.issueJson(n), comment: t.gh.commentJson(cm) });
    expect((await t.detail(id, c)).body.issue.status).toBe("waiting-for-customer");
    await t.backend.reconcile();
    await t.hook("issues", { action: "edited", changes: { title: { from: "x" } }, issue: t.gh.issueJson(n) });
    expect((await t.detail(id, c)).body.issue.status).toBe("waiting-for-customer");
    // closed and reopened on GitHub without labels: someone has to look at it
    t.gh.issues.get(n)!.state = "closed";
    t.gh.issues.get(n)!.state_reason = "completed";
    await t.hook("issues", { action: "closed", issue: t.gh.issueJson(n) });
    t.gh.issues.get(n)!.state = "open";
    t.gh.issues.get(n)!.state_reason = "reopened";
    await t.hook("issues", { action: "reopened", issue: t.gh.issueJson(n) });
    expect((await t.detail(id, c)).body.issue.status).toBe("waiting-for-agent");
  });

  it("a /care message without the hidden block, or with body null, is the customer's: attributed so by the posting request, the poll and the webhook", async () => {
    const t = await setup({ service: { spiToken: "spi-tok", spiProduct: "gh" } });
    const auth = { authorization: "Bearer spi-tok" };
    const c = cust();
    const created = await call(t.s, "POST", "/care/conversations", { customerId: c, subject: "Plain", body: "no block here" }, auth);
    expect(created.status).toBe(200);
    const id = created.body.conversationId as string;
    const n = t.numberOf(id);
    expect(parseMetadata(t.gh.issues.get(n)!.body)).toEqual({ customerId: c });
    for (const body of ["plain follow-up", null]) {
      const r = await call(t.s, "POST", `/care/conversations/${id}/messages`, { customerId: c, conversationId: id, body }, auth);
      expect(r.status).toBe(200);
    }
    const posted = t.gh.comments.filter((x) => x.issue === n);
    expect(posted.map((x) => parseMetadata(x.body))).toEqual([{ customerId: c }, { customerId: c }]);
    const attribution = async () => {
      const d = await call(t.s, "GET", `/care/conversations/${id}?customerId=${c}`, undefined, auth);
      return d.body.messages.map((m: any) => [m.isCustomer, m.author, stripMetadata(m.body)]);
    };
    const expected = [
      [true, "Customer", "no block here"],
      [true, "Customer", "plain follow-up"],
      [true, "Customer", ""],
    ];
    expect(await attribution()).toEqual(expected);
    // GitHub's echo of the kit's own comment, and a poll, read it the same way
    await t.hook("issue_comment", {
      action: "created",
      issue: t.gh.issueJson(n),
      comment: t.gh.commentJson(posted[0]!),
      sender: { login: BOT },
    });
    await t.backend.reconcile();
    expect(await attribution()).toEqual(expected);
    expect((await t.detail(id, c)).body.issue.status).toBe("waiting-for-agent");
  });

  it("a lost webhook for an agent's first reply: the poll moves the status from new to waiting-for-customer, writes the label, and a second poll changes nothing", async () => {
    const t = await setup();
    const c = cust();
    const id = await t.create(c);
    const n = t.numberOf(id);
    const st = await t.stream(id, c);
    t.gh.agentComment(n, "octo-agent", "answered, webhook lost");
    await t.backend.reconcile();
    await until(() => st.types().includes("labels_changed"), "status event");
    expect((await t.detail(id, c)).body.issue.status).toBe("waiting-for-customer");
    await until(() => t.gh.issues.get(n)!.labels.join() === "waiting-for-customer", "label follows on GitHub");
    const count = st.frames.length;
    await t.backend.reconcile();
    await new Promise((r) => setTimeout(r, 50));
    expect(st.frames.length).toBe(count);
    expect(st.frames.filter((f) => f.type === "labels_changed").map((f) => f.data.status)).toEqual(["waiting-for-customer"]);
    await st.close();
  });

  it("a poll racing the kit's own label write, and the write's late echoes, never flip the status: one labels_changed per real change", async () => {
    const t = await setup();
    const c = cust();
    const id = await t.create(c);
    const n = t.numberOf(id);
    const st = await t.stream(id, c);
    let release!: () => void;
    t.gh.holdStatusWrites(new Promise<void>((r) => (release = r)));
    expect((await t.post(id, c, "any news?")).status).toBe(200);
    // GitHub still shows `new`: the label write is in flight
    expect(t.gh.issues.get(n)!.labels).toEqual(["new"]);
    await t.backend.reconcile();
    expect((await t.detail(id, c)).body.issue.status).toBe("waiting-for-agent");
    release();
    t.gh.holdStatusWrites(undefined);
    await until(() => t.gh.issues.get(n)!.labels.join() === "waiting-for-agent", "label written");
    // an agent answers; then the echoes of the kit's earlier label writes arrive late
    const cm = t.gh.agentComment(n, "octo-agent", "on it");
    await t.hook("issue_comment", { action: "created", issue: t.gh.issueJson(n), comment: t.gh.commentJson(cm) });
    const stale = { ...t.gh.issueJson(n), labels: [{ name: "waiting-for-agent" }] };
    await t.hook("issues", { action: "labeled", label: { name: "waiting-for-agent" }, issue: stale, sender: { login: BOT } });
    await t.hook("issues", { action: "unlabeled", label: { name: "new" }, issue: stale, sender: { login: BOT } });
    await t.backend.reconcile();
    expect((await t.detail(id, c)).body.issue.status).toBe("waiting-for-customer");
    await until(() => t.gh.issues.get(n)!.labels.join() === "waiting-for-customer", "label follows the reply");
    await t.backend.reconcile();
    await new Promise((r) => setTimeout(r, 50));
    expect(st.frames.filter((f) => f.type === "labels_changed").map((f) => f.data.status)).toEqual([
      "waiting-for-agent",
      "waiting-for-customer",
    ]);
    await st.close();
  });

  it("the poll reads a lost agent reply from the messages it brings, whatever the clocks: a kit clock ahead of GitHub's, a webhook delivered after the lost one", async () => {
    // the kit's clock runs 10 s ahead of GitHub's: the mirror's last change is "later" than the agent's reply
    const ahead = await setup({ service: { clock: { now: () => Date.now() + 10_000 } } });
    const c1 = cust();
    const id1 = await ahead.create(c1);
    const n1 = ahead.numberOf(id1);
    ahead.gh.agentComment(n1, "octo-agent", "answered, webhook lost");
    await ahead.backend.reconcile();
    expect((await ahead.detail(id1, c1)).body.issue.status).toBe("waiting-for-customer");
    await until(() => ahead.gh.issues.get(n1)!.labels.join() === "waiting-for-customer", "label follows on GitHub");

    // the agent's reply webhook is lost; the agent assigns the issue to themselves a few seconds later, and that
    // webhook arrives: the mirror's last change is now after the reply
    let skew = 0;
    const t = await setup({ service: { clock: { now: () => Date.now() + skew } } });
    const c = cust();
    const id = await t.create(c);
    const n = t.numberOf(id);
    const st = await t.stream(id, c);
    t.gh.agentComment(n, "octo-agent", "on it, webhook lost");
    skew = 5_000;
    t.gh.issues.get(n)!.assignee = { login: "octo-agent" };
    await t.hook("issues", { action: "assigned", issue: t.gh.issueJson(n), assignee: { login: "octo-agent" } });
    await until(() => st.types().includes("assignee_changed"), "assignment");
    await t.backend.reconcile();
    expect((await t.detail(id, c)).body.issue).toMatchObject({ status: "waiting-for-customer" });
    await until(() => t.gh.issues.get(n)!.labels.join() === "waiting-for-customer", "label follows the reply");
    // idempotent: another poll, and the late webhook of the reply itself, change nothing
    const count = st.frames.length;
    const late = t.gh.comments.find((x) => x.issue === n)!;
    await t.hook("issue_comment", { action: "created", issue: t.gh.issueJson(n), comment: t.gh.commentJson(late) });
    await t.backend.reconcile();
    await new Promise((r) => setTimeout(r, 50));
    expect(st.frames.length).toBe(count);
    expect(st.frames.filter((f) => f.type === "labels_changed").map((f) => f.data.status)).toEqual(["waiting-for-customer"]);
    await st.close();
  });

  it("a status an agent set on GitHub after the last message stands through polls, with a kit clock behind GitHub's", async () => {
    // the kit's clock runs 10 s behind GitHub's: every message reads as newer than the mirror's last change
    const t = await setup({ service: { clock: { now: () => Date.now() - 10_000 } } });
    const c = cust();
    const id = await t.create(c);
    const n = t.numberOf(id);
    expect((await t.post(id, c, "any news?")).status).toBe(200);
    await until(() => t.gh.issues.get(n)!.labels.join() === "waiting-for-agent", "label written");
    const st = await t.stream(id, c);
    // an agent asks the customer by other means and moves the label by hand
    t.gh.issues.get(n)!.labels = ["waiting-for-customer"];
    await t.hook("issues", { action: "labeled", label: { name: "waiting-for-customer" }, issue: t.gh.issueJson(n) });
    expect((await t.detail(id, c)).body.issue.status).toBe("waiting-for-customer");
    const writes = t.gh.requests.filter((r) => r.method !== "GET").length;
    await t.backend.reconcile();
    await t.backend.reconcile();
    await new Promise((r) => setTimeout(r, 50));
    expect((await t.detail(id, c)).body.issue.status).toBe("waiting-for-customer");
    expect(st.frames.filter((f) => f.type === "labels_changed").map((f) => f.data.status)).toEqual(["waiting-for-customer"]);
    // and the kit wrote no label back over the agent's
    expect(t.gh.requests.filter((r) => r.method !== "GET").length).toBe(writes);
    expect(t.gh.issues.get(n)!.labels).toEqual(["waiting-for-customer"]);
    await st.close();
  });

  it("a poll while the kit reopens a resolved issue for a customer's message keeps it open", async () => {
    const t = await setup();
    const c = cust();
    const id = await t.create(c);
    const n = t.numberOf(id);
    await call(t.s, "POST", `/api/conversations/${id}/close`, { productSlug: "gh", customerId: c, action: "resolve" });
    await until(() => t.gh.issues.get(n)!.labels.length === 0, "status labels removed");
    const st = await t.stream(id, c);
    let release!: () => void;
    t.gh.holdStatusWrites(new Promise<void>((r) => (release = r)));
    // the reopen goes through; the label write after it is held, so a poll sees the issue mid-change
    expect((await t.post(id, c, "broken again")).status).toBe(200);
    await t.backend.reconcile();
    expect((await t.detail(id, c)).body.issue.status).toBe("waiting-for-agent");
    release();
    t.gh.holdStatusWrites(undefined);
    await until(() => t.gh.issues.get(n)!.state === "open" && t.gh.issues.get(n)!.labels.join() === "waiting-for-agent", "reopened");
    await t.backend.reconcile();
    expect(st.frames.filter((f) => f.type === "state_update").map((f) => f.data.state)).toEqual(["open"]);
    await st.close();
  });

  it("creating a conversation again with the same clientMessageId answers the first and opens no second issue, also under concurrent retries", async () => {
    const t = await setup();
    const c = cust();
    const first = await call(t.s, "POST", "/api/conversations", {
      productSlug: "gh",
      customerId: c,
      message: "hi",
      clientMessageId: "msg_open",
    });
    const again = await call(t.s, "POST", "/api/conversations", {
      productSlug: "gh",
      customerId: c,
      message: "hi",
      clientMessageId: "msg_open",
    });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const racing = await Promise.all(
      Array.from({ length: 5 }, () =>
        call(t.s, "POST", "/api/conversations", { productSlug: "gh", customerId: c, message: "race", clientMessageId: "msg_race" }),
      ),
    );
    expect(new Set(racing.map((r) => r.body.conversationId)).size).toBe(1);
    expect(t.gh.issues.size).toBe(2);
    expect((await call(t.s, "GET", `/api/conversations/list?${t.q(c)}`)).body.conversations).toHaveLength(2);
  });
});

describe("polledStatus", () => {
  const msg = (id: string, isCustomer: boolean, createdAt: string) => ({
    id,
    body: id,
    author: isCustomer ? "Customer" : "octo-agent",
    isCustomer,
    dedupKey: id,
    createdAt,
  });
  const open: GhIssue = { number: 1, title: "t", body: null, state: "open", labels: [], user: null, created_at: "", updated_at: "" };
  const issue = { ...open, labels: [{ name: "waiting-for-agent" }] };
  const body = msg("b", true, "2030-01-01T00:00:00.000Z");

  it("moves an open status only when the last message is one the mirror lacks, as its webhook would have", async () => {
    const { polledStatus } = await import("../src/backends/github/mapping.js");
    const reply = msg("r", false, "2030-01-01T00:00:05.000Z");
    const later = msg("c", true, "2030-01-01T00:00:09.000Z");
    // the reply is new and last: the customer is waited for, whatever the labels say
    expect(polledStatus(issue, [body, reply], "new", new Set(["b"]))).toBe("waiting-for-customer");
    // the same poll again, the reply now mirrored: the status stands, even one set by hand after it
    expect(polledStatus(issue, [body, reply], "waiting-for-customer", new Set(["b", "r"]))).toBe("waiting-for-customer");
    expect(polledStatus(issue, [body, reply], "waiting-for-agent", new Set(["b", "r"]))).toBe("waiting-for-agent");
    // a lost reply older than a customer message the mirror has: the customer wrote last, nothing moves
    expect(polledStatus(issue, [body, reply, later], "waiting-for-agent", new Set(["b", "c"]))).toBe("waiting-for-agent");
    // in one second, GitHub's order decides: the comment listed after the customer's is the last
    const same = "2030-01-01T00:00:09.000Z";
    expect(polledStatus(issue, [body, msg("c", true, same), msg("r", false, same)], "waiting-for-agent", new Set(["b", "c"]))).toBe(
      "waiting-for-customer",
    );
    // nothing stored yet (an adopted issue): the messages alone decide
    expect(polledStatus(open, [body], "new", new Set())).toBe("new");
    expect(polledStatus(open, [body, reply, later], "new", new Set())).toBe("waiting-for-agent");
  });
});
