// A product backend that speaks interface B (the Support SPI) to a remote support system.
// Customer messages keep their hidden metadata block, which is how the remote side can deduplicate.
// Interface B has no event stream: while customers watch a conversation, one poller per conversation per
// process diffs the remote detail against a mirror in the local store, whose event log the streams follow.

import type { BackendContext, CustomerBackend } from "../domain/backend.js";
import { pageOf } from "../domain/cursor.js";
import { parseMetadata } from "../domain/metadata.js";
import { createMirror, type Mirror, type MirrorSnapshot } from "../domain/mirror.js";
import { isStatus, type Status, wireLabels } from "../domain/status.js";
import type { Comment, ConversationView, Summary } from "../domain/wire.js";
import { supportError } from "../errors.js";
import { fetchJson } from "./rest.js";

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

interface Poller {
  mirrorId: string;
  remoteId: string;
  customerId: string;
  refs: number;
  delay: number;
  timer?: ReturnType<typeof setTimeout>;
  /** The poll in progress, so a poke waits for it instead of overlapping. */
  running?: Promise<void>;
  stopped: boolean;
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
  const pollEvery = options.pollIntervalMs ?? 5000;
  const maxPollEvery = Math.max(pollEvery, options.maxPollIntervalMs ?? 60_000);
  let at: { cx: BackendContext; mirror: Mirror; prefix: string } | undefined;
  const pollers = new Map<string, Poller>();
  const attached = () => {
    if (!at) throw new Error("spi backend used before a support service attached it");
    return at;
  };
  // mirrored ids are namespaced by product, so a remote id can never meet a local conversation's id
  const mirrorIdOf = (remoteId: string) => `${attached().prefix}${remoteId}`;
  const snapshotOf = (mirrorId: string, v: ConversationView): MirrorSnapshot => ({
    state: { subject: v.subject, status: v.status },
    messages: v.messages.map((m) => ({
      id: `${mirrorId}~${m.id}`,
      body: m.body,
      author: m.author,
      isCustomer: m.isCustomer,
      dedupKey: `#spi/${m.id}`,
      createdAt: m.createdAt,
    })),
  });
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

  async function poll(p: Poller) {
    const { mirror, cx } = attached();
    try {
      const v = await detail(p.customerId, p.remoteId);
      if (p.stopped) return;
      if (!v) {
        // gone remotely (deleted, or no longer this customer's): streams get issue_deleted and end
        await mirror.remove(p.mirrorId);
        stop(p);
        return;
      }
      await mirror.sync(p.mirrorId, snapshotOf(p.mirrorId, v));
      p.delay = pollEvery;
    } catch (error) {
      p.delay = Math.min(maxPollEvery, p.delay * 2);
      cx.logger.warn("support: polling the remote SPI failed", { conversationId: p.remoteId, retryInMs: p.delay, error });
    }
  }

  function schedule(p: Poller) {
    if (p.stopped) return;
    p.timer = setTimeout(() => {
      p.timer = undefined;
      void runPoll(p).then(() => schedule(p));
    }, p.delay);
    (p.timer as { unref?: () => void }).unref?.();
  }

  function runPoll(p: Poller): Promise<void> {
    p.running ??= poll(p).finally(() => {
      p.running = undefined;
    });
    return p.running;
  }

  function stop(p: Poller) {
    p.stopped = true;
    if (p.timer) clearTimeout(p.timer);
    pollers.delete(p.mirrorId);
  }

  /** Polls at once (after the customer's own write) so the echo reaches the streams without waiting. */
  function poke(remoteId: string) {
    if (!at) return;
    const p = pollers.get(mirrorIdOf(remoteId));
    if (p) void (p.running ?? Promise.resolve()).then(() => runPoll(p));
  }

  return {
    kind: "spi",

    attach(cx) {
      if (at) throw new Error("an spi backend serves one product of one service");
      at = {
        cx,
        prefix: `spi_${cx.productSlug}~`,
        mirror: createMirror({
          store: cx.store,
          bus: cx.bus,
          clock: cx.clock,
          logger: cx.logger,
          publicConversationId: (id) => id.slice(at!.prefix.length),
          publicMessageId: (id, conversationId) => id.slice(conversationId.length + 1),
        }),
      };
    },

    async openStream({ productSlug, customerId, conversationId }) {
      const { mirror, cx } = attached();
      const v = await detail(customerId, conversationId);
      if (!v) return null;
      const mirrorId = mirrorIdOf(conversationId);
      const existing = await cx.store.getConversation({ id: mirrorId });
      if (existing && (existing.deletedAt || existing.customerId !== customerId || existing.productSlug !== productSlug)) return null;
      const snap = snapshotOf(mirrorId, v);
      if (existing) await mirror.sync(mirrorId, snap);
      else
        await mirror.create({
          conversation: {
            id: mirrorId,
            productSlug,
            customerId,
            subject: v.subject,
            status: v.status,
            labels: [],
            assignee: null,
            createdAt: v.createdAt,
            updatedAt: v.updatedAt,
          },
          messages: snap.messages,
        });
      const c = await mirror.get(mirrorId);
      if (!c) return null;
      let p = pollers.get(mirrorId);
      if (!p) {
        p = { mirrorId, remoteId: conversationId, customerId, refs: 0, delay: pollEvery, stopped: false };
        pollers.set(mirrorId, p);
        schedule(p);
      }
      p.refs++;
      const poller = p;
      let released = false;
      return {
        conversation: c,
        release() {
          if (released) return;
          released = true;
          if (--poller.refs <= 0) stop(poller);
        },
      };
    },

    async dispose() {
      for (const p of [...pollers.values()]) stop(p);
    },

    async createConversation({ customerId, subject, body }) {
      const r = await call("POST", "", { body: { customerId, subject, body } });
      const v = r.body as { conversationId: string; createdAt: string };
      return { conversationId: String(v.conversationId), createdAt: String(v.createdAt) };
    },
    async listConversations({ customerId, ...page }) {
      // interface B has no pages: take the remote's whole list and cut the page here
      const r = await call("GET", "", { query: { customerId } });
      const list = (r.body as { conversations?: unknown[] }).conversations ?? [];
      return pageOf(list.map(toSummary), page);
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
      poke(conversationId);
      const v = r.body as { messageId: string; createdAt: string };
      return { id: String(v.messageId), createdAt: String(v.createdAt), deduplicated: false };
    },
    async closeConversation({ customerId, conversationId, action }) {
      // interface B answers a close with 204 only: the state it was already in comes from the detail
      const before = await detail(customerId, conversationId);
      if (!before) throw supportError("conversation_not_found");
      if (!before.isOpen) return { status: before.status };
      await call("POST", `/${encodeURIComponent(conversationId)}/close`, { body: { customerId, conversationId, action } });
      poke(conversationId);
      return { status: action === "resolve" ? "resolved" : "closed" };
    },
  };
}
