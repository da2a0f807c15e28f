// The Slack backend: one thread per conversation in a channel. Customer messages are posted by the kit's bot
// (the root message, then thread replies, with the hidden metadata in Slack message metadata); humans answer in
// the thread. The Events API endpoint verifies Slack's signing secret, acknowledges at once and does the work
// afterwards from a queue, processes each `event_id` once and ignores bot messages, its own included.
import { iso } from "@mountkit/core";
import type { BackendContext, CustomerBackend, WebhookReceiver } from "../domain/backend.js";
import { storePage } from "../domain/cursor.js";
import { parseMetadata, stripMetadata } from "../domain/metadata.js";
import { createMirror, type Mirror } from "../domain/mirror.js";
import { isOpen, openedConversation } from "../domain/status.js";
import { summary } from "../domain/wire.js";
import { supportError } from "../errors.js";
import { constantTimeEqual } from "../http/auth.js";
import { hmacSha256Hex, keyedLock, type RestReply, restClient, shortHash } from "./rest.js";

export interface SlackBackendOptions {
  /** Bot token (`xoxb-...`) with chat:write, users:read and the channel's history scope. */
  botToken: string;
  /** The app's signing secret (Events API request signatures). */
  signingSecret: string;
  /** Channel id (`C...`) holding one thread per conversation. */
  channel: string;
  /** Web API base; default `https://slack.com/api`. */
  apiUrl?: string;
  /** The bot's own user id; default asked once from `auth.test`. */
  botUserId?: string;
  /** Spacing between two posts (Slack allows about one message per second per channel); default 1000 ms. */
  minWriteIntervalMs?: number;
  /** Longest a customer request waits for a post before a 429; default 30 s. */
  maxWaitMs?: number;
  /** Accepted age of a signed request; default (and Slack's advice) 5 minutes. */
  replayWindowMs?: number;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export interface SlackBackend extends CustomerBackend {
  readonly kind: "slack";
  /** Resolves when every acknowledged event has been processed (tests, graceful shutdown). */
  idle(): Promise<void>;
}

interface SlackMessage {
  type?: string;
  subtype?: string;
  user?: string;
  bot_id?: string;
  app_id?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
  channel?: string;
  deleted_ts?: string;
  message?: SlackMessage;
  previous_message?: SlackMessage;
}

interface EnvelopeBody {
  type?: string;
  challenge?: string;
  event_id?: string;
  event?: SlackMessage;
}

const META_EVENT = "mountkit_customer_message";
const MAX_QUEUED = 10_000;
/** Subtypes that are still a person's plain message. */
const PLAIN = new Set([undefined, "thread_broadcast", "file_share", "me_message"]);

export async function verifySlackSignature(
  secret: string,
  raw: Uint8Array,
  headers: Record<string, string | undefined>,
  nowMs: number,
  windowMs = 5 * 60_000,
): Promise<boolean> {
  const ts = headers["x-slack-request-timestamp"];
  const sig = headers["x-slack-signature"];
  if (!ts || !sig || !/^\d{1,12}$/.test(ts)) return false;
  if (Math.abs(nowMs - Number(ts) * 1000) > windowMs) return false;
  const base = new Uint8Array([...new TextEncoder().encode(`v0:${ts}:`), ...raw]);
  return constantTimeEqual(sig.trim(), `v0=${await hmacSha256Hex(secret, base)}`);
}

export function slackBackend(options: SlackBackendOptions): SlackBackend {
  const apiUrl = (options.apiUrl ?? "https://slack.com/api").replace(/\/+$/, "");
  const channel = options.channel;
  const tag = shortHash(`${apiUrl}/${channel}`);
  const convId = (rootTs: string) => `sl_${tag}_${rootTs.replace(".", "_")}`;
  const rootOf = (id: string): string | undefined => {
    const m = new RegExp(`^sl_${tag}_(\\d+)_(\\d+)$`).exec(id);
    return m ? `${m[1]}.${m[2]}` : undefined;
  };
  const msgId = (ts: string) => `slm_${tag}_${ts.replace(".", "_")}`;
  const tsTime = (ts: string) => iso(Math.floor(Number(ts) * 1000));
  const lock = keyedLock();
  const api = restClient({
    baseUrl: apiUrl,
    headers: { authorization: `Bearer ${options.botToken}` },
    queueKey: `slack:${apiUrl}:${shortHash(options.botToken)}`,
    rateLimitWait: (r: RestReply) => (r.status === 429 ? Math.max(0, Number(r.headers.get("retry-after")) || 1) * 1000 : undefined),
    minWriteIntervalMs: options.minWriteIntervalMs ?? 1000,
    maxWaitMs: options.maxWaitMs ?? 30_000,
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
  });
  let at: { cx: BackendContext; mirror: Mirror } | undefined;
  let botUser: Promise<string> | undefined = options.botUserId ? Promise.resolve(options.botUserId) : undefined;
  const names = new Map<string, string>();
  let queue: Promise<void> = Promise.resolve();
  let queued = 0;

  const attached = () => {
    if (!at) throw new Error("slack backend used before a support service attached it");
    return at;
  };

  /** Slack answers HTTP 200 with `ok: false` for its errors. */
  function ok<T>(r: RestReply, what: string): T {
    const body = r.body as { ok?: boolean; error?: string } | undefined;
    if (r.status === 200 && body?.ok) return body as T;
    throw supportError("backend_unavailable", { message: `Slack ${what} failed: ${body?.error ?? r.status}` });
  }

  function me(): Promise<string> {
    botUser ??= api.read({ method: "POST", path: "/auth.test" }).then((r) => ok<{ user_id: string }>(r, "auth.test").user_id);
    botUser.catch(() => {
      botUser = undefined;
    });
    return botUser;
  }

  async function displayName(user: string | undefined): Promise<string> {
    if (!user) return "agent";
    const known = names.get(user);
    if (known) return known;
    try {
      const r = ok<{ user?: { name?: string; real_name?: string; profile?: { display_name?: string; real_name?: string } } }>(
        await api.read({ path: "/users.info", query: { user } }),
        "users.info",
      );
      const name = r.user?.profile?.display_name || r.user?.profile?.real_name || r.user?.real_name || r.user?.name || user;
      names.set(user, name);
      return name;
    } catch {
      return user;
    }
  }

  async function post(text: string, meta: Record<string, string>, threadTs?: string): Promise<{ ts: string }> {
    const r = await api.write({
      method: "POST",
      path: "/chat.postMessage",
      body: {
        channel,
        text,
        ...(threadTs ? { thread_ts: threadTs } : {}),
        metadata: { event_type: META_EVENT, event_payload: meta },
        unfurl_links: false,
      },
    });
    return ok<{ ts: string }>(r, "chat.postMessage");
  }

  async function owned(scope: { productSlug: string; customerId: string }, id: string) {
    const root = rootOf(id);
    const c = root === undefined ? null : await attached().mirror.get(id);
    if (!c || root === undefined || c.productSlug !== scope.productSlug || c.customerId !== scope.customerId)
      throw supportError("conversation_not_found");
    return { ...c, root };
  }

  /** One event after it was acknowledged. */
  async function process(e: SlackMessage) {
    const { mirror } = attached();
    const own = await me();
    const isBot = (m: SlackMessage | undefined) => !m || !!m.bot_id || m.subtype === "bot_message" || !!m.app_id || m.user === own;
    if (e.subtype === "message_deleted") {
      const gone = e.deleted_ts ?? e.previous_message?.ts;
      if (!gone) return;
      const root = e.previous_message?.thread_ts ?? gone;
      const id = convId(root);
      await lock(id, async () => {
        if (root === gone) await mirror.remove(id);
        else if (!isBot(e.previous_message)) await mirror.removeMessage(id, msgId(gone));
      });
      return;
    }
    if (e.subtype === "message_changed") {
      const m = e.message;
      if (!m?.ts || !m.thread_ts || m.thread_ts === m.ts || isBot(m)) return;
      const id = convId(m.thread_ts);
      await lock(id, () => mirror.editMessage(id, msgId(m.ts!), m.text ?? ""));
      return;
    }
    if (!PLAIN.has(e.subtype) || isBot(e) || !e.ts || !e.thread_ts || e.thread_ts === e.ts) return;
    const id = convId(e.thread_ts);
    const author = await displayName(e.user);
    await lock(id, async () => {
      if (!(await mirror.get(id))) return;
      await mirror.addMessage(
        id,
        { id: msgId(e.ts!), body: e.text ?? "", author, isCustomer: false, dedupKey: `#slack/${e.ts}`, createdAt: tsTime(e.ts!) },
        (s) => (isOpen(s) ? "waiting-for-customer" : s),
      );
    });
  }

  const webhook: WebhookReceiver = {
    source: "slack",
    async receive({ headers, rawBody }) {
      const { cx } = attached();
      if (!rawBody || !(await verifySlackSignature(options.signingSecret, rawBody, headers, cx.clock.now(), options.replayWindowMs)))
        return null;
      let body: EnvelopeBody;
      try {
        body = JSON.parse(new TextDecoder().decode(rawBody)) as EnvelopeBody;
      } catch {
        throw supportError("invalid_request", { message: "the payload is not JSON" });
      }
      if (body.type === "url_verification") return { status: 200, body: { challenge: String(body.challenge ?? "") } };
      if (body.type !== "event_callback" || !body.event || !body.event_id) return { status: 200, body: { ok: true, ignored: true } };
      if (body.event.type !== "message" || body.event.channel !== channel) return { status: 200, body: { ok: true }, passed: true };
      if (!(await cx.store.claimDelivery({ source: "slack", deliveryId: body.event_id, receivedAt: iso(cx.clock.now()) })))
        return { status: 200, body: { ok: true, duplicate: true } };
      if (queued >= MAX_QUEUED) {
        // better a Slack retry later than an event acknowledged and dropped
        await cx.store.releaseDelivery({ source: "slack", deliveryId: body.event_id });
        throw supportError("too_many_requests", { headers: { "retry-after": "5" } });
      }
      const event = body.event;
      const eventId = body.event_id;
      queued++;
      queue = queue.then(async () => {
        try {
          await process(event);
        } catch (error) {
          cx.logger.warn("support: processing a Slack event failed", { eventId, error });
        } finally {
          queued--;
        }
      });
      return { status: 200, body: { ok: true } };
    },
  };

  return {
    kind: "slack",
    webhook,

    attach(cx) {
      if (at) throw new Error("a slack backend serves one product of one service");
      at = { cx, mirror: createMirror({ store: cx.store, bus: cx.bus, clock: cx.clock, logger: cx.logger }) };
    },

    async createConversation({ productSlug, customerId, subject, body, clientMessageId }) {
      const { mirror, cx } = attached();
      const meta = { customerId, ...(clientMessageId ? { clientMessageId } : {}) };
      const { ts } = await post(`*${subject}*\n${stripMetadata(body)}`, meta);
      const now = iso(cx.clock.now());
      const c = await mirror.create({
        conversation: openedConversation({ id: convId(ts), productSlug, customerId, subject, at: now }),
        messages: [
          { id: msgId(ts), body, author: "Customer", isCustomer: true, dedupKey: clientMessageId ?? `#slack/${ts}`, createdAt: now },
        ],
      });
      return { conversationId: c.id, createdAt: c.createdAt };
    },

    async listConversations(scope) {
      return (await attached().cx.store.listConversations(storePage(scope))).map(summary);
    },

    async getConversation({ conversationId, ...scope }) {
      if (rootOf(conversationId) === undefined) return null;
      return attached().mirror.viewFor(scope, conversationId);
    },

    async postMessage({ conversationId, body, clientMessageId, ...scope }) {
      const { mirror, cx } = attached();
      return lock(conversationId, async () => {
        const c = await owned(scope, conversationId);
        const dup = await mirror.duplicate(conversationId, clientMessageId);
        if (dup) return dup;
        if (c.status === "closed") throw supportError("conversation_closed");
        const meta = parseMetadata(body) ?? { customerId: scope.customerId };
        const { ts } = await post(`*Customer:* ${stripMetadata(body ?? "")}`, meta, c.root);
        const added = await mirror.addMessage(
          conversationId,
          {
            id: msgId(ts),
            body,
            author: "Customer",
            isCustomer: true,
            dedupKey: clientMessageId ?? `#slack/${ts}`,
            createdAt: iso(cx.clock.now()),
          },
          (s) => (s === "closed" ? s : "waiting-for-agent"),
        );
        if (!added) throw supportError("conversation_not_found");
        return { id: added.message.id, createdAt: added.message.createdAt, deduplicated: false };
      });
    },

    async closeConversation({ conversationId, action, ...scope }) {
      const { mirror } = attached();
      return lock(conversationId, async () => {
        const c = await owned(scope, conversationId);
        if (!isOpen(c.status)) return { status: c.status };
        const status = action === "resolve" ? "resolved" : "closed";
        await post(
          action === "resolve" ? "_The customer marked this conversation as resolved._" : "_The customer closed this conversation._",
          { customerId: scope.customerId },
          c.root,
        );
        await mirror.setState(conversationId, { status });
        return { status };
      });
    },

    async openStream({ conversationId, ...scope }) {
      const c = rootOf(conversationId) === undefined ? null : await attached().mirror.get(conversationId);
      if (!c || c.productSlug !== scope.productSlug || c.customerId !== scope.customerId) return null;
      return { conversation: c };
    },

    idle: async () => {
      for (;;) {
        const q = queue;
        await q;
        if (q === queue) return;
      }
    },
  };
}
