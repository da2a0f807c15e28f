// Sends a request to a real host and checks request and response against the service's OpenAPI document.
import { expect } from "vitest";
import type { OpenApiContract } from "./openapi-check.js";

export interface Sent {
  method?: string;
  headers?: Record<string, string>;
  /** JSON body (serialised with content-type application/json). */
  body?: unknown;
  /** Bytes sent as they are (malformed JSON, other content types). */
  raw?: string;
  /** What the request is, against its schema: `true` a valid request, `false` one the schema refuses. */
  valid?: boolean;
}

export interface Received {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/**
 * `url` is the host's base (origin + framework prefix) and `path` the service path after it: the
 * response is checked against `contract`, and the request body against its schema when `valid` says.
 */
export async function exchange(contract: OpenApiContract, base: string, path: string, sent: Sent = {}): Promise<Received> {
  const method = sent.method ?? (sent.body !== undefined || sent.raw !== undefined ? "POST" : "GET");
  const headers: Record<string, string> = { ...sent.headers };
  let payload: string | undefined;
  if (sent.raw !== undefined) payload = sent.raw;
  else if (sent.body !== undefined) {
    payload = JSON.stringify(sent.body);
    headers["content-type"] ??= "application/json";
  }
  const url = new URL(`${base}${path}`);
  if (sent.valid !== undefined && sent.body !== undefined)
    expect(
      contract.requestValid(method, url.pathname, sent.body),
      `${method} ${path}: request ${JSON.stringify(sent.body)?.slice(0, 200)} valid per the document`,
    ).toBe(sent.valid);
  const res = await fetch(url, { method, headers, body: payload });
  const sse = (res.headers.get("content-type") ?? "").startsWith("text/event-stream");
  let text: string;
  if (sse) {
    // a stream never ends by itself: read the first frames, then hang up
    const reader = res.body!.getReader();
    const first = await reader.read();
    text = new TextDecoder().decode(first.value);
    await reader.cancel();
  } else text = await res.text();
  let body: unknown;
  try {
    body = text && !sse ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  contract.check({ method, path: url.pathname, requestBody: sent.body, status: res.status, headers: res.headers, body, text });
  return { status: res.status, headers: res.headers, body, text };
}
