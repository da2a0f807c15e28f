// Live delivery for SSE streams. One bus subscription and one store read per conversation per process,
// fanned out to every local stream; a stream behind the feed (replay, late join) catches up from the log.
import { type Channel, channel, type Logger, type SseEvent } from "@mountkit/core";
import type { PubSub, Unsubscribe } from "@mountkit/core/jobs";
import { conversationTopic, isNotice } from "../domain/events.js";
import type { EventRecord, SupportStore } from "../store/types.js";

const PAGE = 500;

interface Frame {
  seq: number;
  event: SseEvent;
  terminal: boolean;
}

interface Sub {
  conversationId: string;
  ch: Channel<SseEvent>;
  /** Highest seq written to this stream. */
  delivered: number;
  catchingUp: boolean;
}

interface Feed {
  subs: Set<Sub>;
  unsubscribe: Unsubscribe;
  /** Highest seq the feed has read from the log and fanned out. */
  readSeq: number;
  /** Highest seq a notice announced. */
  target: number;
  pumping: boolean;
}

/** The wire JSON of one event (`{type, data, createdAt}`), serialised once for every stream. */
export function frameOf(e: EventRecord): Frame {
  const payload =
    e.data === null || e.data === undefined
      ? { type: e.type, createdAt: e.createdAt }
      : { type: e.type, data: e.data, createdAt: e.createdAt };
  return { seq: e.seq, event: { id: e.seq, data: JSON.stringify(payload) }, terminal: e.type === "issue_deleted" };
}

/** Tells the client to refetch the detail; `seq` is where its next reconnect resumes from. */
export const resyncEvent = (seq: number, now: number): SseEvent => ({
  id: seq,
  data: JSON.stringify({ type: "resync", createdAt: new Date(now).toISOString() }),
});

export interface StreamHub {
  /**
   * A live stream of a conversation's events after `fromSeq`. `currentSeq` is the conversation's
   * `lastSeq` as read before the call; `first` frames go out before any event.
   */
  open(input: {
    conversationId: string;
    fromSeq: number;
    currentSeq: number;
    first: SseEvent[];
    /** Ends the stream when it aborts; without one, closing the channel does. */
    signal?: AbortSignal;
    maxBuffered?: number;
    onClose?: () => void;
  }): Channel<SseEvent>;
  /** Streams currently open in this process. */
  readonly size: number;
  close(): void;
}

/** What the hub's parts share: its dependencies and the feeds of this process. */
interface Hub {
  store: SupportStore;
  bus: PubSub;
  logger: Logger;
  clock: { now(): number };
  feeds: Map<string, Feed>;
  size: number;
}

type OpenInput = Parameters<StreamHub["open"]>[0];

function push(sub: Sub, f: Frame) {
  sub.ch.push(f.event);
  sub.delivered = f.seq;
  if (f.terminal) sub.ch.close();
}

function deliver(h: Hub, sub: Sub, f: Frame) {
  if (f.seq <= sub.delivered || sub.catchingUp) return;
  if (f.seq === sub.delivered + 1) push(sub, f);
  else void catchUp(h, sub);
}

/** Reads this stream's missing events from the log until it has reached the feed. */
async function catchUp(h: Hub, sub: Sub) {
  if (sub.catchingUp) return;
  sub.catchingUp = true;
  try {
    for (;;) {
      if (sub.ch.closed) return;
      const r = await h.store.readEvents({ conversationId: sub.conversationId, afterSeq: sub.delivered, limit: PAGE });
      if (sub.ch.closed) return;
      if (r.prunedThrough > sub.delivered) {
        // the events this client missed are gone: tell it to refetch the detail, continue from now
        const c = await h.store.getConversation({ id: sub.conversationId });
        const resumeAt = Math.max(r.prunedThrough, c?.lastSeq ?? 0);
        sub.ch.push(resyncEvent(resumeAt, h.clock.now()));
        sub.delivered = resumeAt;
        continue;
      }
      for (const e of r.events) {
        if (e.seq !== sub.delivered + 1) break;
        push(sub, frameOf(e));
        if (sub.ch.closed) return;
      }
      const feed = h.feeds.get(sub.conversationId);
      if (r.events.length < PAGE && (!feed || feed.readSeq <= sub.delivered)) return;
    }
  } catch (error) {
    h.logger.warn("support: stream catch-up failed", { conversationId: sub.conversationId, error });
    sub.ch.close();
  } finally {
    sub.catchingUp = false;
  }
}

