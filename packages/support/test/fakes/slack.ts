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

  /** Files reserved by files.getUploadURLExternal, uploaded to their URL, and shared by files.completeUploadExternal. */
  const files = new Map<string, { filename: string; length: number; bytes?: Buffer }>();
  const shared: Array<{ id: string; title?: string; channel_id?: string; thread_ts?: string; filename: string; bytes: Buffer }> = [];
  /** Method (or `upload`) -> calls left that answer 429 with Retry-After: 1. */
  const limited = new Map<string, number>();
  let nextFile = 1;
  /** Method -> the error it answers (`ok: false`) until cleared. */
  const refused = new Map<string, string>();

  async function readBody(req: IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  }
  async function readArgs(req: IncomingMessage, url: URL): Promise<{ args: Record<string, any>; fromQuery: boolean; form: boolean }> {
    const t = (await readBody(req)).toString("utf8");
    // a form's values are text, like a query's
    const form = /^application\/x-www-form-urlencoded/.test(req.headers["content-type"] ?? "");
    if (t && form) return { args: Object.fromEntries(new URLSearchParams(t)), fromQuery: true, form };
    if (t) return { args: JSON.parse(t), fromQuery: false, form };
    return { args: Object.fromEntries(url.searchParams), fromQuery: true, form };
  }
  const limitedNow = (what: string) => {
    const n = limited.get(what) ?? 0;
    if (n > 0) limited.set(what, n - 1);
    return n > 0;
  };

  /** The upload URL files.getUploadURLExternal hands out: the file's bytes, raw, in a POST (no token). */
  async function upload(req: IncomingMessage, res: ServerResponse, fileId: string): Promise<number> {
    const bytes = await readBody(req);
    const f = files.get(fileId);
    if (req.method !== "POST" || !f) return send(res, 404, { ok: false });
    if (req.headers.authorization) violations.push("upload URL: the bot token must not be sent to it");
    if (limitedNow("upload")) return send(res, 429, { ok: false, error: "ratelimited" }, { "retry-after": "1" });
    if (bytes.length !== f.length) violations.push(`upload URL: ${bytes.length} bytes, reserved ${f.length}`);
    f.bytes = bytes;
    res.writeHead(200, { "content-type": "text/plain" });
    res.end(`OK - ${bytes.length}`);
    return 200;
  }

  function completeUpload(res: ServerResponse, args: Record<string, any>): number {
    const list = (typeof args.files === "string" ? JSON.parse(args.files) : args.files) as Array<{ id: string; title?: string }>;
    for (const { id } of list) {
      const f = files.get(id);
      if (!f?.bytes) return send(res, 200, { ok: false, error: "file_not_found" });
    }
    for (const { id, title } of list) {
      const f = files.get(id)!;
      shared.push({ id, title, channel_id: args.channel_id, thread_ts: args.thread_ts, filename: f.filename, bytes: f.bytes! });
    }
    return send(res, 200, { ok: true, files: list.map(({ id, title }) => ({ id, title })) });
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
    if (method.startsWith("upload/")) return upload(req, res, method.slice("upload/".length));
    const { args, fromQuery, form } = await readArgs(req, url);
    const problems = checkSlackCall(method, args, fromQuery);
    // the official client sends every call as a form, and Slack has refused JSON bodies on these upload methods
    if (method.startsWith("files.") && !form) problems.push(`${method}: send a form (application/x-www-form-urlencoded), not JSON`);
    if (problems.length) {
      violations.push(...problems);
      return send(res, 200, { ok: false, error: "invalid_arguments", response_metadata: { messages: problems } });
    }
    if (req.headers.authorization !== "Bearer xoxb-test") return send(res, 200, { ok: false, error: "invalid_auth" });
    if (down) return send(res, 503, { ok: false, error: "service_unavailable" });
    if (refused.has(method)) return send(res, 200, { ok: false, error: refused.get(method) });
    if (limitedNow(method)) return send(res, 429, { ok: false, error: "ratelimited" }, { "retry-after": "1" });
    if (method === "files.getUploadURLExternal") {
      const file_id = `F${String(nextFile++).padStart(8, "0")}`;
      files.set(file_id, { filename: args.filename, length: Number(args.length) });
      return send(res, 200, { ok: true, upload_url: `http://${req.headers.host}/upload/${file_id}`, file_id });
    }
    if (method === "files.completeUploadExternal") return completeUpload(res, args);
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
    shared,
    /** Every call of this method answers `ok: false` with this error (undefined: answers again). */
    refuseMethod(method: string, error: string | undefined) {
      if (error === undefined) refused.delete(method);
      else refused.set(method, error);
    },
    /** The next `n` calls of this method (or `upload`, the upload URL) answer 429 with Retry-After: 1. */
    rateLimitMethod(method: string, n: number) {
      limited.set(method, n);
    },
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
