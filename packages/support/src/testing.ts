// The SupportStore conformance suite: every store implementation (memory, SQLite, PostgreSQL, third-party) runs it.
import { refusedOrAnswered, type SkipGroup, skipLookup } from "@mountkit/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ConversationRecord, Enqueue, EventInput, MessageRecord, SupportStore } from "./store/types.js";

export interface DescribeSupportStoreOptions {
  /** Tests to skip, each group with the reason written down. */
  skip?: SkipGroup[];
}

const T0 = Date.parse("2030-01-01T00:00:00.000Z");
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

let counter = 0;
const uid = (p: string) => `${p}_${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 8)}`;

function conversationInput(o: Partial<ConversationRecord> & { id?: string } = {}) {
  const id = o.id ?? uid("conv");
  const messageId = uid("cmt");
  const createdAt = o.createdAt ?? at(0);
  return {
    conversation: {
      id,
      productSlug: o.productSlug ?? "p1",
      customerId: o.customerId ?? "cust_a",
      subject: o.subject ?? "Hello",
      status: o.status ?? "new",
      labels: o.labels ?? [],
      assignee: o.assignee ?? null,
      firstMessageId: messageId,
      createdAt,
      updatedAt: o.updatedAt ?? createdAt,
    },
    message: {
      id: messageId,
      conversationId: id,
      body: "first",
      author: "Customer",
      isCustomer: true,
      clientMessageId: null,
      createdAt,
      updatedAt: createdAt,
    },
    events: [{ type: "new_comment", data: { id: messageId }, createdAt }] as EventInput[],
  };
}

const message = (conversationId: string, o: Partial<MessageRecord> = {}): Omit<MessageRecord, "seq"> => ({
  id: o.id ?? uid("cmt"),
  conversationId,
  body: o.body === undefined ? "hi" : o.body,
  author: o.author ?? "Customer",
  isCustomer: o.isCustomer ?? true,
  clientMessageId: o.clientMessageId ?? null,
  createdAt: o.createdAt ?? at(1),
  updatedAt: o.updatedAt ?? o.createdAt ?? at(1),
});

const event = (type: string, s = 1, data: unknown = { n: s }): EventInput => ({ type, data, createdAt: at(s) });

