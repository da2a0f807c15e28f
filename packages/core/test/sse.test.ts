import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { channel, defineService, route, sse, toFetchHandler } from "../src/index.js";
import { encodeSseEvent, sseFrames } from "../src/sse.js";

// a full collection on demand, without starting the test process with --expose-gc
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

describe("SSE encoding", () => {
  it("writes id, event and one data line per payload line", () => {
    expect(encodeSseEvent({ id: 3, event: "x", data: "a\nb\r\nc" })).toBe("id: 3\nevent: x\ndata: a\ndata: b\ndata: c\n\n");
    expect(encodeSseEvent({ data: { t: 1 } })).toBe('data: {"t":1}\n\n');
    expect(encodeSseEvent({ comment: "ping" })).toBe(": ping\n\n");
  });
  it("refuses CR/LF in ids and event names (frame injection)", () => {
    expect(() => encodeSseEvent({ id: "1\ndata: evil", data: "x" })).toThrow();
    expect(() => encodeSseEvent({ event: "a\rb", data: "x" })).toThrow();
  });
});

describe("sseFrames", () => {
  it("sends retry first, heartbeats while idle, and ends on abort", async () => {
    const ac = new AbortController();
    const ch = channel<{ data: string }>({ signal: ac.signal });
    const frames = sseFrames(ch, { retryMs: 1000, heartbeatMs: 20, signal: ac.signal });
    expect((await frames.next()).value).toBe("retry: 1000\n\n");
    ch.push({ data: "x" });
    expect((await frames.next()).value).toBe("data: x\n\n");
    expect((await frames.next()).value).toBe(": ping\n\n");
    ac.abort();
    expect((await frames.next()).done).toBe(true);
    expect(ch.closed).toBe(true);
  });
});

describe("channel", () => {
  it("delivers in order and ends after close", async () => {
    const ch = channel<number>();
    ch.push(1);
    ch.push(2);
    ch.close();
    const got: number[] = [];
    for await (const v of ch) got.push(v);
    expect(got).toEqual([1, 2]);
    expect(ch.push(3)).toBe(false);
  });
  it("closes instead of growing past its bound (a stalled consumer is dropped)", () => {
    let closed = 0;
    const ch = channel<number>({ maxBuffered: 3, onClose: () => closed++ });
    expect([ch.push(1), ch.push(2), ch.push(3), ch.push(4)]).toEqual([true, true, true, false]);
    expect(ch.closed).toBe(true);
    expect(closed).toBe(1);
  });
  it("return() ends at once even with a pending next()", async () => {
    const ch = channel<number>();
    const it = ch[Symbol.asyncIterator]();
    const pending = it.next();
    await it.return!();
    expect(await pending).toEqual({ done: true, value: undefined });
  });
});

describe("a fetch handler's stream", () => {
  it("ends on the client's abort even after the caller let go of its Request and it was collected", async () => {
    let closed = 0;
    const service = defineService({
      name: "s",
      title: "s",
      version: "1",
      mounts: ["/s"],
      errorBody: (e) => ({ error: e.message }),
      routes: [
        route({
          method: "GET",
          path: "/s/stream",
          handler: ({ signal }) =>
            sse(channel<{ data: string }>({ signal, onClose: () => closed++ }), { retryMs: 1000, heartbeatMs: 60_000 }),
        }),
      ],
    });
    const handler = toFetchHandler(service);
    const rounds = 20;
    for (let i = 0; i < rounds; i++) {
      const client = new AbortController();
      // the Request is built and dropped here, as a runtime or a test helper does once it has the Response
      const res = await handler(new Request("http://kit/s/stream", { signal: client.signal }));
      const reader = res.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe("retry: 1000\n\n");
      for (let j = 0; j < 3; j++) {
        gc();
        await new Promise((r) => setTimeout(r, 1));
      }
      client.abort();
      const end = await Promise.race([reader.read(), new Promise((r) => setTimeout(() => r("still open"), 2000))]);
      expect(end).toEqual({ done: true, value: undefined });
    }
    expect(closed).toBe(rounds);
  });
});
