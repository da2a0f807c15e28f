// Interface A over fetch: one JSON call, its error (status, request id, Retry-After), and the retry loop the
// calls that are safe to repeat go through (doubling delays, each wait in [d/2, d], at least Retry-After).
import { type Backoff, jitteredDelay, sleep } from "./backoff.js";

/** What the client's calls and streams share, fixed when the client is created. */
export interface ClientContext {
  /** Where interface A is served, without a trailing slash. */
  base: string;
  doFetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
  /** `productSlug=…&customerId=…`, the query every read and stream carries. */
  scope: string;
  /** Sent on every request: the customer's signature (`X-Customer-Signature`) when the host gave one. */
  headers: Record<string, string>;
  /** `&customerSignature=…` for an EventSource's URL (it cannot send headers), else "". */
  signatureParam: string;
  postAttempts: number;
  postRetry: Backoff;
  reconnect: Backoff;
  random: () => number;
}

export class SupportApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly requestId: string | undefined,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
    this.name = "SupportApiError";
  }
  /** 5xx (but 501: the server lacks the feature), 429 and network failures may be retried; other 4xx need a fixed request. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || (this.status >= 500 && this.status !== 501);
  }
}

/** The path of one conversation under interface A. */
export const conversationPath = (id: string) => `/api/conversations/${encodeURIComponent(id)}`;

/** One request; a non-2xx answer or a network failure throws a {@link SupportApiError}. */
export async function call<T>(cx: ClientContext, method: string, path: string, body?: unknown): Promise<T> {
  return (await exchange<T>(cx, method, `${cx.base}${path}`, body)).body;
}

/** The `rel="next"` URL of an RFC 8288 `Link` header, resolved against `base`; undefined when there is none. */
export function nextLink(header: string | null, base: string): string | undefined {
  for (const part of header?.split(/,(?=\s*<)/) ?? []) {
    const m = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (m && /;\s*rel\s*=\s*"?(?:[^";]*\s)?next(?:\s[^";]*)?"?\s*(?:;|$)/i.test(m[2]!)) return new URL(m[1]!, `${base}/`).href;
  }
  return undefined;
}

/**
 * One page of a list: its body and the next page's URL from `Link: rel="next"` (interface A pages its lists).
 * `url` is a path under the base, or a next-page URL this function answered earlier.
 */
export async function readPage<T>(cx: ClientContext, url: string): Promise<{ body: T; next?: string }> {
  const target = /^https?:/i.test(url) ? url : `${cx.base}${url}`;
  // a next-page URL goes only where the API is: the customer id travels in it
  if (new URL(target).origin !== new URL(`${cx.base}/`).origin)
    throw new SupportApiError(0, "next page off the API's origin", undefined, undefined);
  return retrying(cx, async () => {
    const r = await exchange<T>(cx, "GET", target);
    return { body: r.body, next: nextLink(r.headers.get("link"), cx.base) };
  });
}

async function exchange<T>(cx: ClientContext, method: string, url: string, body?: unknown): Promise<{ body: T; headers: Headers }> {
  let res: Response;
  try {
    res = await cx.doFetch(url, {
      method,
      headers:
        body === undefined
          ? { ...cx.headers, accept: "application/json" }
          : { ...cx.headers, accept: "application/json", "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new SupportApiError(0, `network error: ${(e as Error).message}`, undefined, undefined);
  }
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const ra = Number(res.headers.get("retry-after"));
    throw new SupportApiError(
      res.status,
      json?.error ?? `HTTP ${res.status}`,
      json?.requestId,
      Number.isFinite(ra) && ra > 0 ? ra * 1000 : undefined,
    );
  }
  return { body: json as T, headers: res.headers };
}

/**
 * Runs `attempt` again on 429, 5xx and network failures (waiting the jittered doubling delay, at least Retry-After), up to
 * `postAttempts` times. Only for calls that are safe to repeat: reads, a send with its fixed clientMessageId,
 * and close (on a conversation already in that state it changes nothing).
 */
export async function retrying<T>(cx: ClientContext, attempt: () => Promise<T>): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (e) {
      const err = e as SupportApiError;
      if (!(e instanceof SupportApiError) || !err.retryable || n + 1 >= cx.postAttempts) throw e;
      await sleep(Math.max(err.retryAfterMs ?? 0, jitteredDelay(n, cx.postRetry, cx.random)));
    }
  }
}

/** A GET through {@link retrying}. */
export const read = <T>(cx: ClientContext, path: string) => retrying(cx, () => call<T>(cx, "GET", path));