/** Creating, reading back, refusing or keeping odd input, and records as values. */
function basicTests(test: StoreTest) {
  test("creates a conversation with its first message at seq 1", async (store) => {
    const input = conversationInput();
    const r = await store.createConversation(input);
    expect(r.seqs).toEqual([1]);
    expect(r.conversation).toMatchObject({ ...input.conversation, lastSeq: 1, deletedAt: null });
    expect(r.message).toMatchObject({ ...input.message, seq: 1 });
    expect(await store.getConversation({ id: input.conversation.id })).toEqual(r.conversation);
    expect(await store.listMessages({ conversationId: input.conversation.id })).toEqual([r.message]);
    expect(await store.getMessage({ conversationId: input.conversation.id, id: input.message.id })).toEqual(r.message);
  });

  test("unknown ids read as null or empty", async (store) => {
    expect(await store.getConversation({ id: "conv_missing" })).toBeNull();
    expect(await store.listMessages({ conversationId: "conv_missing" })).toEqual([]);
    expect(await store.getMessage({ conversationId: "conv_missing", id: "x" })).toBeNull();
    expect(await store.readEvents({ conversationId: "conv_missing", afterSeq: 0, limit: 10 })).toEqual({ events: [], prunedThrough: 0 });
  });

  test("text holding NUL is refused with a 400 or kept exactly; lookups by such text find nothing", async (store) => {
    const input = conversationInput({ subject: "sub\u0000ject", labels: ["l\u0000"] });
    const created = await refusedOrAnswered(() => store.createConversation(input));
    if (!created.refused) expect((await store.getConversation({ id: input.conversation.id }))?.subject).toBe("sub\u0000ject");
    const ok = conversationInput();
    await store.createConversation(ok);
    const appended = await refusedOrAnswered(() =>
      store.appendMessage({
        conversationId: ok.conversation.id,
        expectedSeq: 1,
        message: message(ok.conversation.id, { body: "x\u0000" }),
        patch: {},
        events: [],
      }),
    );
    if (!appended.refused) expect(appended.value.ok).toBe(true);
    const reads: Array<[() => Promise<unknown>, unknown]> = [
      [() => store.getConversation({ id: "conv\u0000" }), null],
      [() => store.getMessage({ conversationId: ok.conversation.id, id: "cmt\u0000" }), null],
      [() => store.listMessages({ conversationId: "conv\u0000" }), []],
      [() => store.listConversations({ productSlug: "p\u0000" }), []],
      [() => store.listConversations({ productSlug: "p1", customerId: "cust\u0000" }), []],
      [() => store.listConversations({ productSlug: "p1", label: "l\u0000x" }), []],
    ];
    for (const [op, empty] of reads) {
      const r = await refusedOrAnswered(op);
      if (!r.refused) expect(r.value).toEqual(empty);
    }
  });

  test("a sequence or page bound that is not a safe integer is refused with a 400 or read as a number", async (store) => {
    const input = conversationInput();
    await store.createConversation(input);
    for (const n of [1.5, 1e20]) {
      const ev = await refusedOrAnswered(() => store.readEvents({ conversationId: input.conversation.id, afterSeq: n, limit: 10 }));
      if (!ev.refused) expect(ev.value.events).toEqual([]);
      const page = await refusedOrAnswered(() => store.listConversations({ productSlug: "p1", limit: n }));
      if (!page.refused) expect(Array.isArray(page.value)).toBe(true);
    }
  });

  test("records are values: changing a returned record changes nothing stored", async (store) => {
    const input = conversationInput({ labels: ["a"] });
    const r = await store.createConversation(input);
    r.conversation.labels.push("mutated");
    r.conversation.subject = "mutated";
    const again = await store.getConversation({ id: input.conversation.id });
    expect(again?.labels).toEqual(["a"]);
    expect(again?.subject).toBe("Hello");
  });
}

