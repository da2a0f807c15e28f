// A product backend that speaks interface B (the Support SPI) to a remote support system.
// Customer messages keep their hidden metadata block, which is how the remote side can deduplicate.
import type { CustomerBackend } from "../domain/backend.js";
import { parseMetadata } from "../domain/metadata.js";
import { isStatus, type Status, wireLabels } from "../domain/status.js";
import type { Comment, ConversationView, Summary } from "../domain/wire.js";
import { supportError } from "../errors.js";

export interface SpiBackendOptions {
  /** The remote's base address (or a function giving it); requests go to `${baseUrl}/care/conversations...`. */
  baseUrl: string | (() => string);
  /** Bearer token the remote expects. */
  token: string;
  fetch?: typeof fetch;
  /** Per-request timeout; default 10 s. */
  timeoutMs?: number;
}

interface Reply {
  status: number;
  body: unknown;
}

const asStatus = (s: unknown): Status => (typeof s === "string" && isStatus(s) ? s : "new");

function toSummary(raw: unknown): Summary {
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

export function spiBackend(options: SpiBackendOptions): CustomerBackend {
  const base = () =>
    `${(typeof options.baseUrl === "function" ? options.baseUrl() : options.baseUrl).replace(/\/+$/, "")}/care/conversations`;
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;

  async function call(method: string, path: string, init: { query?: Record<string, string>; body?: unknown } = {}): Promise<Reply> {
    const url = new URL(base() + path);
    for (const [k, v] of Object.entries(init.query ?? {})) url.searchParams.set(k, v);
    let res: Response;
    try {
      res = await doFetch(url, {
        method,
        headers: {
          authorization: `Bearer ${options.token}`,
          accept: "application/json",
          ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (cause) {
      throw supportError("backend_unavailable", { cause });
    }
    const text = await res.text().catch(() => "");
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (res.ok) return { status: res.status, body };
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

  return {
    kind: "spi",
    async createConversation({ customerId, subject, body }) {
      const r = await call("POST", "", { body: { customerId, subject, body } });
      const v = r.body as { conversationId: string; createdAt: string };
      return { conversationId: String(v.conversationId), createdAt: String(v.createdAt) };
    },
    async listConversations({ customerId }) {
      const r = await call("GET", "", { query: { customerId } });
      const list = (r.body as { conversations?: unknown[] }).conversations ?? [];
      return list.map(toSummary).sort((x, y) => (x.updatedAt < y.updatedAt ? 1 : x.updatedAt > y.updatedAt ? -1 : 0));
    },
    getConversation: ({ customerId, conversationId }) => detail(customerId, conversationId),
    async postMessage({ customerId, conversationId, body, clientMessageId }) {
      if (clientMessageId !== null) {
        // a retry of a message the remote already has (its own dedup may not exist): answer the original
        const v = await detail(customerId, conversationId);
        if (!v) throw supportError("conversation_not_found");
        const dup = v.messages.find((m) => {
          const meta = parseMetadata(m.body);
          return meta?.clientMessageId === clientMessageId && meta.customerId === customerId;
        });
        if (dup) return { id: dup.id, createdAt: dup.createdAt, deduplicated: true };
      }
      const r = await call("POST", `/${encodeURIComponent(conversationId)}/messages`, { body: { customerId, conversationId, body } });
      const v = r.body as { messageId: string; createdAt: string };
      return { id: String(v.messageId), createdAt: String(v.createdAt), deduplicated: false };
    },
    async closeConversation({ customerId, conversationId, action }) {
      await call("POST", `/${encodeURIComponent(conversationId)}/close`, { body: { customerId, conversationId, action } });
    },
  };
}
