// The Slack backend against a stand-in Slack Web API on a loopback socket, with Events API requests signed
// by the test's signing secret: threads per conversation, verification, acknowledgement before work,
// event_id dedup, bot messages ignored, human replies as agent messages.
import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import {
  createSupportService,
  inMemorySupportStore,
  parseMetadata,
  type SlackBackendOptions,
  type SupportStore,
  slackBackend,
  stripMetadata,
} from "../src/index.js";
import { fakeSlack } from "./fakes/slack.js";
import { slackEvents } from "./fakes/slack-events.js";
import { call, openStream, until } from "./fakes/streams.js";

const SECRET = "slack-signing-secret";
const CHANNEL = "C0SUPPORT";
const BOT = "UBOT";
const cust = () => `cust_${crypto.randomUUID()}`;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(
  o: { store?: SupportStore; slack?: Awaited<ReturnType<typeof fakeSlack>>; backend?: Partial<SlackBackendOptions> } = {},
) {
  const slack = o.slack ?? (await fakeSlack({ botUserId: BOT }));
  cleanups.push(async () => {
    await slack.close();
    // every call the backend made is a Web API method with arguments Slack's client types allow
    expect(slack.violations).toEqual([]);
  });
  const backend = slackBackend({
    botToken: "xoxb-test",
    signingSecret: SECRET,
    channel: CHANNEL,
    apiUrl: slack.url,
    minWriteIntervalMs: 0,
    reconcileIntervalMs: 0,
    workerPollMs: 50,
    ...o.backend,
  });
  const s = createSupportService({
    products: [{ slug: "chat", backend }],
    store: o.store,
    pruneIntervalMs: 0,
    limits: { rateLimit: 10_000 },
  });
  cleanups.push(() => s.dispose());
  let n = 0;
  async function event(body: unknown, o: { secret?: string; ageSeconds?: number; eventId?: string } = {}) {
    const raw = JSON.stringify(body);
    const ts = String(Math.floor(Date.now() / 1000) - (o.ageSeconds ?? 0));
    const sig = `v0=${createHmac("sha256", o.secret ?? SECRET)
      .update(`v0:${ts}:${raw}`)
      .digest("hex")}`;
    return call(s, "POST", "/agent/webhooks/slack", raw, { "x-slack-signature": sig, "x-slack-request-timestamp": ts });
  }
  const ev = slackEvents(CHANNEL, BOT);
  /** A message event (a person's reply when given plain fields) in an `event_callback` envelope typed by @slack/types. */
  const envelope = (
    e: { user: string; text: string; ts: string; thread_ts?: string } | ReturnType<typeof ev.message>,
    eventId = `Ev${++n}${crypto.randomUUID().slice(0, 8)}`,
  ) => ev.callback("type" in e ? e : ev.message(e), eventId);
  const wrap = (e: Parameters<typeof ev.callback>[0]) => ev.callback(e, `Ev${++n}${crypto.randomUUID().slice(0, 8)}`);
  const create = async (c: string, message = "Cannot log in") => {
    const r = await call(s, "POST", "/api/conversations", { productSlug: "chat", customerId: c, message });
    expect(r.status).toBe(200);
    return r.body.conversationId as string;
  };
  const rootTs = (id: string) => id.split("_").slice(-2).join(".");
  const q = (c: string) => `productSlug=chat&customerId=${c}`;
  const stream = (id: string, c: string) => openStream(s, `/api/conversations/${id}/stream?${q(c)}`);
  return { slack, backend, s, event, envelope, wrap, ev, create, rootTs, q, stream };
}