/** Listing: order and keyset pages, filters, search. */
function listTests(test: StoreTest) {
  test("lists by most recent activity, then id, with keyset pagination", async (store) => {
    const p = uid("prod");
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const input = conversationInput({ productSlug: p, updatedAt: at(i % 3), id: `conv_${p}_${i}` });
      await store.createConversation(input);
      ids.push(input.conversation.id);
    }
    const all = await store.listConversations({ productSlug: p });
    const expected = [...ids].sort((a, b) => {
      const ua = at(Number(a.slice(-1)) % 3);
      const ub = at(Number(b.slice(-1)) % 3);
      return ua === ub ? (a < b ? 1 : -1) : ua < ub ? 1 : -1;
    });
    expect(all.map((c) => c.id)).toEqual(expected);
    const page1 = await store.listConversations({ productSlug: p, limit: 2 });
    expect(page1.map((c) => c.id)).toEqual(expected.slice(0, 2));
    const last = page1[1]!;
    const page2 = await store.listConversations({ productSlug: p, limit: 2, after: { updatedAt: last.updatedAt, id: last.id } });
    expect(page2.map((c) => c.id)).toEqual(expected.slice(2, 4));
    const l2 = page2[1]!;
    const page3 = await store.listConversations({ productSlug: p, limit: 2, after: { updatedAt: l2.updatedAt, id: l2.id } });
    expect(page3.map((c) => c.id)).toEqual(expected.slice(4));
  });

  test("filters by product, customer, statuses, label and assignee", async (store) => {
    const p = uid("prod");
    const a = conversationInput({ productSlug: p, customerId: "cust_x", status: "new", labels: ["billing"], assignee: "ann" });
    const b = conversationInput({ productSlug: p, customerId: "cust_y", status: "closed", labels: ["bug"], assignee: null });
    const c = conversationInput({ productSlug: uid("other"), customerId: "cust_x" });
    for (const x of [a, b, c]) await store.createConversation(x);
    const ids = async (q: Parameters<SupportStore["listConversations"]>[0]) => (await store.listConversations(q)).map((r) => r.id).sort();
    expect(await ids({ productSlug: p })).toEqual([a.conversation.id, b.conversation.id].sort());
    expect(await ids({ productSlug: p, customerId: "cust_x" })).toEqual([a.conversation.id]);
    expect(await ids({ productSlug: p, statuses: ["closed", "resolved"] })).toEqual([b.conversation.id]);
    expect(await ids({ productSlug: p, label: "billing" })).toEqual([a.conversation.id]);
    expect(await ids({ productSlug: p, label: "bill" })).toEqual([]);
    expect(await ids({ productSlug: p, assignee: "ann" })).toEqual([a.conversation.id]);
    expect(await ids({ productSlug: p, assignee: null })).toEqual([b.conversation.id]);
  });

  test("searches subject, customer id and message text (ASCII case folded, wildcards literal, metadata not text)", async (store) => {
    const p = uid("prod");
    const a = conversationInput({ productSlug: p, customerId: "cust_alpha", subject: "Refund for ORDER 77" });
    const b = conversationInput({ productSlug: p, customerId: "cust_beta", subject: "Login trouble" });
    const c = conversationInput({ productSlug: p, customerId: "cust_gamma", subject: "100% off_sale" });
    for (const x of [a, b, c]) await store.createConversation(x);
    const reply = await store.appendMessage({
      conversationId: b.conversation.id,
      expectedSeq: 1,
      message: message(b.conversation.id, {
        body: "The Password reset mail never came\n\n<!-- cs:customerId=cust_beta;clientMessageId=zebra -->",
      }),
      patch: {},
      events: [event("new_comment", 2)],
    });
    expect(reply.ok).toBe(true);
    const ids = async (q: string, extra: Partial<Parameters<SupportStore["listConversations"]>[0]> = {}) =>
      (await store.listConversations({ productSlug: p, q, ...extra })).map((r) => r.id).sort();
    expect(await ids("order 77")).toEqual([a.conversation.id]);
    expect(await ids("REFUND")).toEqual([a.conversation.id]);
    expect(await ids("password RESET")).toEqual([b.conversation.id]);
    expect(await ids("cust_gam")).toEqual([c.conversation.id]);
    // the hidden block is not the message's text
    expect(await ids("zebra")).toEqual([]);
    expect(await ids("cs:")).toEqual([]);
    // LIKE wildcards are plain characters
    expect(await ids("%")).toEqual([c.conversation.id]);
    expect(await ids("0%_o")).toEqual([]);
    expect(await ids("% off_")).toEqual([c.conversation.id]);
    expect(await ids("o_d")).toEqual([]);
    expect(await ids("\\")).toEqual([]);
    expect(await ids("nothing like this")).toEqual([]);
    // combined with the other filters and the page
    expect(await ids("cust_", { customerId: "cust_alpha" })).toEqual([a.conversation.id]);
    expect((await store.listConversations({ productSlug: p, q: "cust_", limit: 2 })).length).toBe(2);
    expect(await ids("order", { productSlug: uid("other") })).toEqual([]);
  });
}

