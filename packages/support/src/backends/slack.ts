// The Slack backend: one thread per conversation in a channel. Customer messages are posted by the kit's bot
// (the root message, then thread replies, with the hidden metadata in Slack message metadata); humans answer in
// the thread. The Events API endpoint verifies Slack's signing secret, writes the event to the durable job
// store before acknowledging it, and a worker does the work (each `event_id` once, bot messages ignored, its
// own included). A reconciliation pass over `conversations.replies` repairs what an outage lost.
import { createWorker, iso, type Worker } from "@mountkit/core";
import type { BackendContext, CustomerBackend, WebhookReceiver } from "../domain/backend.js";
import { storePage } from "../domain/cursor.js";
import { parseMetadata, stripMetadata } from "../domain/metadata.js";
import { createMirror, type Mirror } from "../domain/mirror.js";
import { isOpen, openedConversation } from "../domain/status.js";
import { summary } from "../domain/wire.js";
import { supportError } from "../errors.js";
import { constantTimeEqual } from "../http/auth.js";
import { escapeSlack } from "./display.js";
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
  /** Reconciliation pass period (Slack stops retrying an event after about an hour); default 5 minutes, 0 turns it off. */
  reconcileIntervalMs?: number;
  /** Conversations with activity this recent are looked at by a reconciliation pass; default 7 days. */
  reconcileLookbackMs?: number;
  /** How often the event worker looks for jobs another process (or a restart) left; default 1 s. */
  workerPollMs?: number;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export interface SlackBackend extends CustomerBackend {
  readonly kind: "slack";
  /** Resolves when every acknowledged event has been processed (tests, graceful shutdown). */
  idle(): Promise<void>;
  /** Runs one reconciliation pass now: each recent thread's replies against the mirror (the timer runs it periodically). */
  reconcile(): Promise<{ conversations: number }>;
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
  edited?: { ts?: string };
  metadata?: { event_type?: string; event_payload?: Record<string, unknown> };
}

interface EnvelopeBody {
  type?: string;
  challenge?: string;
  event_id?: string;
  event?: SlackMessage;
}