describe("Slack backend", () => {
  it("a conversation is a channel thread: root post with metadata, customer messages as thread replies", async () => {
    const t = await setup();
    const c = cust();
    const id = await t.create(c);
    expect(t.slack.posted[0]).toMatchObject({ channel: CHANNEL, text: "*Cannot log in*\nCannot log in", thread_ts: undefined });
    expect(t.slack.posted[0]!.metadata).toEqual({ event_type: "mountkit_customer_message", event_payload: { customerId: c } });
    const m = await call(t.s, "POST", `/api/conversations/${id}/messages`, {
      productSlug: "chat",
      customerId: c,
      message: "still broken",
      clientMessageId: "msg_1",
    });
    const again = await call(t.s, "POST", `/api/conversations/${id}/messages`, {
      productSlug: "chat",
      customerId: c,
      message: "still broken",
      clientMessageId: "msg_1",
    });
    expect(again.body).toEqual(m.body);
    expect(t.slack.posted).toHaveLength(2);
    expect(t.slack.posted[1]).toMatchObject({ thread_ts: t.slack.posted[0]!.ts, text: "*Customer:* still broken" });
    const d = await call(t.s, "GET", `/api/conversations/${id}?${t.q(c)}`);
    expect(d.body.issue).toMatchObject({ status: "waiting-for-agent", state: "open" });
    expect(parseMetadata(d.body.comments[0].body)).toEqual({ customerId: c, clientMessageId: "msg_1" });
    expect((await call(t.s, "GET", `/api/conversations/${id}?${t.q(cust())}`)).status).toBe(404);
  });

  it("answers url_verification; refuses bad signatures and requests older than five minutes", async () => {
    const t = await setup();
    const ok = await t.event({ type: "url_verification", challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" });
    expect((await t.event({ type: "url_verification", challenge: "x" }, { secret: "wrong" })).status).toBe(401);
    expect((await t.event({ type: "url_verification", challenge: "x" }, { ageSeconds: 6 * 60 })).status).toBe(401);
    expect((await t.event({ type: "url_verification", challenge: "x" }, { ageSeconds: 4 * 60 })).status).toBe(200);
  });

  it("a person's thread reply becomes an agent message (new_comment, waiting-for-customer); event_id dedups; bots are ignored", async () => {
    const t = await setup();
    const c = cust();
    const id = await t.create(c);
    const root = t.rootTs(id);
    const st = await t.stream(id, c);
    const reply = { user: "U123", text: "Try resetting your password", ts: t.slack.nextTs(), thread_ts: root };
    const env = t.envelope(reply);
    expect((await t.event(env)).status).toBe(200);
    expect((await t.event(env)).body).toMatchObject({ duplicate: true });
    // a bot (any), the kit's own bot user, a top-level message, another channel: all ignored
    await t.event(t.envelope(t.ev.message({ user: "U0APP", bot_id: "B1", text: "beep", ts: t.slack.nextTs(), thread_ts: root })));
    await t.event(t.envelope({ user: BOT, text: "my own echo", ts: t.slack.nextTs(), thread_ts: root }));
    await t.event(t.wrap(t.ev.botMessage({ bot_id: "B2", text: "integration", ts: t.slack.nextTs(), thread_ts: root })));
    await t.event(t.envelope({ user: "U123", text: "top level", ts: t.slack.nextTs() }));
    await t.event(
      t.wrap({ ...t.ev.message({ user: "U123", text: "elsewhere", ts: t.slack.nextTs(), thread_ts: root }), channel: "C0OTHER" }),
    );
    await t.backend.idle();
    await until(() => st.types().includes("labels_changed"), "events");
    expect(st.frames.filter((f) => f.type === "new_comment").map((f) => f.data)).toEqual([
      expect.objectContaining({ body: "Try resetting your password", author: "Ann (U123)", isCustomer: false }),
    ]);
    expect(st.frames.find((f) => f.type === "labels_changed")!.data).toMatchObject({ status: "waiting-for-customer" });
    const d = await call(t.s, "GET", `/api/conversations/${id}?${t.q(c)}`);
    expect(d.body.comments.map((x: any) => x.body)).toEqual(["Try resetting your password"]);
    await st.close();
  });

  it("acknowledges before doing the work", async () => {
    const t = await setup();
    const c = cust();
    const id = await t.create(c);
    let open!: () => void;
    t.slack.holdUsersInfo(new Promise<void>((r) => (open = r)));
    const r = await t.event(t.envelope({ user: "U999", text: "slow lookup", ts: t.slack.nextTs(), thread_ts: t.rootTs(id) }));
    expect(r.status).toBe(200);
    // answered while the work (the users.info lookup) is still held
    expect((await call(t.s, "GET", `/api/conversations/${id}?${t.q(c)}`)).body.comments).toHaveLength(0);
    open();
    await t.backend.idle();
    expect((await call(t.s, "GET", `/api/conversations/${id}?${t.q(c)}`)).body.comments).toHaveLength(1);
  });

  it("edits and deletions in the thread become comment_edited and comment_deleted; deleting the root deletes the conversation", async () => {
    const t = await setup();
    const c = cust();
    const id = await t.create(c);
    const root = t.rootTs(id);
    const ts = t.slack.nextTs();
    await t.event(t.envelope({ user: "U123", text: "v1", ts, thread_ts: root }));
    await t.backend.idle();
    const st = await t.stream(id, c);
    const v1 = t.ev.message({ user: "U123", text: "v1", ts, thread_ts: root });
    const v2 = { ...v1, text: "v2", edited: { user: "U123", ts: t.slack.nextTs() } };
    await t.event(t.wrap(t.ev.changed(v2, v1, t.slack.nextTs())));
    await t.event(t.wrap(t.ev.deleted(v2, t.slack.nextTs())));
    await t.backend.idle();
    await until(() => st.types().includes("comment_deleted"), "edit/delete");
    expect(st.frames.find((f) => f.type === "comment_edited")!.data).toMatchObject({ body: "v2" });
    await t.event(t.wrap(t.ev.deleted(t.ev.botMessage({ bot_id: "BKIT", text: "root", ts: root }), t.slack.nextTs())));
    await t.backend.idle();
    await st.ended;
    expect(st.types().at(-1)).toBe("issue_deleted");
  });

  it("close and resolve post a thread note; a 429 from Slack is retried after Retry-After", async () => {
    const t = await setup();
    const c = cust();
    const id = await t.create(c);
    t.slack.rateLimit(1);
    const r = await call(t.s, "POST", `/api/conversations/${id}/close`, { productSlug: "chat", customerId: c, action: "resolve" });
    expect(r.status).toBe(200);
    expect(t.slack.calls.filter((x) => x.status === 429)).toHaveLength(1);
    expect(t.slack.posted.at(-1)).toMatchObject({ thread_ts: t.rootTs(id), text: expect.stringContaining("resolved") });
    expect((await call(t.s, "GET", `/api/conversations/${id}?${t.q(c)}`)).body.issue).toMatchObject({
      status: "resolved",
      state: "closed",
    });
  });

  it("customer text is shown, never interpreted: &, < and > are escaped in Slack; the customer reads back what they wrote", async () => {
    const t = await setup();
    const c = cust();
    const evil = "<!channel> pay <https://evil.example|your invoice> & ask <@U0ADMIN> > now";
    const r = await call(t.s, "POST", "/api/conversations", { productSlug: "chat", customerId: c, message: evil });
    expect(r.status).toBe(200);
    const id = r.body.conversationId as string;
    expect(
      (await call(t.s, "POST", `/api/conversations/${id}/messages`, { productSlug: "chat", customerId: c, message: evil })).status,
    ).toBe(200);
    const escaped = "&lt;!channel&gt; pay &lt;https://evil.example|your invoice&gt; &amp; ask &lt;@U0ADMIN&gt; &gt; now";
    expect(t.slack.posted.map((p) => p.text)).toEqual([`*${escaped}*\n${escaped}`, `*Customer:* ${escaped}`]);
    for (const p of t.slack.posted) expect(p.text).not.toMatch(/<[!@h]/);
    const d = await call(t.s, "GET", `/api/conversations/${id}?${t.q(c)}`);
    expect(d.body.issue.title).toBe(evil);
    expect(stripMetadata(d.body.issue.body)).toBe(evil);
    expect(stripMetadata(d.body.comments[0].body)).toBe(evil);
  });

  it("an acknowledged event survives its service: the work failed mid-way, the service was disposed, a new one on the same store catches up", async () => {
    const store = inMemorySupportStore();
    const slack = await fakeSlack({ botUserId: BOT });
    const a = await setup({ store, slack });
    const c = cust();
    const id = await a.create(c);
    const reply = slack.humanReply(a.rootTs(id), "U777", "Answer acknowledged before a crash");
    slack.setDown(true);
    const acked = await a.event(a.envelope({ user: reply.user, text: reply.text, ts: reply.ts, thread_ts: reply.thread_ts }, "EvCrash1"));
    expect(acked.status).toBe(200);
    await until(() => slack.calls.some((x) => x.status === 503), "the first attempt fails");
    await a.s.dispose();
    expect((await store.jobs!.counts(`support.slack.${/^sl_([0-9a-f]+)_/.exec(id)![1]}`)).queued).toBe(1);
    slack.setDown(false);
    const b = await setup({ store, slack });
    await until(async () => (await call(b.s, "GET", `/api/conversations/${id}?${b.q(c)}`)).body.comments.length === 1, "caught up", 10_000);
    const d = await call(b.s, "GET", `/api/conversations/${id}?${b.q(c)}`);
    expect(d.body.comments.map((x: any) => [x.body, x.author, x.isCustomer])).toEqual([[reply.text, "Ann (U777)", false]]);
    expect(d.body.issue.status).toBe("waiting-for-customer");
    // a redelivery of the same event is one job, already done
    expect(
      (await b.event(b.envelope({ user: reply.user, text: reply.text, ts: reply.ts, thread_ts: reply.thread_ts }, "EvCrash1"))).body,
    ).toMatchObject({
      duplicate: true,
    });
    await b.backend.idle();
    expect((await call(b.s, "GET", `/api/conversations/${id}?${b.q(c)}`)).body.comments).toHaveLength(1);
  });

  it("the reconciliation pass over conversations.replies adds replies whose events were lost, applies edits and deletions, every page", async () => {
    const slack = await fakeSlack({ botUserId: BOT, repliesPageSize: 2 });
    const t = await setup({ slack });
    const c = cust();
    const id = await t.create(c);
    const gone = await t.create(c, "this thread will be deleted");
    const root = t.rootTs(id);
    await call(t.s, "POST", `/api/conversations/${id}/messages`, { productSlug: "chat", customerId: c, message: "anyone?" });
    const st = await t.stream(id, c);
    const first = slack.humanReply(root, "U1", "first, event lost");
    const second = slack.humanReply(root, "U2", "second, event lost");
    const edited = slack.humanReply(root, "U1", "v1");
    await t.event(t.envelope({ user: "U1", text: "v1", ts: edited.ts, thread_ts: root }));
    await t.backend.idle();
    edited.text = "v2 (edited while events were down)";
    const deleted = slack.humanReply(root, "U3", "to be deleted");
    await t.event(t.envelope({ user: "U3", text: deleted.text, ts: deleted.ts, thread_ts: root }));
    await t.backend.idle();
    const thread = slack.threads.get(root)!;
    thread.splice(thread.indexOf(deleted), 1);
    slack.threads.delete(t.rootTs(gone));
    expect(await t.backend.reconcile()).toEqual({ conversations: 2 });
    const d = await call(t.s, "GET", `/api/conversations/${id}?${t.q(c)}`);
    expect(d.body.comments.map((x: any) => [x.isCustomer, x.isCustomer ? stripMetadata(x.body) : x.body])).toEqual([
      [true, "anyone?"],
      [false, "v2 (edited while events were down)"],
      [false, first.text],
      [false, second.text],
    ]);
    expect(d.body.issue.status).toBe("waiting-for-customer");
    await until(() => st.types().includes("comment_deleted") && st.types().includes("comment_edited"), "stream events");
    expect((await call(t.s, "GET", `/api/conversations/${gone}?${t.q(c)}`)).status).toBe(404);
    // a second pass finds nothing to do
    const before = st.frames.length;
    await t.backend.reconcile();
    await new Promise((r) => setTimeout(r, 50));
    expect(st.frames.length).toBe(before);
    expect(slack.calls.filter((x) => x.method === "conversations.replies").length).toBeGreaterThan(3);
    await st.close();
  });

  it("a retry after a failure that follows the Slack post posts nothing twice: the reply is found by its message metadata", async () => {
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
    const send = () =>
      call(t.s, "POST", `/api/conversations/${id}/messages`, {
        productSlug: "chat",
        customerId: c,
        message: "once",
        clientMessageId: "msg_once",
      });
    failAppend = 1;
    expect((await send()).status).toBe(500);
    expect(t.slack.posted).toHaveLength(2);
    const retry = await send();
    expect(retry.status).toBe(200);
    expect((await send()).body).toEqual(retry.body);
    expect(t.slack.posted).toHaveLength(2);
    const d = await call(t.s, "GET", `/api/conversations/${id}?${t.q(c)}`);
    expect(d.body.comments.map((x: any) => [x.id, parseMetadata(x.body)?.clientMessageId])).toEqual([[retry.body.id, "msg_once"]]);
  });

  it("a message past Slack's 40,000-character limit goes in several thread posts, in order, never cut inside an escape or a surrogate pair", async () => {
    const t = await setup();
    const c = cust();
    // 20,000 characters escape to 48,000: `&` is five characters on Slack, `<` four, the emoji a surrogate pair
    const long = "x&\u{1F600}<".repeat(4000);
    expect(long.length).toBe(20_000);
    const id = await t.create(c, long.slice(0, 19_000));
    const rootParts = t.slack.posted.slice();
    const posted = (await call(t.s, "POST", `/api/conversations/${id}/messages`, { productSlug: "chat", customerId: c, message: long }))
      .body;
    const root = t.rootTs(id);
    // the first message: the thread's root, then its rest in the thread
    expect(rootParts.map((p) => [p.thread_ts, p.metadata?.event_payload.part])).toEqual([
      [undefined, "1/2"],
      [root, "2/2"],
    ]);
    expect(rootParts[0]!.ts).toBe(root);
    const message = t.slack.posted.slice(rootParts.length);
    expect(message.length).toBe(2);
    const escapedPiece = (text: string, i: number) =>
      i === 0 ? text.replace(/^\*Customer:\* /, "") : text.replace(/^_\(\d+\/\d+\)_ /, "");
    expect(message.map((p, i) => escapedPiece(p.text, i)).join("")).toBe(long.replace(/&/g, "&amp;").replace(/</g, "&lt;"));
    expect(message.map((p) => p.metadata?.event_payload.part)).toEqual(["1/2", "2/2"]);
    expect(message.every((p) => p.thread_ts === root)).toBe(true);
    expect(message[1]!.text.startsWith("_(2/2)_ ")).toBe(true);
    for (const p of [...rootParts, ...message]) {
      expect(p.text.length).toBeLessThanOrEqual(40_000);
      // every `&` starts a whole escape, and no piece starts or ends inside a surrogate pair
      expect(p.text).not.toMatch(/&(?!amp;|lt;|gt;)/);
      expect(p.text).not.toMatch(/[\uD800-\uDBFF]$|^[\uDC00-\uDFFF]/);
      const body = escapedPiece(p.text, p === message[0] || p === rootParts[0] ? 0 : 1);
      expect(body).not.toMatch(/^[\uDC00-\uDFFF]/);
    }
    // the customer reads one message, as written
    const d = await call(t.s, "GET", `/api/conversations/${id}?${t.q(c)}`);
    expect(stripMetadata(d.body.issue.body)).toBe(long.slice(0, 19_000));
    expect(d.body.comments.map((x: any) => [x.id, stripMetadata(x.body)])).toEqual([[posted.id, long]]);
  });

  it("an 80,000-character escape of a 20,000-character message is three posts; a retry after a failure mid-way posts only the missing parts", async () => {
    const t = await setup();
    const c = cust();
    const id = await t.create(c);
    const angles = "<".repeat(20_000);
    const send = () =>
      call(t.s, "POST", `/api/conversations/${id}/messages`, {
        productSlug: "chat",
        customerId: c,
        message: angles,
        clientMessageId: "msg_long",
      });
    t.slack.failPostAfter(1);
    expect((await send()).status).toBe(502);
    expect(t.slack.posted.slice(1).map((p) => p.metadata?.event_payload.part)).toEqual(["1/3"]);
    const retry = await send();
    expect(retry.status).toBe(200);
    const parts = t.slack.posted.slice(1);
    expect(parts.map((p) => p.metadata?.event_payload.part)).toEqual(["1/3", "2/3", "3/3"]);
    expect(parts.map((p) => p.text.replace(/^(\*Customer:\*|_\(\d\/3\)_) /, "")).join("")).toBe("&lt;".repeat(20_000));
    for (const p of parts) expect(p.text.length).toBeLessThanOrEqual(40_000);
    const d = await call(t.s, "GET", `/api/conversations/${id}?${t.q(c)}`);
    expect(d.body.comments.map((x: any) => stripMetadata(x.body))).toEqual([angles]);
  });

  it("a person's Slack text reaches the customer decoded: escapes, mentions by name (else @id), links, channels and broadcasts; edits and passes alike", async () => {
    const t = await setup();
    const c = cust();
    const id = await t.create(c);
    const root = t.rootTs(id);
    t.slack.forgetUser("UGONE");
    const text =
      "See <https://example.com/docs?a=1&amp;b=2|the docs> &amp; ask <@U123> or <@UGONE>, <!here> &lt;3 <#C0SUPPORT|support> <mailto:ann@example.com|ann@example.com> <https://example.com/x>";
    const decoded =
      "See the docs (https://example.com/docs?a=1&b=2) & ask @Ann (U123) or @UGONE, @here <3 #support ann@example.com https://example.com/x";
    const reply = t.slack.humanReply(root, "U123", text);
    await t.event(t.envelope({ user: "U123", text, ts: reply.ts, thread_ts: root }));
    await t.backend.idle();
    const st = await t.stream(id, c);
    const bodies = async () => (await call(t.s, "GET", `/api/conversations/${id}?${t.q(c)}`)).body.comments.map((x: any) => x.body);
    expect(await bodies()).toEqual([decoded]);
    // an edit is decoded too
    const v2 = { ...t.ev.message({ user: "U123", text, ts: reply.ts, thread_ts: root }), text: "now &lt;b&gt; &amp; <!channel>" };
    reply.text = v2.text;
    await t.event(t.wrap(t.ev.changed(v2, t.ev.message({ user: "U123", text, ts: reply.ts, thread_ts: root }), t.slack.nextTs())));
    await t.backend.idle();
    expect(await bodies()).toEqual(["now <b> & @channel"]);
    // the reconciliation pass reads the thread the same way: nothing to change
    await t.backend.reconcile();
    await new Promise((r) => setTimeout(r, 50));
    expect(st.types().filter((x) => x === "comment_edited")).toHaveLength(1);
    expect(await bodies()).toEqual(["now <b> & @channel"]);
    await st.close();
  });

  it("creating a conversation again with the same clientMessageId answers the first and starts no second thread, also under concurrent retries", async () => {
    const t = await setup();
    const c = cust();
    const body = (m: string, k: string) => ({ productSlug: "chat", customerId: c, message: m, clientMessageId: k });
    const first = await call(t.s, "POST", "/api/conversations", body("hi", "msg_open"));
    const again = await call(t.s, "POST", "/api/conversations", body("hi", "msg_open"));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const racing = await Promise.all(Array.from({ length: 5 }, () => call(t.s, "POST", "/api/conversations", body("race", "msg_race"))));
    expect(new Set(racing.map((r) => r.body.conversationId)).size).toBe(1);
    expect(t.slack.posted.filter((p) => p.thread_ts === undefined)).toHaveLength(2);
  });
});

describe("splitSlackText", () => {
  it("cuts at the limit, but never inside an escape or a surrogate pair, and prefers a line break in the back half", async () => {
    const { splitSlackText } = await import("../src/backends/display.js");
    // a cut at 10 would split `&amp;` (at 8..12): the escape moves whole to the next piece
    expect(splitSlackText("abcdefgh&amp;ij", 10)).toEqual(["abcdefgh", "&amp;ij"]);
    expect(splitSlackText("abcdefg&lt;xyz", 9)).toEqual(["abcdefg", "&lt;xyz"]);
    // a cut at 10 would split the emoji's surrogate pair (at 9..10)
    expect(splitSlackText("abcdefghi\u{1F600}jk", 10)).toEqual(["abcdefghi", "\u{1F600}jk"]);
    expect(splitSlackText("abcdef\nghijklmn", 10)).toEqual(["abcdef\n", "ghijklmn"]);
    expect(splitSlackText("short", 10)).toEqual(["short"]);
    for (const text of ["&amp;".repeat(50), "a\u{1F600}&lt;".repeat(40), "x".repeat(95)]) {
      const pieces = splitSlackText(text, 17);
      expect(pieces.join("")).toBe(text);
      for (const p of pieces) {
        expect(p.length).toBeLessThanOrEqual(17);
        expect(p).not.toMatch(/&(?!amp;|lt;|gt;)|[\uD800-\uDBFF]$|^[\uDC00-\uDFFF]/);
      }
    }
  });
});