/** Appending messages: atomic writes, stale sequences, missing conversations. */
function appendTests(test: StoreTest) {
  test("appendMessage inserts, patches and appends events atomically", async (store) => {
    const input = conversationInput();
    const id = input.conversation.id;
    await store.createConversation(input);
    const m = message(id);
    const r = await store.appendMessage({
      conversationId: id,
      expectedSeq: 1,
      message: m,
      patch: { status: "waiting-for-agent", updatedAt: at(1) },
      events: [event("new_comment"), event("labels_changed")],
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.seqs).toEqual([2, 3]);
    expect(r.message).toEqual({ ...m, seq: 2 });
    expect(r.conversation).toMatchObject({ status: "waiting-for-agent", updatedAt: at(1), lastSeq: 3 });
    const evs = await store.readEvents({ conversationId: id, afterSeq: 1, limit: 10 });
    expect(evs.events.map((e) => [e.seq, e.type, e.conversationId])).toEqual([
      [2, "new_comment", id],
      [3, "labels_changed", id],
    ]);
    expect(evs.events[0]!.data).toEqual({ n: 1 });
    expect((await store.listMessages({ conversationId: id })).map((x) => x.id)).toEqual([input.message.id, m.id]);
  });

  test("a stale expectedSeq is a conflict and writes nothing", async (store) => {
    const input = conversationInput();
    const id = input.conversation.id;
    await store.createConversation(input);
    const r = await store.appendMessage({
      conversationId: id,
      expectedSeq: 0,
      message: message(id),
      patch: { status: "closed" },
      events: [event("x")],
    });
    expect(r).toEqual({ ok: false, reason: "conflict" });
    const u = await store.updateConversation({ conversationId: id, expectedSeq: 5, patch: { status: "closed" }, events: [event("x")] });
    expect(u).toEqual({ ok: false, reason: "conflict" });
    expect((await store.getConversation({ id }))?.status).toBe("new");
    expect((await store.getConversation({ id }))?.lastSeq).toBe(1);
    expect(await store.listMessages({ conversationId: id })).toHaveLength(1);
  });

  test("writes to a missing conversation are not_found", async (store) => {
    expect(
      await store.appendMessage({ conversationId: "conv_nope", expectedSeq: 0, message: message("conv_nope"), patch: {}, events: [] }),
    ).toEqual({ ok: false, reason: "not_found" });
    expect(await store.updateConversation({ conversationId: "conv_nope", expectedSeq: 0, patch: {}, events: [] })).toEqual({
      ok: false,
      reason: "not_found",
    });
    expect(
      (
        await store.updateMessage({
          conversationId: "conv_nope",
          expectedSeq: 0,
          messageId: "m",
          body: "x",
          updatedAt: at(1),
          patch: {},
          events: [],
        })
      ).ok,
    ).toBe(false);
    expect((await store.deleteMessage({ conversationId: "conv_nope", expectedSeq: 0, messageId: "m", patch: {}, events: [] })).ok).toBe(
      false,
    );
    expect((await store.deleteConversation({ conversationId: "conv_nope", expectedSeq: 0, deletedAt: at(1), events: [] })).ok).toBe(false);
  });
}

/** Deduplication on clientMessageId, sequential and concurrent. */
function dedupTests(test: StoreTest) {
  test("a repeated clientMessageId answers the original and writes nothing, whatever expectedSeq", async (store) => {
    const input = conversationInput();
    const id = input.conversation.id;
    await store.createConversation(input);
    const first = await store.appendMessage({
      conversationId: id,
      expectedSeq: 1,
      message: message(id, { clientMessageId: "msg_1" }),
      patch: {},
      events: [event("new_comment")],
    });
    expect(first.ok).toBe(true);
    const again = await store.appendMessage({
      conversationId: id,
      expectedSeq: 0,
      message: message(id, { clientMessageId: "msg_1", body: "other" }),
      patch: {},
      events: [event("new_comment")],
    });
    expect(again.ok).toBe(false);
    if (again.ok || again.reason !== "duplicate" || !first.ok) throw new Error("expected duplicate");
    expect(again.message).toEqual(first.message);
    expect((await store.getConversation({ id }))?.lastSeq).toBe(2);
    // the key is per conversation
    const other = conversationInput();
    await store.createConversation(other);
    const elsewhere = await store.appendMessage({
      conversationId: other.conversation.id,
      expectedSeq: 1,
      message: message(other.conversation.id, { clientMessageId: "msg_1" }),
      patch: {},
      events: [event("new_comment")],
    });
    expect(elsewhere.ok).toBe(true);
  });

  test("concurrent appends with one clientMessageId create exactly one message", async (store) => {
    const input = conversationInput();
    const id = input.conversation.id;
    await store.createConversation(input);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        store.appendMessage({
          conversationId: id,
          expectedSeq: 1,
          message: message(id, { clientMessageId: "msg_race" }),
          patch: {},
          events: [event("new_comment")],
        }),
      ),
    );
    const ok = results.filter((r) => r.ok);
    expect(ok).toHaveLength(1);
    for (const r of results) if (!r.ok) expect(["duplicate", "conflict"]).toContain(r.reason);
    const msgs = await store.listMessages({ conversationId: id });
    expect(msgs.filter((m) => m.clientMessageId === "msg_race")).toHaveLength(1);
    expect((await store.getConversation({ id }))?.lastSeq).toBe(2);
  });
}

