// The client's rate() against a real server (fetch adapter on node:http): 409 while open, a rating after resolve
// that the detail (interface A and the agent side) shows, re-rating replaces, 501 at once from a backend without ratings.
import { createSupportService, type SupportService, spiBackend } from "@mountkit/support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen, type Running } from "../../../examples/server/src/listen.js";
import { createSupportClient, inMemoryStorage, liveConversation, SupportApiError } from "../src/index.js";

const AGENT = "agent-rating";

describe("client rate() against a real server", () => {
  let service: SupportService;
  let running: Running;
  let base = "";
  beforeAll(async () => {
    service = createSupportService({
      products: ["demo", { slug: "remote", backend: spiBackend({ baseUrl: "http://127.0.0.1:9", token: "t" }) }],
      agentToken: AGENT,
      limits: { rateLimit: 10_000 },
    });
    running = await listen("fetch", [service]);
    base = running.url;
  });
  afterAll(async () => {
    await running.close();
    await service.dispose();
  });

  const agentDetail = async (id: string) => {
    const r = await fetch(`${base}/agent/conversations/${id}`, { headers: { authorization: `Bearer ${AGENT}` } });
    expect(r.status).toBe(200);
    return (await r.json()) as { rating: { score: number; comment: string | null } | null };
  };

  it("refuses while open (409), rates after resolve, reads it back (GET /rating) and in the agent detail, and replaces it on a second rating", async () => {
    const client = createSupportClient({ baseUrl: base, productSlug: "demo", storage: inMemoryStorage(), postRetryMs: 1 });
    const { conversationId } = await client.create({ message: "Where is my parcel?" });
    const open = await client.rate(conversationId, { score: 4 }).catch((e) => e);
    expect(open).toBeInstanceOf(SupportApiError);
    expect(open.status).toBe(409);
    expect((await client.rating(conversationId)).rating).toBeNull();
    expect(Object.keys(await client.get(conversationId)).sort(), "the detail stays {issue, comments}").toEqual(["comments", "issue"]);

    await client.close(conversationId, "resolve");
    const first = await client.rate(conversationId, { score: 4, comment: "Quick and kind" });
    expect(first.rating).toMatchObject({ score: 4, comment: "Quick and kind" });
    expect(Number.isNaN(Date.parse(first.rating.ratedAt))).toBe(false);
    expect((await client.rating(conversationId)).rating).toMatchObject({ score: 4, comment: "Quick and kind" });
    expect((await agentDetail(conversationId)).rating).toMatchObject({ score: 4, comment: "Quick and kind" });

    // re-rating replaces score and comment; no comment sends none (null kept)
    const second = await client.rate(conversationId, { score: 2 });
    expect(second.rating).toMatchObject({ score: 2, comment: null });
    expect((await agentDetail(conversationId)).rating).toMatchObject({ score: 2, comment: null });
  });

  it("carries the rating into a live view's state", async () => {
    const client = createSupportClient({ baseUrl: base, productSlug: "demo", storage: inMemoryStorage() });
    const { conversationId } = await client.create({ message: "Refund please" });
    await client.close(conversationId, "close");
    await client.rate(conversationId, { score: 5, comment: "Great" });
    const live = liveConversation(client, conversationId);
    try {
      await live.refresh();
      expect(live.state.rating).toMatchObject({ score: 5, comment: "Great" });
    } finally {
      live.close();
    }
  });

  it("refuses a score out of range (400) and answers 501 for a backend without ratings, without retrying", async () => {
    const client = createSupportClient({ baseUrl: base, productSlug: "demo", storage: inMemoryStorage() });
    const { conversationId } = await client.create({ message: "Hello" });
    await client.close(conversationId, "resolve");
    const bad = await client.rate(conversationId, { score: 6 }).catch((e) => e);
    expect(bad).toMatchObject({ status: 400 });

    let calls = 0;
    const remote = createSupportClient({
      baseUrl: base,
      productSlug: "remote",
      storage: inMemoryStorage(),
      postRetryMs: 1,
      fetch: (input, init) => {
        if (String(input).endsWith("/rating")) calls++;
        return fetch(input, init);
      },
    });
    const none = await remote.rate("spi_remote~c1", { score: 3 }).catch((e) => e);
    expect(none).toBeInstanceOf(SupportApiError);
    expect(none.status).toBe(501);
    expect(none.retryable).toBe(false);
    expect(calls).toBe(1);
    await expect(remote.rating("spi_remote~c1")).rejects.toMatchObject({ status: 501 });
  });
});
