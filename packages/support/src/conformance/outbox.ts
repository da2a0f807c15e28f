import { expect } from "vitest";
import type { Enqueue } from "../store/types.js";
import { conversationInput, event, message, type StoreTest, T0, uid } from "./fixtures.js";

/** The jobs a write queues with what it wrote (the outbound events). */
export function outboxTests(test: StoreTest) {
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
}