/** Deduplication of conversation creation on the first message's clientMessageId (`dedupKey`). */
function createDedupTests(test: StoreTest) {
  test("a create with a known dedupKey answers the live conversation created with it and writes nothing", async (store) => {
    const p = uid("prod");
    const first = conversationInput({ productSlug: p });
    const made = await store.createConversation({ ...first, dedupKey: "msg_open" });
    expect(made.duplicate ?? false).toBe(false);
    const retry = conversationInput({ productSlug: p });
    const again = await store.createConversation({ ...retry, dedupKey: "msg_open" });
    expect(again.duplicate).toBe(true);
    expect(again.seqs).toEqual([]);
    expect(again.conversation).toEqual(await store.getConversation({ id: first.conversation.id }));
    expect(await store.getConversation({ id: retry.conversation.id })).toBeNull();
    expect((await store.listConversations({ productSlug: p })).map((c) => c.id)).toEqual([first.conversation.id]);
    expect(await store.findCreatedConversation({ productSlug: p, customerId: "cust_a", dedupKey: "msg_open" })).toEqual(again.conversation);
    expect(await store.findCreatedConversation({ productSlug: p, customerId: "cust_a", dedupKey: "msg_other" })).toBeNull();
    // the key is per product and customer; without a key nothing is deduplicated
    const otherCustomer = await store.createConversation({
      ...conversationInput({ productSlug: p, customerId: "cust_b" }),
      dedupKey: "msg_open",
    });
    expect(otherCustomer.duplicate ?? false).toBe(false);
    const otherProduct = await store.createConversation({ ...conversationInput({ productSlug: `${p}x` }), dedupKey: "msg_open" });
    expect(otherProduct.duplicate ?? false).toBe(false);
    expect((await store.createConversation({ ...conversationInput({ productSlug: p }), dedupKey: null })).duplicate ?? false).toBe(false);
    expect((await store.createConversation(conversationInput({ productSlug: p }))).duplicate ?? false).toBe(false);
    // a deleted conversation frees its key
    await store.deleteConversation({ conversationId: first.conversation.id, expectedSeq: 1, deletedAt: at(5), events: [] });
    expect(await store.findCreatedConversation({ productSlug: p, customerId: "cust_a", dedupKey: "msg_open" })).toBeNull();
    const fresh = conversationInput({ productSlug: p });
    const after = await store.createConversation({ ...fresh, dedupKey: "msg_open" });
    expect(after.duplicate ?? false).toBe(false);
    expect(after.conversation.id).toBe(fresh.conversation.id);
  });

  test("concurrent creates with one dedupKey create exactly one conversation and all answer it", async (store) => {
    const p = uid("prod");
    const inputs = Array.from({ length: 12 }, () => conversationInput({ productSlug: p }));
    const results = await Promise.all(inputs.map((input) => store.createConversation({ ...input, dedupKey: "msg_race" })));
    expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
    const ids = new Set(results.map((r) => r.conversation.id));
    expect(ids.size).toBe(1);
    const listed = await store.listConversations({ productSlug: p });
    expect(listed.map((c) => c.id)).toEqual([...ids]);
    expect(await store.listMessages({ conversationId: [...ids][0]! })).toHaveLength(1);
  });
}

