// SSE helpers for the support suites: a real EventSource whose connection a test can cut, and a raw reader.
import { request } from "node:http";
import { EventSource } from "eventsource";

export interface Received {
  id: string;
  type: string;
  data: any;
  createdAt: string;
}

export interface WatchedStream {
  es: EventSource;
  events: Received[];
  /** Connections opened so far (reconnects included). */
  connections: number;
  /** Headers sent on each connection (Last-Event-ID shows here). */
  requestHeaders: Array<Record<string, string>>;
  errors: number;
  /** Ends the current connection cleanly, as a proxy dropping it would: EventSource reconnects itself. */
  cut(): void;
  close(): void;
}

/** Opens a real `eventsource` client over a real socket and records every message. */
export function watch(url: string): WatchedStream {
  let cutCurrent: (() => void) | undefined;
  const w: WatchedStream = {
    es: undefined as unknown as EventSource,
    events: [],
    connections: 0,
    requestHeaders: [],
    errors: 0,
    cut: () => cutCurrent?.(),
    close: () => w.es.close(),
  };
  const cuttableFetch: typeof fetch = async (input, init) => {
    w.connections++;
    const h: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => {
      h[k] = v;
    });
    w.requestHeaders.push(h);
    const res = await fetch(input, init);
    if (!res.body) return res;
    const reader = res.body.getReader();
    let stop!: () => void;
    const stopped = new Promise<void>((r) => {
      stop = r;
    });
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const r = await Promise.race([reader.read(), stopped.then(() => "cut" as const)]);
        if (r === "cut") {
          void reader.cancel().catch(() => {});
          controller.close();
          return;
        }
        if (r.done) controller.close();
        else controller.enqueue(r.value);
      },
      cancel: () => reader.cancel(),
    });
    cutCurrent = stop;
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  w.es = new EventSource(url, { fetch: cuttableFetch });
  w.es.onmessage = (m) => {
    const parsed = JSON.parse(m.data);
    w.events.push({ id: m.lastEventId, type: parsed.type, data: parsed.data, createdAt: parsed.createdAt });
  };
  w.es.onerror = () => {
    w.errors++;
  };
  return w;
}

export async function waitFor(cond: () => boolean, timeoutMs = 8000, what = "condition"): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface RawStream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Raw text received so far. */
  text(): string;
  /** Frames (blank-line separated) received so far. */
  frames(): string[];
  ended: Promise<void>;
  close(): void;
}

/** A plain node:http GET that keeps the raw SSE text, for wire-level assertions. */
export function rawStream(url: string, headers: Record<string, string> = {}): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: "text/event-stream", ...headers } }, (res) => {
      let buf = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        buf += c;
      });
      const ended = new Promise<void>((r) => {
        res.on("end", () => r());
        res.on("close", () => r());
        res.on("error", () => r());
      });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        text: () => buf,
        frames: () => buf.split("\n\n").filter((f) => f.length > 0),
        ended,
        close: () => req.destroy(),
      });
    });
    req.on("error", reject);
    req.end();
  });
}
