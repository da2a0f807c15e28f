// Live events for interface B, which has none of its own: while customers watch a conversation, one poller
// per conversation per process diffs the remote detail against a mirror in the local store, whose event log
// the streams follow. A poller backs off while the remote fails and stops when its last stream ends.
import type { BackendContext, CustomerScope, LocalStream } from "../../domain/backend.js";
import type { Mirror, MirrorSnapshot } from "../../domain/mirror.js";
import type { ConversationView } from "../../domain/views.js";
import type { SpiRemote } from "./remote.js";

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

/** One spi backend's state: its remote, its poll periods, the service it serves and its pollers. */
export interface SpiState {
  remote: SpiRemote;
  pollEvery: number;
  maxPollEvery: number;
  at?: { cx: BackendContext; mirror: Mirror; prefix: string };
  pollers: Map<string, Poller>;
}

function attached(s: SpiState): NonNullable<SpiState["at"]> {
  if (!s.at) throw new Error("spi backend used before a support service attached it");
  return s.at;
}

// mirrored ids are namespaced by product, so a remote id can never meet a local conversation's id
const mirrorIdOf = (s: SpiState, remoteId: string) => `${attached(s).prefix}${remoteId}`;

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

async function poll(s: SpiState, p: Poller) {
  const { mirror, cx } = attached(s);
  try {
    const v = await s.remote.detail(p.customerId, p.remoteId);
    if (p.stopped) return;
    if (!v) {
      // gone remotely (deleted, or no longer this customer's): streams get issue_deleted and end
      await mirror.remove(p.mirrorId);
      stop(s, p);
      return;
    }
    await mirror.sync(p.mirrorId, snapshotOf(p.mirrorId, v));
    p.delay = s.pollEvery;
  } catch (error) {
    p.delay = Math.min(s.maxPollEvery, p.delay * 2);
    cx.logger.warn("support: polling the remote SPI failed", { conversationId: p.remoteId, retryInMs: p.delay, error });
  }
}

function schedule(s: SpiState, p: Poller) {
  if (p.stopped) return;
  p.timer = setTimeout(() => {
    p.timer = undefined;
    void runPoll(s, p).then(() => schedule(s, p));
  }, p.delay);
  (p.timer as { unref?: () => void }).unref?.();
}

function runPoll(s: SpiState, p: Poller): Promise<void> {
  p.running ??= poll(s, p).finally(() => {
    p.running = undefined;
  });
  return p.running;
}

export function stop(s: SpiState, p: Poller) {
  p.stopped = true;
  if (p.timer) clearTimeout(p.timer);
  s.pollers.delete(p.mirrorId);
}

/** Polls at once (after the customer's own write) so the echo reaches the streams without waiting. */
export function poke(s: SpiState, remoteId: string) {
  if (!s.at) return;
  const p = s.pollers.get(mirrorIdOf(s, remoteId));
  if (p) void (p.running ?? Promise.resolve()).then(() => runPoll(s, p));
}

/** A reference to the conversation's poller (started by the first), released once when its stream ends. */
function watch(s: SpiState, mirrorId: string, remoteId: string, customerId: string): () => void {
  let p = s.pollers.get(mirrorId);
  if (!p) {
    p = { mirrorId, remoteId, customerId, refs: 0, delay: s.pollEvery, stopped: false };
    s.pollers.set(mirrorId, p);
    schedule(s, p);
  }
  p.refs++;
  const poller = p;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--poller.refs <= 0) stop(s, poller);
  };
}

/** The mirror a customer's stream follows, brought up to the remote's detail now, and its poller. */
export async function openMirrored(
  s: SpiState,
  { productSlug, customerId, conversationId }: CustomerScope & { conversationId: string },
): Promise<LocalStream | null> {
  const { mirror, cx } = attached(s);
  const v = await s.remote.detail(customerId, conversationId);
  if (!v) return null;
  const mirrorId = mirrorIdOf(s, conversationId);
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
  return { conversation: c, release: watch(s, mirrorId, conversationId, customerId) };
}
