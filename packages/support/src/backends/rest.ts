// A JSON REST client for third-party APIs with rate limits (GitHub, Slack). Writes of one credential go
// through one queue per process, one at a time with a minimum spacing; a rate-limit answer pauses every
// request of that credential for as long as the API asks (`retry-after`, a reset time, or backoff).
import { supportError } from "../errors.js";

export interface RestReply {
  status: number;
  headers: Headers;
  body: unknown;
}

export interface RestClientOptions {
  baseUrl: string;
  headers: Record<string, string>;
  /** Writes sharing this key (a token, an installation) are serialised and paused together. */
  queueKey: string;
  /** Milliseconds to wait before retrying, when this answer is a rate-limit answer; undefined otherwise. */
  rateLimitWait(reply: RestReply, consecutive: number): number | undefined;
  fetch?: typeof fetch;
  /** Per-request timeout; default 10 s. */
  timeoutMs?: number;
  /** Spacing between two writes of one queue; default 0. */
  minWriteIntervalMs?: number;
  /** Longest a caller waits (queue, pauses, retries) before getting a 429; default 30 s. */
  maxWaitMs?: number;
  /** Attempts per request, rate-limit retries included; default 5. */
  maxAttempts?: number;
  now?: () => number;
}

export interface RestRequest {
  method: string;
  /** A path under the base, or an absolute address on the base's origin (a `Link` header's next page). */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /**
   * A form body (`application/x-www-form-urlencoded`) instead of JSON, for the methods that take only forms (Slack's
   * `files.*` upload calls, whose official client sends every call as a form).
   */
  form?: Record<string, string>;
  /** Overrides the client's `maxWaitMs` (background writes may wait longer than a customer). */
  maxWaitMs?: number;
}

export interface RestClient {
  /** A read: honours a pause, not serialised. Answers whatever status the API gave (after rate-limit retries). */
  read(req: Omit<RestRequest, "method"> & { method?: string }): Promise<RestReply>;
  /** A write: queued behind the credential's other writes. */
  write(req: RestRequest): Promise<RestReply>;
}

interface QueueState {
  tail: Promise<unknown>;
  pausedUntil: number;
  lastWriteAt: number;
  /** Rate-limit answers in a row, for backoff without a hint. */
  limited: number;
}

// Per process: two backends with the same credential share one queue and one pause.
const queues = new Map<string, QueueState>();

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function restClient(o: RestClientOptions): RestClient {
  const doFetch = o.fetch ?? fetch;
  const now = o.now ?? Date.now;
  const timeoutMs = o.timeoutMs ?? 10_000;
  const maxAttempts = o.maxAttempts ?? 5;
  const base = o.baseUrl.replace(/\/+$/, "");
  let state = queues.get(o.queueKey);
  if (!state) {
    state = { tail: Promise.resolve(), pausedUntil: 0, lastWriteAt: 0, limited: 0 };
    queues.set(o.queueKey, state);
  }
  const q = state;

  function resolve(path: string): URL {
    if (!/^https?:/i.test(path)) return new URL(base + path);
    // the credential goes with every request: never to an address off the API's own origin and base path
    const url = new URL(path);
    if (!url.href.startsWith(`${base}/`)) throw supportError("backend_unavailable", { message: "the API pointed outside itself" });
    return url;
  }

  function tooLong(waitMs: number): never {
    throw supportError("too_many_requests", {
      message: "the support backend is rate limiting this service",
      headers: { "retry-after": String(Math.max(1, Math.ceil(waitMs / 1000))) },
    });
  }

  async function attempt(req: RestRequest, write: boolean, started: number): Promise<RestReply> {
    const budget = req.maxWaitMs ?? o.maxWaitMs ?? 30_000;
    for (let n = 1; ; n++) {
      const t = now();
      const wait = Math.max(0, q.pausedUntil - t, write ? q.lastWriteAt + (o.minWriteIntervalMs ?? 0) - t : 0);
      if (t + wait - started > budget) tooLong(q.pausedUntil - t);
      if (wait > 0) await sleep(wait);
      if (write) q.lastWriteAt = now();
      const url = resolve(req.path);
      for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
      const r = await fetchJson(doFetch, url, { method: req.method, headers: o.headers, body: req.body, form: req.form, timeoutMs });
      // a body that is not JSON (an HTML error page) is kept as text for the caller's error message
      const reply: RestReply = { status: r.status, headers: r.headers, body: r.text && r.json === undefined ? r.text : r.json };
      const limitedFor = o.rateLimitWait(reply, q.limited);
      if (limitedFor !== undefined) {
        q.limited++;
        q.pausedUntil = Math.max(q.pausedUntil, now() + limitedFor);
        if (n >= maxAttempts) tooLong(limitedFor);
        continue;
      }
      q.limited = 0;
      // a server error on a read or an idempotent write is retried; a POST may have been applied
      if (r.status >= 500 && req.method !== "POST" && n < maxAttempts) {
        await sleep(Math.min(8000, 250 * 2 ** (n - 1)));
        continue;
      }
      return reply;
    }
  }

  return {
    read: (req) => attempt({ ...req, method: req.method ?? "GET" }, false, now()),
    write(req) {
      const started = now();
      const run = q.tail.then(() => attempt(req, true, started));
      q.tail = run.catch(() => undefined);
      return run;
    },
  };
}