const META_EVENT = "mountkit_customer_message";
/** Attempts of one event's job; its backoff (1 s doubling) spans about half a minute, the reconciliation pass does the rest. */
const EVENT_ATTEMPTS = 6;
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
  // one queue per channel: two Slack products on one store never take each other's events
  const queue = `support.slack.${tag}`;
  let worker: Worker | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  let pass: Promise<{ conversations: number }> | undefined;

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

  /**
   * A thread's messages, root first, every page (cursor pagination); null when the thread is gone.
   * `maxWaitMs`: how long a rate limit may hold it (a background pass waits longer than a customer).
   */
  async function replies(root: string, maxWaitMs?: number): Promise<SlackMessage[] | null> {
    const out: SlackMessage[] = [];
    let cursor: string | undefined;
    do {
      const r = await api.read({
        path: "/conversations.replies",
        query: { channel, ts: root, limit: 200, include_all_metadata: "true", cursor },
        maxWaitMs,
      });
      const body = r.body as { ok?: boolean; error?: string } | undefined;
      if (r.status === 200 && body?.ok === false && (body.error === "thread_not_found" || body.error === "message_not_found")) return null;
      const page = ok<{ messages?: SlackMessage[]; response_metadata?: { next_cursor?: string } }>(r, "conversations.replies");
      out.push(...(page.messages ?? []));
      cursor = page.response_metadata?.next_cursor || undefined;
    } while (cursor);
    return out;
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
    await lock(id, async () => {
      if (await mirror.get(id)) await addReply(mirror, id, e);
    });
  }

  /**
   * A person's thread reply as an agent message (idempotent: its dedup key is the message's ts). `answers`:
   * the reply is the thread's latest word, so the customer is the one expected to speak next.
   */
  async function addReply(mirror: Mirror, id: string, e: SlackMessage, answers = true) {
    const author = await displayName(e.user);
    await mirror.addMessage(
      id,
      { id: msgId(e.ts!), body: e.text ?? "", author, isCustomer: false, dedupKey: `#slack/${e.ts}`, createdAt: tsTime(e.ts!) },
      (s) => (answers && isOpen(s) ? "waiting-for-customer" : s),
    );
  }

  /** One thread against the mirror: replies missed are added, edits applied, deletions removed. */
  async function reconcileThread(id: string, root: string) {
    const { mirror, cx } = attached();
    const own = await me();
    // Slack limits conversations.replies hard for some apps (about one call a minute): a pass waits it out
    const thread = await replies(root, 30 * 60_000);
    await lock(id, async () => {
      const c = await mirror.get(id);
      if (!c) return;
      if (thread === null || !thread.some((m) => m.ts === root)) {
        await mirror.remove(id);
        return;
      }
      const people = thread.filter(
        (m) => m.ts && m.ts !== root && PLAIN.has(m.subtype) && !m.bot_id && !m.app_id && m.subtype !== "bot_message" && m.user !== own,
      );
      const mirrored = await cx.store.listMessages({ conversationId: id });
      const byId = new Map(mirrored.map((m) => [m.id, m]));
      // a reply found late that predates the customer's last message does not answer it
      const lastCustomer = mirrored.reduce((t, m) => (m.isCustomer && m.createdAt > t ? m.createdAt : t), "");
      for (const m of people) {
        const known = byId.get(msgId(m.ts!));
        if (!known) await addReply(mirror, id, m, tsTime(m.ts!) > lastCustomer);
        else if (known.body !== (m.text ?? "")) await mirror.editMessage(id, known.id, m.text ?? "");
      }
      const present = new Set(people.map((m) => msgId(m.ts!)));
      for (const m of mirrored) if (!m.isCustomer && !present.has(m.id)) await mirror.removeMessage(id, m.id);
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
      // written before the acknowledgement: a crash after it leaves the job for the next process; the job id
      // is the event's, so a redelivery is one job, whether the first is queued, running or done
      const e = body.event;
      const thread = e.thread_ts ?? e.message?.thread_ts ?? e.previous_message?.thread_ts ?? e.deleted_ts ?? e.ts ?? "";
      await cx.jobs.enqueue({
        id: `${queue}:${body.event_id}`,
        queue,
        payload: e,
        // one thread's events in order, across processes (an edit never overtakes its message)
        groupKey: thread,
        maxAttempts: EVENT_ATTEMPTS,
        now: cx.clock.now(),
      });
      worker?.wake();
      if (!(await cx.store.claimDelivery({ source: "slack", deliveryId: body.event_id, receivedAt: iso(cx.clock.now()) })))
        return { status: 200, body: { ok: true, duplicate: true } };
      return { status: 200, body: { ok: true } };
    },
  };

  const backend: SlackBackend = {
    kind: "slack",
    webhook,

    attach(cx) {
      if (at) throw new Error("a slack backend serves one product of one service");
      at = { cx, mirror: createMirror({ store: cx.store, bus: cx.bus, clock: cx.clock, logger: cx.logger }) };
      worker = createWorker<SlackMessage>({
        store: cx.jobs,
        queue,
        handler: (job) => process(job.payload),
        onDead: (job, error) =>
          cx.logger.warn("support: a Slack event failed every attempt; the reconciliation pass will pick it up", { job: job.id, error }),
        concurrency: 2,
        pollMs: options.workerPollMs ?? 1000,
        clock: cx.clock,
        logger: cx.logger,
      });
      worker.start();
      const every = options.reconcileIntervalMs ?? 5 * 60_000;
      if (every > 0) {
        timer = setInterval(() => {
          backend.reconcile().catch((error) => cx.logger.warn("support: slack reconciliation failed", { channel, error }));
        }, every);
        (timer as { unref?: () => void }).unref?.();
      }
    },

    reconcile() {
      // one pass at a time: under Slack's tightest limit a pass can outlast the timer's period
      pass ??= (async () => {
        const { cx } = attached();
        const since = iso(cx.clock.now() - (options.reconcileLookbackMs ?? 7 * 24 * 3_600_000));
        let n = 0;
        for (const c of await cx.store.listConversations({ productSlug: cx.productSlug })) {
          if (c.updatedAt < since) break;
          const root = rootOf(c.id);
          if (root === undefined) continue;
          await reconcileThread(c.id, root);
          n++;
        }
        return { conversations: n };
      })().finally(() => {
        pass = undefined;
      });
      return pass;
    },

    async dispose() {
      if (timer) clearInterval(timer);
      await worker?.stop();
    },

    async createConversation({ productSlug, customerId, subject, body, clientMessageId }) {
      const { mirror, cx } = attached();
      const meta = { customerId, ...(clientMessageId ? { clientMessageId } : {}) };
      // customer text is shown, never interpreted: `<!channel>`, `<@U…>` and `<url|label>` arrive as typed
      const { ts } = await post(`*${escapeSlack(subject)}*\n${escapeSlack(stripMetadata(body))}`, meta);
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
        let ts: string | undefined;
        if (clientMessageId !== null) {
          // as on GitHub: the first attempt marks the message before posting; a repeat looks in the thread
          // for what an attempt that failed after its post left there (the metadata names the message)
          const deliveryId = `${conversationId}\n${scope.customerId}\n${clientMessageId}`;
          const first = await cx.store.claimDelivery({ source: `slack-post:${tag}`, deliveryId, receivedAt: iso(cx.clock.now()) });
          if (!first) {
            const own = await me();
            const earlier = (await replies(c.root))?.find((m) => {
              const p = m.metadata?.event_type === META_EVENT ? m.metadata.event_payload : undefined;
              return m.user === own && p?.clientMessageId === clientMessageId && p.customerId === scope.customerId;
            });
            ts = earlier?.ts;
          }
        }
        const again = ts !== undefined;
        ts ??= (await post(`*Customer:* ${escapeSlack(stripMetadata(body ?? ""))}`, meta, c.root)).ts;
        const added = await mirror.addMessage(
          conversationId,
          {
            id: msgId(ts),
            body,
            author: "Customer",
            isCustomer: true,
            dedupKey: clientMessageId ?? `#slack/${ts}`,
            createdAt: again ? tsTime(ts) : iso(cx.clock.now()),
          },
          (s) => (s === "closed" ? s : "waiting-for-agent"),
        );
        if (!added) throw supportError("conversation_not_found");
        return { id: added.message.id, createdAt: added.message.createdAt, deduplicated: again };
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
      await worker?.idle();
    },
  };
  return backend;
}
