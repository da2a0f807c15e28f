// The daily quota counts only successful calls: a call that fails while another waits for the last unit
// frees it for the waiting one (docs/memory.md#quota: at quota 1, concurrent 404 and 200 give 404 and 200).
import { describe, expect, it } from "vitest";
import { createMemoryService, inMemoryMemoryStore } from "../src/index.js";

describe("daily quota holds", () => {
  it("at quota 1 a good call waits for a failing call in flight instead of answering 429", async () => {
    const store = inMemoryMemoryStore();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const getEdge = store.getEdge.bind(store);
    // the failing call (an unknown edge) is held in flight until the good call has arrived
    store.getEdge = async (input) => {
      await gate;
      return getEdge(input);
    };
    const memory = createMemoryService({ store, dailyQuota: 1, worker: { start: false } });
    try {
      const { key } = await memory.keys.create({ brainId: "b" });
      const get = (path: string) => memory.fetch(new Request(`http://x${path}`, { headers: { authorization: `Bearer ${key}` } }));
      const missing = get("/v1/edges/nope");
      await new Promise((r) => setTimeout(r, 20));
      const ok = get("/v1/episodes");
      await new Promise((r) => setTimeout(r, 20));
      release();
      expect((await missing).status).toBe(404);
      const good = await ok;
      expect(good.status).toBe(200);
      expect(good.headers.get("ratelimit-remaining")).toBe("0");
      expect((await get("/v1/episodes")).status).toBe(429);
      expect((await get("/v1/edges/nope")).status).toBe(429);
    } finally {
      await memory.dispose();
    }
  });

  it("a host's own counter keeps reserve-and-refund: failures are free", async () => {
    const { inMemoryQuotaCounter } = await import("@mountkit/core/jobs");
    const memory = createMemoryService({ quota: inMemoryQuotaCounter(), dailyQuota: 2, worker: { start: false } });
    try {
      const { key } = await memory.keys.create({ brainId: "b" });
      const get = (path: string) => memory.fetch(new Request(`http://x${path}`, { headers: { authorization: `Bearer ${key}` } }));
      expect((await get("/v1/edges/nope")).status).toBe(404);
      expect((await get("/v1/episodes")).status).toBe(200);
      expect((await get("/v1/episodes")).status).toBe(200);
      expect((await get("/v1/episodes")).status).toBe(429);
    } finally {
      await memory.dispose();
    }
  });
});
