// Which of a brain's events an extraction writes jobs for: the types its enabled subscriptions take, read once.
import { systemClock } from "@mountkit/core";
import { inMemoryWebhookStore, type Subscription, type WebhookDispatcher } from "@mountkit/core/webhooks";
import { describe, expect, it } from "vitest";
import { brainScope, memoryEvents } from "../src/domain/events.js";

const sub = (scope: string, events: string[], enabled = true): Subscription => ({
  id: `sub_${Math.random().toString(36).slice(2)}`,
  scope,
  url: "https://example.com/hook",
  events,
  secret: "whsec_dGVzdA==",
  description: "",
  enabled,
  createdAt: 0,
  updatedAt: 0,
});

describe("memory events", () => {
  it("wants the types the brain's enabled subscriptions take, and nothing of another brain's or a disabled one's", async () => {
    const store = inMemoryWebhookStore();
    const events = memoryEvents({ store, wake() {} } as unknown as WebhookDispatcher, systemClock);
    expect([...(await events.wanted("b1"))]).toEqual([]);
    await store.createSubscription(sub(brainScope("b1"), ["episode.done"]));
    await store.createSubscription(sub(brainScope("b1"), ["*"], false));
    await store.createSubscription(sub(brainScope("b2"), ["*"]));
    expect([...(await events.wanted("b1"))]).toEqual(["episode.done"]);
    expect([...(await events.wanted("b2"))].sort()).toEqual(["edge.invalidated", "edge.superseded", "episode.done", "episode.failed"]);
    // a failure's event only when a subscription takes it
    expect(await events.failed("b1")).toBeUndefined();
    expect(await events.failed("b2")).toBeTypeOf("function");
    await store.createSubscription(sub(brainScope("b1"), ["edge.invalidated", "episode.failed"]));
    expect([...(await events.wanted("b1"))].sort()).toEqual(["edge.invalidated", "episode.done", "episode.failed"]);
    expect(await events.invalidated("b1")).toBeTypeOf("function");
  });
});
