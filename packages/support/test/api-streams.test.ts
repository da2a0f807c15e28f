// The typed api's streams, in-process: interface A's stream (connected, live events, replay after lastEventId, the
// per-customer cap), the agent side's conversation and product streams, and their refusals.
import type { Channel, SseEvent } from "@mountkit/core";
import { describe, expect, it } from "vitest";
import { cust, serviceMaker } from "./services.js";

const make = serviceMaker();

/** The next frame's `{ id, type }` (the frame's JSON data carries the type). */
async function next(events: Channel<SseEvent>) {
  const r = await events[Symbol.asyncIterator]().next();
  if (r.done) throw new Error("stream ended");
  return { id: r.value.id, type: JSON.parse(r.value.data as string).type as string };
}

describe("support api streams", () => {
  it("api.openStream sends connected, then live events; lastEventId replays what came after it", async () => {
    const s = make();
    const scope = { productSlug: "demo", customerId: cust() };
    const { conversationId } = await s.api.createConversation({ ...scope, message: "hello" });
    const abort = new AbortController();
    const events = await s.api.openStream({ ...scope, conversationId, signal: abort.signal });
    expect(await next(events)).toEqual({ id: undefined, type: "connected" });
    await s.api.agent.reply(conversationId, { body: "hi there", author: "Ann" });
    const reply = await next(events);
    expect(reply.type).toBe("new_comment");
    abort.abort();
    expect(s.hub.size).toBe(0);

    const again = new AbortController();
    const replay = await s.api.openStream({ ...scope, conversationId, lastEventId: Number(reply.id) - 1, signal: again.signal });
    expect((await next(replay)).type).toBe("connected");
    expect(await next(replay)).toEqual(reply);
    again.abort();
  });

  it("api.openStream answers 404 for another customer's conversation and 429 past the per-customer cap", async () => {
    const s = make({ limits: { maxStreamsPerCustomer: 1 } });
    const scope = { productSlug: "demo", customerId: cust() };
    const { conversationId } = await s.api.createConversation({ ...scope, message: "hello" });
    await expect(s.api.openStream({ productSlug: "demo", customerId: cust(), conversationId })).rejects.toMatchObject({ status: 404 });
    const first = await s.api.openStream({ ...scope, conversationId });
    await expect(s.api.openStream({ ...scope, conversationId })).rejects.toMatchObject({ status: 429 });
    // closing the channel frees the slot, as an abort does
    first.close();
    const second = await s.api.openStream({ ...scope, conversationId });
    expect((await next(second)).type).toBe("connected");
    second.close();
  });

  it("api.agent.openStream follows one conversation; api.agent.openProductStream notices every change of the product", async () => {
    const s = make();
    const scope = { productSlug: "demo", customerId: cust() };
    await expect(s.api.agent.openStream("conv_missing")).rejects.toMatchObject({ status: 404 });
    const notices = await s.api.agent.openProductStream("demo");
    expect((await next(notices)).type).toBe("connected");
    const { conversationId } = await s.api.createConversation({ ...scope, message: "hello" });
    expect((await next(notices)).type).toBe("conversation_changed");
    const thread = await s.api.agent.openStream(conversationId);
    expect((await next(thread)).type).toBe("connected");
    await s.api.postMessage({ ...scope, conversationId, message: "more" });
    expect((await next(thread)).type).toBe("new_comment");
    expect((await next(notices)).type).toBe("conversation_changed");
    thread.close();
    notices.close();
  });
});
