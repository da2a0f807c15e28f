// A stand-in for the Slack Web API methods the chat backend calls, on a real loopback socket. It keeps the
// channel's threads (so `conversations.replies` answers like Slack, cursor pages included), checks every
// call against @slack/web-api's methods and argument types (`violations`), and can rate-limit or fail.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { checkSlackCall } from "./slack-methods.js";

export interface Posted {
  channel: string;
  text: string;
  thread_ts?: string;
  ts: string;
  metadata?: { event_type: string; event_payload: Record<string, string> };
}

/** A message as `conversations.replies` returns it. */
export interface ThreadMessage {
  type: "message";
  ts: string;
  thread_ts?: string;
  user: string;
  text: string;
  bot_id?: string;
  app_id?: string;
  edited?: { user: string; ts: string };
  metadata?: { event_type: string; event_payload: Record<string, string> };
}

export async function fakeSlack(o: { botUserId: string; channel?: string; repliesPageSize?: number }) {
  const posted: Posted[] = [];
  const calls: Array<{ method: string; status: number; at: number }> = [];
  /** Methods in arrival order (`calls` records them when answered). */
  const received: string[] = [];
  /** Calls Slack's client does not know, or with arguments its types do not allow. */
  const violations: string[] = [];
  /** Thread root ts -> the thread's messages, root first. */
  const threads = new Map<string, ThreadMessage[]>();
  let tick = 0;
  let limitNext = 0;
  let down = false;
  /** chat.postMessage calls left before the next one answers 503 (an outage mid-message); undefined: none. */
  let postsBeforeFailure: number | undefined;
  /** Users users.info does not find (left the workspace). */
  const unknownUsers = new Set<string>();
  let usersGate: Promise<void> | undefined;
  const base = Math.floor(Date.now() / 1000);

  async function readArgs(req: IncomingMessage, url: URL): Promise<{ args: Record<string, any>; fromQuery: boolean }> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const t = Buffer.concat(chunks).toString("utf8");
    if (t) return { args: JSON.parse(t), fromQuery: false };
    return { args: Object.fromEntries(url.searchParams), fromQuery: true };
  }
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): number => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
    return status;
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<number> {
    const url = new URL(req.url ?? "/", "http://x");
    const method = url.pathname.slice(1);
    received.push(method);
    const { args, fromQuery } = await readArgs(req, url);
    const problems = checkSlackCall(method, args, fromQuery);
    if (problems.length) {
      violations.push(...problems);
      return send(res, 200, { ok: false, error: "invalid_arguments", response_metadata: { messages: problems } });
    }
    if (req.headers.authorization !== "Bearer xoxb-test") return send(res, 200, { ok: false, error: "invalid_auth" });
    if (down) return send(res, 503, { ok: false, error: "service_unavailable" });
    if (method === "chat.postMessage" && limitNext > 0) {
      limitNext--;
      return send(res, 429, { ok: false, error: "ratelimited" }, { "retry-after": "1" });
    }
    if (method === "chat.postMessage" && postsBeforeFailure !== undefined && postsBeforeFailure-- <= 0) {
      postsBeforeFailure = undefined;
      return send(res, 503, { ok: false, error: "service_unavailable" });
    }
    if (method === "auth.test") return send(res, 200, { ok: true, user_id: o.botUserId, bot_id: "BKIT" });
    if (method === "users.info") {
      await usersGate;
      const user = args.user;
      if (unknownUsers.has(user)) return send(res, 200, { ok: false, error: "user_not_found" });
      return send(res, 200, { ok: true, user: { id: user, name: "ann", profile: { display_name: `Ann (${user})` } } });
    }
    if (method === "chat.postMessage") {
      const ts = `${base + tick++}.000100`;
      posted.push({ channel: args.channel, text: args.text, thread_ts: args.thread_ts, ts, metadata: args.metadata });
      const m: ThreadMessage = {
        type: "message",
        ts,
        user: o.botUserId,
        bot_id: "BKIT",
        app_id: "AKIT",
        text: args.text,
        ...(args.thread_ts ? { thread_ts: args.thread_ts } : {}),
        ...(args.metadata ? { metadata: args.metadata } : {}),
      };
      if (args.thread_ts) threads.get(args.thread_ts)?.push(m);
      else threads.set(ts, [{ ...m, thread_ts: ts }]);
      return send(res, 200, { ok: true, channel: args.channel, ts, message: m });
    }
    if (method === "conversations.replies") {
      const thread = threads.get(args.ts);
      if (!thread) return send(res, 200, { ok: false, error: "thread_not_found" });
      const size = Math.min(Number(args.limit ?? 1000), o.repliesPageSize ?? 1000);
      const from = Number(args.cursor ?? 0);
      const page = thread.slice(from, from + size).map((m) => {
        if (args.include_all_metadata === "true" || args.include_all_metadata === true) return m;
        const { metadata: _hidden, ...rest } = m;
        return rest;
      });
      const next = from + size < thread.length ? String(from + size) : "";
      return send(res, 200, { ok: true, messages: page, has_more: next !== "", response_metadata: { next_cursor: next } });
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
    received,
    threads,
    violations,
    /** The next `n` chat.postMessage calls answer 429 with Retry-After: 1. */
    rateLimit(n: number) {
      limitNext = n;
    },
    /** Every call answers 503 until set back (an outage). */
    setDown(value: boolean) {
      down = value;
    },
    /** After `n` more chat.postMessage calls succeed, the next one answers 503. */
    failPostAfter(n: number) {
      postsBeforeFailure = n;
    },
    /** users.info answers `user_not_found` for this user. */
    forgetUser(user: string) {
      unknownUsers.add(user);
    },
    /** users.info answers only once `gate` resolves (the ack must not wait for it). */
    holdUsersInfo(gate: Promise<void>) {
      usersGate = gate;
    },
    nextTs: () => `${base + tick++}.000200`,
    /** What a person does in Slack: a reply in a thread (the test sends the event, or loses it). */
    humanReply(root: string, user: string, text: string): ThreadMessage {
      const m: ThreadMessage = { type: "message", ts: `${base + tick++}.000300`, thread_ts: root, user, text };
      threads.get(root)?.push(m);
      return m;
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
