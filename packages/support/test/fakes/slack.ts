// A stand-in for the Slack Web API methods the chat backend calls, on a real loopback socket.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Posted {
  channel: string;
  text: string;
  thread_ts?: string;
  ts: string;
  metadata?: { event_type: string; event_payload: Record<string, string> };
}

export async function fakeSlack(o: { botUserId: string }) {
  const posted: Posted[] = [];
  const calls: Array<{ method: string; status: number; at: number }> = [];
  let tick = 0;
  let limitNext = 0;
  let usersGate: Promise<void> | undefined;
  const base = Math.floor(Date.now() / 1000);

  async function readBody(req: IncomingMessage): Promise<any> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const t = Buffer.concat(chunks).toString("utf8");
    return t ? JSON.parse(t) : {};
  }
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): number => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
    return status;
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<number> {
    const url = new URL(req.url ?? "/", "http://x");
    const method = url.pathname.slice(1);
    if (req.headers.authorization !== "Bearer xoxb-test") return send(res, 200, { ok: false, error: "invalid_auth" });
    if (method === "chat.postMessage" && limitNext > 0) {
      limitNext--;
      return send(res, 429, { ok: false, error: "ratelimited" }, { "retry-after": "1" });
    }
    if (method === "auth.test") return send(res, 200, { ok: true, user_id: o.botUserId });
    if (method === "users.info") {
      await usersGate;
      const user = url.searchParams.get("user");
      return send(res, 200, { ok: true, user: { id: user, name: "ann", profile: { display_name: `Ann (${user})` } } });
    }
    if (method === "chat.postMessage") {
      const b = await readBody(req);
      if (!b.channel || !b.text) return send(res, 200, { ok: false, error: "no_text" });
      const ts = `${base + tick++}.000100`;
      posted.push({ channel: b.channel, text: b.text, thread_ts: b.thread_ts, ts, metadata: b.metadata });
      return send(res, 200, { ok: true, channel: b.channel, ts });
    }
    return send(res, 404, { ok: false, error: "unknown_method" });
  }

  const server = createServer((req, res) => {
    const at = Date.now();
    handle(req, res)
      .then((status) => calls.push({ method: (req.url ?? "").split("?")[0]!.slice(1), status, at }))
      .catch((e) => send(res, 500, { ok: false, error: String(e) }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posted,
    calls,
    /** The next `n` chat.postMessage calls answer 429 with Retry-After: 1. */
    rateLimit(n: number) {
      limitNext = n;
    },
    /** users.info answers only once `gate` resolves (the ack must not wait for it). */
    holdUsersInfo(gate: Promise<void>) {
      usersGate = gate;
    },
    nextTs: () => `${base + tick++}.000200`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
