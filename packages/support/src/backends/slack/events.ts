// Slack activity into the mirror: the Events API receiver (signature checked, the event written to the durable
// job store before the acknowledgement), the worker's handling of one event, and the reconciliation pass over
// `conversations.replies` that repairs what an outage lost.
import { constantTimeEqual, iso } from "@mountkit/core";
import type { WebhookReceiver } from "../../domain/backend.js";
import type { Mirror } from "../../domain/mirror.js";
import { isOpen } from "../../domain/status.js";
import { supportError } from "../../errors.js";
import { decodeSlack } from "../display.js";
import { hmacSha256Hex } from "../rest.js";
import { attached, convId, displayName, me, msgId, PLAIN, replies, rootOf, type SlackMessage, type SlackState, tsTime } from "./client.js";

interface EnvelopeBody {
  type?: string;
  challenge?: string;
  event_id?: string;
  event?: SlackMessage;
}

/** Attempts of one event's job; its backoff (1 s doubling) spans about half a minute, the reconciliation pass does the rest. */
export const EVENT_ATTEMPTS = 6;

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

/** One event after it was acknowledged. */
export async function processEvent(s: SlackState, e: SlackMessage) {
  const { mirror } = attached(s);
  const own = await me(s);
  const isBot = (m: SlackMessage | undefined) => !m || !!m.bot_id || m.subtype === "bot_message" || !!m.app_id || m.user === own;
  if (e.subtype === "message_deleted") {
    const gone = e.deleted_ts ?? e.previous_message?.ts;
    if (!gone) return;
    const root = e.previous_message?.thread_ts ?? gone;
    const id = convId(s, root);
    await s.lock(id, async () => {
      if (root === gone) await mirror.remove(id);
      else if (!isBot(e.previous_message)) await mirror.removeMessage(id, msgId(s, gone));
    });
    return;
  }
  if (e.subtype === "message_changed") {
    const m = e.message;
    if (!m?.ts || !m.thread_ts || m.thread_ts === m.ts || isBot(m)) return;
    const id = convId(s, m.thread_ts);
    const body = await plainText(s, m.text);
    await s.lock(id, () => mirror.editMessage(id, msgId(s, m.ts!), body));
    return;
  }
  if (!PLAIN.has(e.subtype) || isBot(e) || !e.ts || !e.thread_ts || e.thread_ts === e.ts) return;
  const id = convId(s, e.thread_ts);
  await s.lock(id, async () => {
    if (await mirror.get(id)) await addReply(s, mirror, id, e);
  });
}

/**
 * A person's thread reply as an agent message (idempotent: its dedup key is the message's ts). `answers`:
 * the reply is the thread's latest word, so the customer is the one expected to speak next.
 */
async function addReply(s: SlackState, mirror: Mirror, id: string, e: SlackMessage, answers = true) {
  const author = await displayName(s, e.user);
  const body = await plainText(s, e.text);
  await mirror.addMessage(
    id,
    { id: msgId(s, e.ts!), body, author, isCustomer: false, dedupKey: `#slack/${e.ts}`, createdAt: tsTime(e.ts!) },
    (st) => (answers && isOpen(st) ? "waiting-for-customer" : st),
  );
}

/** A person's Slack text as the customer reads it: escapes and `<…>` references decoded, mentions by name. */
const plainText = (s: SlackState, text: string | undefined): Promise<string> =>
  decodeSlack(text ?? "", async (user) => {
    const name = await displayName(s, user);
    return name === user ? undefined : name;
  });

/** One thread against the mirror: replies missed are added, edits applied, deletions removed. */
async function reconcileThread(s: SlackState, id: string, root: string) {
  const { mirror, cx } = attached(s);
  const own = await me(s);
  // Slack limits conversations.replies hard for some apps (about one call a minute): a pass waits it out
  const thread = await replies(s, root, 30 * 60_000);
  await s.lock(id, async () => {
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
      const known = byId.get(msgId(s, m.ts!));
      if (!known) await addReply(s, mirror, id, m, tsTime(m.ts!) > lastCustomer);
      else {
        const body = await plainText(s, m.text);
        if (known.body !== body) await mirror.editMessage(id, known.id, body);
      }
    }
    const present = new Set(people.map((m) => msgId(s, m.ts!)));
    for (const m of mirrored) if (!m.isCustomer && !present.has(m.id)) await mirror.removeMessage(id, m.id);
  });
}

/** One reconciliation pass over the recently active conversations; one pass at a time. */
export function reconcilePass(s: SlackState): Promise<{ conversations: number }> {
  // one pass at a time: under Slack's tightest limit a pass can outlast the timer's period
  s.pass ??= (async () => {
    const { cx } = attached(s);
    const since = iso(cx.clock.now() - (s.options.reconcileLookbackMs ?? 7 * 24 * 3_600_000));
    let n = 0;
    for (const c of await cx.store.listConversations({ productSlug: cx.productSlug })) {
      if (c.updatedAt < since) break;
      const root = rootOf(s, c.id);
      if (root === undefined) continue;
      await reconcileThread(s, c.id, root);
      n++;
    }
    return { conversations: n };
  })().finally(() => {
    s.pass = undefined;
  });
  return s.pass;
}

export function slackWebhook(s: SlackState): WebhookReceiver {
  return {
    source: "slack",
    async receive({ headers, rawBody }) {
      const { cx } = attached(s);
      const { options, channel, queue } = s;
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
      s.worker?.wake();
      if (!(await cx.store.claimDelivery({ source: "slack", deliveryId: body.event_id, receivedAt: iso(cx.clock.now()) })))
        return { status: 200, body: { ok: true, duplicate: true } };
      return { status: 200, body: { ok: true } };
    },
  };
}