/** Updates and deletes of conversations and messages. */
function changeTests(test: StoreTest) {
  test("updateConversation patches and appends", async (store) => {
    const input = conversationInput();
    const id = input.conversation.id;
    await store.createConversation(input);
    const r = await store.updateConversation({
      conversationId: id,
      expectedSeq: 1,
      patch: { labels: ["x", "y"], assignee: "bob" },
      events: [event("labels_changed"), event("assignee_changed")],
    });
    expect(r.ok && r.seqs).toEqual([2, 3]);
    expect(await store.getConversation({ id })).toMatchObject({ labels: ["x", "y"], assignee: "bob", lastSeq: 3, status: "new" });
    const back = await store.updateConversation({ conversationId: id, expectedSeq: 3, patch: { assignee: null }, events: [] });
    expect(back.ok).toBe(true);
    expect((await store.getConversation({ id }))?.assignee).toBeNull();
  });

  test("updateMessage and deleteMessage", async (store) => {
    const input = conversationInput();
    const id = input.conversation.id;
    await store.createConversation(input);
    const u = await store.updateMessage({
      conversationId: id,
      expectedSeq: 1,
      messageId: input.message.id,
      body: "edited",
      updatedAt: at(5),
      patch: { updatedAt: at(5) },
      events: [event("comment_edited", 5)],
    });
    expect(u.ok).toBe(true);
    expect(await store.getMessage({ conversationId: id, id: input.message.id })).toMatchObject({
      body: "edited",
      updatedAt: at(5),
      seq: 1,
    });
    expect((await store.getConversation({ id }))?.updatedAt).toBe(at(5));
    const missing = await store.updateMessage({
      conversationId: id,
      expectedSeq: 2,
      messageId: "cmt_missing",
      body: "x",
      updatedAt: at(6),
      patch: {},
      events: [event("x")],
    });
    expect(missing).toEqual({ ok: false, reason: "not_found" });
    const nulled = await store.updateMessage({
      conversationId: id,
      expectedSeq: 2,
      messageId: input.message.id,
      body: null,
      updatedAt: at(6),
      patch: {},
      events: [],
    });
    expect(nulled.ok).toBe(true);
    expect((await store.getMessage({ conversationId: id, id: input.message.id }))?.body).toBeNull();
    const d = await store.deleteMessage({
      conversationId: id,
      expectedSeq: 2,
      messageId: input.message.id,
      patch: {},
      events: [event("comment_deleted", 7)],
    });
    expect(d.ok && d.seqs).toEqual([3]);
    expect(await store.listMessages({ conversationId: id })).toEqual([]);
    expect(await store.getMessage({ conversationId: id, id: input.message.id })).toBeNull();
    expect(await store.deleteMessage({ conversationId: id, expectedSeq: 3, messageId: input.message.id, patch: {}, events: [] })).toEqual({
      ok: false,
      reason: "not_found",
    });
  });

  test("deleteConversation leaves a tombstone whose events stay readable", async (store) => {
    const input = conversationInput({ productSlug: uid("prod") });
    const id = input.conversation.id;
    await store.createConversation(input);
    const r = await store.deleteConversation({
      conversationId: id,
      expectedSeq: 1,
      deletedAt: at(9),
      events: [event("issue_deleted", 9)],
    });
    expect(r.ok && r.seqs).toEqual([2]);
    const c = await store.getConversation({ id });
    expect(c?.deletedAt).toBe(at(9));
    expect(await store.listConversations({ productSlug: input.conversation.productSlug })).toEqual([]);
    expect(await store.listMessages({ conversationId: id })).toEqual([]);
    const evs = await store.readEvents({ conversationId: id, afterSeq: 1, limit: 10 });
    expect(evs.events.map((e) => e.type)).toEqual(["issue_deleted"]);
    expect(await store.appendMessage({ conversationId: id, expectedSeq: 2, message: message(id), patch: {}, events: [] })).toEqual({
      ok: false,
      reason: "not_found",
    });
    expect(await store.updateConversation({ conversationId: id, expectedSeq: 2, patch: {}, events: [] })).toEqual({
      ok: false,
      reason: "not_found",
    });
  });
}

