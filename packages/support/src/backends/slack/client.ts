// The Slack Web API as the Slack backend uses it: the state one backend's parts share, the ids it gives
// threads and messages, and its calls (auth.test, users.info, conversations.replies, chat.postMessage).
import { iso } from "@mountkit/core";
import type { Worker } from "@mountkit/core/jobs";
import type { BackendContext } from "../../domain/backend.js";
import type { Mirror } from "../../domain/mirror.js";
import { supportError } from "../../errors.js";
import { SLACK_TEXT_LIMIT, splitSlackText } from "../display.js";
import { keyedLock, type RestClient, type RestReply, restClient, shortHash } from "../rest.js";

export interface SlackBackendOptions {
  /**
   * Bot token (`xoxb-...`) with chat:write, users:read and the channel's history scope, and files:write to upload
   * customers' attachments into the thread (docs/support.md#attachments-on-slack).
   */
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
  /** How often the event and upload workers look for jobs another process (or a restart) left; default 1 s. */
  workerPollMs?: number;
  /**
   * Wait before the next attempt of a failed file upload; default the job queue's backoff (doubling from 1 s, with
   * jitter). After 4 attempts the thread gets a line naming the file (with its signed link when the service has
   * `attachments.links`).
   */
  fileRetryBackoffMs?: number;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export interface SlackMessage {
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

export const META_EVENT = "mountkit_customer_message";
/** Subtypes that are still a person's plain message. */
export const PLAIN = new Set([undefined, "thread_broadcast", "file_share", "me_message"]);

/** One Slack backend: its options, channel, client and lock, and what attaching and running it set. */
export interface SlackState {
  options: SlackBackendOptions;
  channel: string;
  /** A tag of the API and channel in every id, so two channels (or a re-pointed product) never collide. */
  tag: string;
  /** The job queue of this channel's events. */
  queue: string;
  api: RestClient;
  lock: ReturnType<typeof keyedLock>;
  /** Display names by user id, asked once per process. */
  names: Map<string, string>;
  botUser?: Promise<string>;
  at?: { cx: BackendContext; mirror: Mirror };
  worker?: Worker;
  /** Uploads customers' attachments into threads (slack/files.ts). */
  filesWorker?: Worker;
  timer?: ReturnType<typeof setInterval>;
  pass?: Promise<{ conversations: number }>;
}

export function slackState(options: SlackBackendOptions): SlackState {
  const apiUrl = (options.apiUrl ?? "https://slack.com/api").replace(/\/+$/, "");
  const channel = options.channel;
  const tag = shortHash(`${apiUrl}/${channel}`);
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
  return {
    options,
    channel,
    tag,
    // one queue per channel: two Slack products on one store never take each other's events
    queue: `support.slack.${tag}`,
    api,
    lock: keyedLock(),
    names: new Map(),
    botUser: options.botUserId ? Promise.resolve(options.botUserId) : undefined,
  };
}

export const convId = (s: SlackState, rootTs: string) => `sl_${s.tag}_${rootTs.replace(".", "_")}`;

/** The thread's root ts of a conversation id of this channel; undefined for any other id. */
export function rootOf(s: SlackState, id: string): string | undefined {
  const m = new RegExp(`^sl_${s.tag}_(\\d+)_(\\d+)$`).exec(id);
  return m ? `${m[1]}.${m[2]}` : undefined;
}

export const msgId = (s: SlackState, ts: string) => `slm_${s.tag}_${ts.replace(".", "_")}`;
export const tsTime = (ts: string) => iso(Math.floor(Number(ts) * 1000));

export function attached(s: SlackState): NonNullable<SlackState["at"]> {
  if (!s.at) throw new Error("slack backend used before a support service attached it");
  return s.at;
}

/** Slack answers HTTP 200 with `ok: false` for its errors. */
function ok<T>(r: RestReply, what: string): T {
  const body = r.body as { ok?: boolean; error?: string } | undefined;
  if (r.status === 200 && body?.ok) return body as T;
  throw supportError("backend_unavailable", { message: `Slack ${what} failed: ${body?.error ?? r.status}` });
}

/** The bot's own user id (asked once; asked again after a failure). */
export function me(s: SlackState): Promise<string> {
  s.botUser ??= s.api.read({ method: "POST", path: "/auth.test" }).then((r) => ok<{ user_id: string }>(r, "auth.test").user_id);
  s.botUser.catch(() => {
    s.botUser = undefined;
  });
  return s.botUser;
}

export async function displayName(s: SlackState, user: string | undefined): Promise<string> {
  if (!user) return "agent";
  const known = s.names.get(user);
  if (known) return known;
  try {
    const r = ok<{ user?: { name?: string; real_name?: string; profile?: { display_name?: string; real_name?: string } } }>(
      await s.api.read({ path: "/users.info", query: { user } }),
      "users.info",
    );
    const name = r.user?.profile?.display_name || r.user?.profile?.real_name || r.user?.real_name || r.user?.name || user;
    s.names.set(user, name);
    return name;
  } catch {
    return user;
  }
}

/**
 * A thread's messages, root first, every page (cursor pagination); null when the thread is gone.
 * `maxWaitMs`: how long a rate limit may hold it (a background pass waits longer than a customer).
 */
export async function replies(s: SlackState, root: string, maxWaitMs?: number): Promise<SlackMessage[] | null> {
  const out: SlackMessage[] = [];
  let cursor: string | undefined;
  do {
    const r = await s.api.read({
      path: "/conversations.replies",
      query: { channel: s.channel, ts: root, limit: 200, include_all_metadata: "true", cursor },
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

export async function post(s: SlackState, text: string, meta: Record<string, string>, threadTs?: string): Promise<{ ts: string }> {
  const r = await s.api.write({
    method: "POST",
    path: "/chat.postMessage",
    body: {
      channel: s.channel,
      text,
      ...(threadTs ? { thread_ts: threadTs } : {}),
      metadata: { event_type: META_EVENT, event_payload: meta },
      unfurl_links: false,
    },
  });
  return ok<{ ts: string }>(r, "chat.postMessage");
}

/**
 * Escaped text in as many posts as Slack's length limit needs, in order: `head` opens the first, `_(i/n)_` the
 * others (thread replies under the first when `threadTs` is absent). With several parts each carries
 * `part: "i/n"` in its metadata, so a retry posts only the parts `done` (part -> ts, an earlier attempt's) lacks.
 * Answers the first part's ts, which names the message.
 */
export async function postParts(
  s: SlackState,
  head: string,
  text: string,
  meta: Record<string, string>,
  threadTs?: string,
  done: ReadonlyMap<number, string> = new Map(),
): Promise<{ ts: string }> {
  // room for the head or the `_(i/n)_ ` mark
  const pieces = splitSlackText(text, SLACK_TEXT_LIMIT - Math.max(head.length, 24));
  const n = pieces.length;
  let first = done.get(1);
  for (let i = 1; i <= n; i++) {
    if (done.has(i)) continue;
    const piece = pieces[i - 1]!;
    const r = await post(
      s,
      i === 1 ? `${head}${piece}` : `_(${i}/${n})_ ${piece}`,
      n > 1 ? { ...meta, part: `${i}/${n}` } : meta,
      threadTs ?? first,
    );
    if (i === 1) first = r.ts;
  }
  return { ts: first! };
}