/** Reads the log past the feed's position up to the announced seq and fans each event out. */
async function pump(h: Hub, conversationId: string, feed: Feed) {
  if (feed.pumping) return;
  feed.pumping = true;
  try {
    while (feed.target > feed.readSeq && h.feeds.get(conversationId) === feed) {
      const wanted = feed.target;
      const r = await h.store.readEvents({ conversationId, afterSeq: feed.readSeq, limit: PAGE });
      if (!r.events.length) {
        // nothing past readSeq: the announced events are already out, unless a newer notice came in meanwhile
        if (feed.target === wanted) feed.target = feed.readSeq;
        continue;
      }
      for (const e of r.events) {
        const f = frameOf(e);
        for (const sub of feed.subs) deliver(h, sub, f);
        feed.readSeq = e.seq;
      }
    }
  } catch (error) {
    h.logger.warn("support: stream feed read failed", { conversationId, error });
  } finally {
    feed.pumping = false;
  }
  // a notice that arrived during the last read but after it had looked at the log
  if (feed.target > feed.readSeq && h.feeds.get(conversationId) === feed) void pump(h, conversationId, feed);
}

function feedFor(h: Hub, conversationId: string, currentSeq: number): Feed {
  let feed = h.feeds.get(conversationId);
  if (feed) return feed;
  const f: Feed = { subs: new Set(), unsubscribe: () => {}, readSeq: currentSeq, target: currentSeq + 1, pumping: false };
  h.feeds.set(conversationId, f);
  f.unsubscribe = h.bus.subscribe(conversationTopic(conversationId), (m) => {
    if (!isNotice(m) || m.conversationId !== conversationId) return;
    if (m.seq > f.target) f.target = m.seq;
    void pump(h, conversationId, f);
  });
  // anything appended between the caller's read and the subscription
  void pump(h, conversationId, f);
  feed = f;
  return feed;
}

/** One stream joins its conversation's feed: its channel, its place in the feed, and catch-up when it starts behind. */
function join(h: Hub, { conversationId, fromSeq, currentSeq, first, signal, maxBuffered, onClose }: OpenInput): Channel<SseEvent> {
  if (signal?.aborted) {
    const gone = channel<SseEvent>();
    gone.close();
    onClose?.();
    return gone;
  }
  let sub: Sub;
  const ch = channel<SseEvent>({
    signal,
    maxBuffered: maxBuffered ?? 1000,
    onClose: () => {
      h.size--;
      const feed = h.feeds.get(conversationId);
      if (feed) {
        feed.subs.delete(sub);
        if (feed.subs.size === 0) {
          feed.unsubscribe();
          h.feeds.delete(conversationId);
        }
      }
      onClose?.();
    },
  });
  h.size++;
  sub = { conversationId, ch, delivered: fromSeq, catchingUp: false };
  for (const e of first) ch.push(e);
  if (ch.closed) return ch;
  const feed = feedFor(h, conversationId, currentSeq);
  feed.subs.add(sub);
  if (sub.delivered < Math.max(feed.readSeq, currentSeq)) void catchUp(h, sub);
  return ch;
}

export function createStreamHub(deps: { store: SupportStore; bus: PubSub; logger: Logger; clock: { now(): number } }): StreamHub {
  const h: Hub = { store: deps.store, bus: deps.bus, logger: deps.logger, clock: deps.clock, feeds: new Map(), size: 0 };
  return {
    open: (input) => join(h, input),
    get size() {
      return h.size;
    },
    close() {
      for (const feed of [...h.feeds.values()]) for (const sub of [...feed.subs]) sub.ch.close();
    },
  };
}