/** The event log's pages and pruning, and webhook delivery claims. */
function logTests(test: StoreTest) {
  test("readEvents pages after a seq; pruning reports what is gone", async (store) => {
    const input = conversationInput();
    const id = input.conversation.id;
    await store.createConversation(input);
    for (let i = 1; i <= 5; i++) {
      const r = await store.updateConversation({
        conversationId: id,
        expectedSeq: i,
        patch: {},
        events: [event("labels_changed", i * 100)],
      });
      expect(r.ok).toBe(true);
    }
    const page = await store.readEvents({ conversationId: id, afterSeq: 2, limit: 2 });
    expect(page.events.map((e) => e.seq)).toEqual([3, 4]);
    expect(page.prunedThrough).toBe(0);
    const pruned = await store.pruneEvents({ before: at(250) });
    expect(pruned).toBeGreaterThanOrEqual(3);
    const after = await store.readEvents({ conversationId: id, afterSeq: 0, limit: 10 });
    expect(after.prunedThrough).toBe(3);
    expect(after.events.map((e) => e.seq)).toEqual([4, 5, 6]);
    // appending keeps counting from lastSeq
    const next = await store.updateConversation({ conversationId: id, expectedSeq: 6, patch: {}, events: [event("x", 999)] });
    expect(next.ok && next.seqs).toEqual([7]);
  });

  test("claimDelivery: the first claim wins, repeats and concurrent claims lose; release and prune forget", async (store) => {
    const source = uid("src");
    const id = uid("dlv");
    expect(await store.claimDelivery({ source, deliveryId: id, receivedAt: at(10) })).toBe(true);
    expect(await store.claimDelivery({ source, deliveryId: id, receivedAt: at(11) })).toBe(false);
    // the same id from another source is another delivery
    expect(await store.claimDelivery({ source: `${source}x`, deliveryId: id, receivedAt: at(10) })).toBe(true);
    const racers = uid("dlv");
    const wins = await Promise.all(
      Array.from({ length: 8 }, () => store.claimDelivery({ source, deliveryId: racers, receivedAt: at(12) })),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
    await store.releaseDelivery({ source, deliveryId: id });
    expect(await store.claimDelivery({ source, deliveryId: id, receivedAt: at(13) })).toBe(true);
    // prune is global: only count what this test can see through claims
    const old = uid("dlv");
    expect(await store.claimDelivery({ source, deliveryId: old, receivedAt: "2000-01-01T00:00:00.000Z" })).toBe(true);
    expect(await store.pruneDeliveries({ before: "2000-01-02T00:00:00.000Z" })).toBeGreaterThanOrEqual(1);
    expect(await store.claimDelivery({ source, deliveryId: old, receivedAt: at(14) })).toBe(true);
    expect(await store.claimDelivery({ source, deliveryId: racers, receivedAt: at(14) })).toBe(false);
  });
}

/** The jobs a write queues with what it wrote (the outbound events), and the customer's rating. */
function enqueueTests(test: StoreTest) {
  test("writes queue the jobs their enqueue makes from what they wrote, and none when nothing is written", async (store) => {
    const queue = uid("test.enqueue");
    const seen: Parameters<Enqueue>[0][] = [];
    const enqueue: Enqueue = (written) => {
      seen.push(written);
      const payload = {
        conversation: written.conversation.id,
        lastSeq: written.conversation.lastSeq,
        message: written.message?.id ?? null,
      };
      return [{ queue, id: uid("job"), payload, now: T0 }];
    };
    const input = conversationInput({ customerId: uid("cust") });
    const id = input.conversation.id;
    await store.createConversation({ ...input, dedupKey: "first", enqueue });
    const reply = message(id, { clientMessageId: "m1" });
    const patch = { status: "waiting-for-agent" as const };
    expect(
      (await store.appendMessage({ conversationId: id, expectedSeq: 1, message: reply, patch, events: [event("x", 2)], enqueue })).ok,
    ).toBe(true);
    const assign = { patch: { assignee: "ann" }, events: [event("y", 3)], enqueue };
    expect((await store.updateConversation({ conversationId: id, expectedSeq: 2, ...assign })).ok).toBe(true);
    // none of these writes anything, so none queues a job: a stale seq, a missing conversation, two duplicates
    expect((await store.updateConversation({ conversationId: id, expectedSeq: 2, ...assign })).ok).toBe(false);
    expect((await store.updateConversation({ conversationId: uid("conv"), expectedSeq: 0, ...assign })).ok).toBe(false);
    const again = await store.appendMessage({
      conversationId: id,
      expectedSeq: 3,
      message: { ...reply, id: uid("cmt") },
      patch,
      events: [],
      enqueue,
    });
    expect(again.ok).toBe(false);
    expect(
      (await store.createConversation({ ...conversationInput({ customerId: input.conversation.customerId }), dedupKey: "first", enqueue }))
        .duplicate,
    ).toBe(true);
    expect(seen.map((w) => [w.conversation.id, w.conversation.lastSeq, w.message?.id ?? null])).toEqual([
      [id, 1, input.message.id],
      [id, 2, reply.id],
      [id, 3, null],
    ]);
    expect(seen[1]!.conversation.status).toBe("waiting-for-agent");
    expect(seen[2]!.conversation.assignee).toBe("ann");
    const jobs = await store.jobs.claim({ queue, limit: 10, now: T0 + 1, leaseMs: 1000 });
    expect(jobs.map((j) => j.payload).sort((a: any, b: any) => a.lastSeq - b.lastSeq)).toEqual([
      { conversation: id, lastSeq: 1, message: input.message.id },
      { conversation: id, lastSeq: 2, message: reply.id },
      { conversation: id, lastSeq: 3, message: null },
    ]);
  });

  test("a rating is kept with the conversation and replaced by the next one", async (store) => {
    const input = conversationInput({ status: "resolved", productSlug: uid("p") });
    const id = input.conversation.id;
    await store.createConversation(input);
    expect((await store.getConversation({ id }))?.rating).toBeUndefined();
    const first = { score: 4, comment: "quick and kind", ratedAt: at(5) };
    const r = await store.updateConversation({ conversationId: id, expectedSeq: 1, patch: { rating: first }, events: [] });
    expect(r.ok && r.conversation.rating).toEqual(first);
    expect((await store.getConversation({ id }))?.rating).toEqual(first);
    const second = { score: 2, comment: null, ratedAt: at(6) };
    await store.updateConversation({ conversationId: id, expectedSeq: 1, patch: { rating: second }, events: [] });
    await store.updateConversation({ conversationId: id, expectedSeq: 1, patch: { assignee: "bo" }, events: [event("a", 7)] });
    expect((await store.getConversation({ id }))?.rating).toEqual(second);
    expect((await store.listConversations({ productSlug: input.conversation.productSlug }))[0]?.rating).toEqual(second);
  });
}

/** Registers one test that runs on a fresh store (made by the suite's factory, closed after it). */
type StoreTest = (title: string, fn: (store: SupportStore) => Promise<void>) => void;

export function describeSupportStore(
  name: string,
  factory: () => Promise<{ store: SupportStore; close?(): Promise<void> | void }>,
  options: DescribeSupportStoreOptions = {},
) {
  const lookup = skipLookup(options.skip);

  describe(`SupportStore: ${name}`, () => {
    let store: SupportStore;
    let close: (() => Promise<void> | void) | undefined;
    beforeEach(async () => {
      const made = await factory();
      store = made.store;
      close = made.close;
    });
    afterEach(async () => {
      await close?.();
    });
    const test: StoreTest = (title, fn) => {
      const t = lookup(title);
      (t.skipped ? it.skip : it)(t.title, () => fn(store));
    };
    for (const group of [basicTests, listTests, appendTests, dedupTests, createDedupTests, changeTests, logTests, enqueueTests])
      group(test);
  });
}