/** An HMAC-SHA256 of `data` under `secret`, hex-encoded (WebCrypto: the package stays free of node: imports). */
export async function hmacSha256Hex(secret: string, data: Uint8Array | string): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const bytes = typeof data === "string" ? enc.encode(data) : data;
  const sig = new Uint8Array(await crypto.subtle.sign("HMAC", key, bytes as Uint8Array<ArrayBuffer>));
  let hex = "";
  for (const b of sig) hex += b.toString(16).padStart(2, "0");
  return hex;
}

/** A short stable tag of a string (FNV-1a, 32 bits, hex): keeps ids of two repos or channels apart. */
export function shortHash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}

/** Runs tasks of one key one at a time (in this process), in arrival order. */
export function keyedLock() {
  const tails = new Map<string, Promise<unknown>>();
  return async function run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const settled = next.catch(() => undefined);
    tails.set(key, settled);
    try {
      return await next;
    } finally {
      if (tails.get(key) === settled) tails.delete(key);
    }
  };
}

/**
 * One JSON request: a network failure or timeout becomes `backend_unavailable`; the answer comes back with
 * its raw text and, when that text is JSON, its parsed value.
 */
export async function fetchJson(
  doFetch: typeof fetch,
  url: URL,
  init: { method: string; headers?: Record<string, string>; body?: unknown; form?: Record<string, string>; timeoutMs: number },
): Promise<{ status: number; headers: Headers; text: string; json: unknown }> {
  let res: Response;
  const type: Record<string, string> = init.form
    ? { "content-type": "application/x-www-form-urlencoded; charset=utf-8" }
    : init.body !== undefined
      ? { "content-type": "application/json; charset=utf-8" }
      : {};
  try {
    res = await doFetch(url, {
      method: init.method,
      headers: { accept: "application/json", ...init.headers, ...type },
      body: init.form ? new URLSearchParams(init.form).toString() : init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(init.timeoutMs),
    });
  } catch (cause) {
    throw supportError("backend_unavailable", { cause });
  }
  const text = await res.text().catch(() => "");
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** The `rel="next"` address of an RFC 8288 `Link` header (GitHub's and most REST APIs' pagination). */
export function nextLink(header: string | null): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (m && /;\s*rel\s*=\s*"?(?:[^";]*\s)?next(?:\s[^";]*)?"?\s*(?:;|$)/i.test(m[2]!)) return m[1];
  }
  return undefined;
}
