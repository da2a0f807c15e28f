// Live delivery for SSE streams. One bus subscription and one store read per conversation per process,
// fanned out to every local stream; a stream behind the feed (replay, late join) catches up from the log.
import { type Channel, channel, type Logger, type PubSub, type SseEvent, type Unsubscribe } from "@mountkit/core";
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
    signal: AbortSignal;
    maxBuffered?: number;
    onClose?: () => void;
  }): Channel<SseEvent>;
  /** Streams currently open in this process. */
  readonly size: number;
  close(): void;
}

export function createStreamHub(deps: { store: SupportStore; bus: PubSub; logger: Logger; clock: { now(): number } }): StreamHub {
  const { store, bus, logger } = deps;
  const feeds = new Map<string, Feed>();
  let size = 0;

  function push(sub: Sub, f: Frame) {
    sub.ch.push(f.event);
    sub.delivered = f.seq;
    if (f.terminal) sub.ch.close();
  }

  function deliver(sub: Sub, f: Frame) {
    if (f.seq <= sub.delivered || sub.catchingUp) return;
    if (f.seq === sub.delivered + 1) push(sub, f);
    else void catchUp(sub);
  }

  /** Reads this stream's missing events from the log until it has reached the feed. */
  async function catchUp(sub: Sub) {
    if (sub.catchingUp) return;
    sub.catchingUp = true;
    try {
      for (;;) {
        if (sub.ch.closed) return;
        const r = await store.readEvents({ conversationId: sub.conversationId, afterSeq: sub.delivered, limit: PAGE });
        if (sub.ch.closed) return;
        if (r.prunedThrough > sub.delivered) {
          // the events this client missed are gone: tell it to refetch the detail, continue from now
          const c = await store.getConversation({ id: sub.conversationId });
          const resumeAt = Math.max(r.prunedThrough, c?.lastSeq ?? 0);
          sub.ch.push(resyncEvent(resumeAt, deps.clock.now()));
          sub.delivered = resumeAt;
          continue;
        }
        for (const e of r.events) {
          if (e.seq !== sub.delivered + 1) break;
          push(sub, frameOf(e));
          if (sub.ch.closed) return;
        }
        const feed = feeds.get(sub.conversationId);
        if (r.events.length < PAGE && (!feed || feed.readSeq <= sub.delivered)) return;
      }
    } catch (error) {
      logger.warn("support: stream catch-up failed", { conversationId: sub.conversationId, error });
      sub.ch.close();
    } finally {
      sub.catchingUp = false;
    }
  }

  async function pump(conversationId: string, feed: Feed) {
    if (feed.pumping) return;
    feed.pumping = true;
    try {
      while (feed.target > feed.readSeq && feeds.get(conversationId) === feed) {
        const wanted = feed.target;
        const r = await store.readEvents({ conversationId, afterSeq: feed.readSeq, limit: PAGE });
        if (!r.events.length) {
          // nothing past readSeq: the announced events are already out, unless a newer notice came in meanwhile
          if (feed.target === wanted) feed.target = feed.readSeq;
          continue;
        }
        for (const e of r.events) {
          const f = frameOf(e);
          for (const sub of feed.subs) deliver(sub, f);
          feed.readSeq = e.seq;
        }
      }
    } catch (error) {
      logger.warn("support: stream feed read failed", { conversationId, error });
    } finally {
      feed.pumping = false;
    }
    // a notice that arrived during the last read but after it had looked at the log
    if (feed.target > feed.readSeq && feeds.get(conversationId) === feed) void pump(conversationId, feed);
  }

  function feedFor(conversationId: string, currentSeq: number): Feed {
    let feed = feeds.get(conversationId);
    if (feed) return feed;
    const f: Feed = { subs: new Set(), unsubscribe: () => {}, readSeq: currentSeq, target: currentSeq + 1, pumping: false };
    feeds.set(conversationId, f);
    f.unsubscribe = bus.subscribe(conversationTopic(conversationId), (m) => {
      if (!isNotice(m) || m.conversationId !== conversationId) return;
      if (m.seq > f.target) f.target = m.seq;
      void pump(conversationId, f);
    });
    // anything appended between the caller's read and the subscription
    void pump(conversationId, f);
    feed = f;
    return feed;
  }

  return {
    open({ conversationId, fromSeq, currentSeq, first, signal, maxBuffered, onClose }) {
      if (signal.aborted) {
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
          size--;
          const feed = feeds.get(conversationId);
          if (feed) {
            feed.subs.delete(sub);
            if (feed.subs.size === 0) {
              feed.unsubscribe();
              feeds.delete(conversationId);
            }
          }
          onClose?.();
        },
      });
      size++;
      sub = { conversationId, ch, delivered: fromSeq, catchingUp: false };
      for (const e of first) ch.push(e);
      if (ch.closed) return ch;
      const feed = feedFor(conversationId, currentSeq);
      feed.subs.add(sub);
      if (sub.delivered < Math.max(feed.readSeq, currentSeq)) void catchUp(sub);
      return ch;
    },
    get size() {
      return size;
    },
    close() {
      for (const feed of [...feeds.values()]) for (const sub of [...feed.subs]) sub.ch.close();
    },
  };
}
