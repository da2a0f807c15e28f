// Interface B (the Support SPI) as a client: one authenticated JSON call, its errors mapped to the kit's,
// and the remote's summaries and detail read leniently into the wire types.
import { isStatus, type Status, wireLabels } from "../../domain/status.js";
import type { Comment, ConversationView, Summary } from "../../domain/views.js";
import { supportError } from "../../errors.js";
import { fetchJson } from "../rest.js";

interface Reply {
  status: number;
  body: unknown;
}

export interface SpiRemote {
  /** One call under `${baseUrl}/care/conversations`; 404, 409 and 429 become the kit's errors, other failures 503. */
  call(method: string, path: string, init?: { query?: Record<string, string>; body?: unknown }): Promise<Reply>;
  /** The remote's detail of one conversation; null when it is missing or not this customer's. */
  detail(customerId: string, conversationId: string): Promise<ConversationView | null>;
}

const asStatus = (s: unknown): Status => (typeof s === "string" && isStatus(s) ? s : "new");

export function toSummary(raw: unknown): Summary {
  const r = raw as Record<string, unknown>;
  const status = asStatus(r.status);
  return {
    id: String(r.id),
    subject: String(r.subject ?? ""),
    status,
    isOpen: typeof r.isOpen === "boolean" ? r.isOpen : status !== "resolved" && status !== "closed",
    createdAt: String(r.createdAt),
    updatedAt: String(r.updatedAt ?? r.createdAt),
  };
}

function toComment(raw: unknown): Comment {
  const m = raw as Record<string, unknown>;
  return {
    id: String(m.id),
    body: typeof m.body === "string" ? m.body : null,
    author: String(m.author ?? ""),
    createdAt: String(m.createdAt),
    isCustomer: m.isCustomer === true,
  };
}

/** How the kit reaches a remote support API (the SPI backend's options). */
export interface SpiBackendOptions {
  /** The remote's base address (or a function giving it); requests go to `${baseUrl}/care/conversations...`. */
  baseUrl: string | (() => string);
  /** Bearer token the remote expects. */
  token: string;
  fetch?: typeof fetch;
  /** Per-request timeout; default 10 s. */
  timeoutMs?: number;
  /** How often a watched conversation's remote detail is polled for stream events; default 5 s. */
  pollIntervalMs?: number;
  /** Ceiling of the backoff after failed polls; default 60 s. */
  maxPollIntervalMs?: number;
}

export function spiRemote(options: SpiBackendOptions): SpiRemote {
  const base = () =>
    `${(typeof options.baseUrl === "function" ? options.baseUrl() : options.baseUrl).replace(/\/+$/, "")}/care/conversations`;
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;

  async function call(method: string, path: string, init: { query?: Record<string, string>; body?: unknown } = {}): Promise<Reply> {
    const url = new URL(base() + path);
    for (const [k, v] of Object.entries(init.query ?? {})) url.searchParams.set(k, v);
    const res = await fetchJson(doFetch, url, {
      method,
      headers: { authorization: `Bearer ${options.token}` },
      body: init.body,
      timeoutMs,
    });
    const body = res.json;
    if (res.status >= 200 && res.status < 300) return { status: res.status, body };
    if (res.status === 404) throw supportError("conversation_not_found");
    if (res.status === 409) throw supportError("conversation_closed");
    if (res.status === 429) throw supportError("too_many_requests", { headers: { "retry-after": res.headers.get("retry-after") ?? "1" } });
    throw supportError("backend_unavailable", { message: `support backend answered ${res.status}` });
  }

  async function detail(customerId: string, conversationId: string): Promise<ConversationView | null> {
    try {
      const r = await call("GET", `/${encodeURIComponent(conversationId)}`, { query: { customerId } });
      const raw = r.body as Record<string, unknown>;
      const s = toSummary(raw);
      const messages = Array.isArray(raw.messages) ? raw.messages.map(toComment) : [];
      return { ...s, labels: wireLabels(s.status, []), messages };
    } catch (e) {
      if ((e as { code?: string }).code === "conversation_not_found") return null;
      throw e;
    }
  }

  return { call, detail };
}
