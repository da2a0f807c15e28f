// Server-Sent Events as a first-class result: event encoding, heartbeats, and a bounded push channel.
export interface SseEvent {
  /** Written as `id:`; CR/LF refused. */
  id?: string | number;
  /** Written as `event:`; CR/LF refused. */
  event?: string;
  /** Strings are sent as-is (split on newlines), anything else as JSON. */
  data?: unknown;
  /** A comment line (`: text`), e.g. a heartbeat. */
  comment?: string;
}

const NEWLINE = /[\r\n]/;

/** Frames already encoded: a broadcast hands the same event object to every stream, encode it once (events are immutable once emitted). */
const encoded = new WeakMap<SseEvent, string>();

export function encodeSseEvent(ev: SseEvent): string {
  const cached = encoded.get(ev);
  if (cached !== undefined) return cached;
  const frame = encodeFresh(ev);
  encoded.set(ev, frame);
  return frame;
}

function encodeFresh(ev: SseEvent): string {
  let out = "";
  if (ev.comment !== undefined) out += `: ${ev.comment.replace(/[\r\n]+/g, " ")}\n`;
  if (ev.id !== undefined) {
    const id = String(ev.id);
    if (NEWLINE.test(id)) throw new Error("SSE id must not contain CR or LF");
    out += `id: ${id}\n`;
  }
  if (ev.event !== undefined) {
    if (NEWLINE.test(ev.event)) throw new Error("SSE event name must not contain CR or LF");
    out += `event: ${ev.event}\n`;
  }
  if (ev.data !== undefined) {
    const payload = typeof ev.data === "string" ? ev.data : JSON.stringify(ev.data);
    for (const line of payload.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  }
  return `${out}\n`;
}

/** One interval per heartbeat period, shared by every stream using it: no timer per event or per stream. */
interface Beating {
  idleSince: number;
  ping(): void;
}
const tickers = new Map<number, { streams: Set<Beating>; timer: ReturnType<typeof setInterval> }>();

function beat(heartbeatMs: number, stream: Beating): () => void {
  let t = tickers.get(heartbeatMs);
  if (!t) {
    const streams = new Set<Beating>();
    const timer = setInterval(
      () => {
        const now = Date.now();
        for (const s of streams) if (now - s.idleSince >= heartbeatMs) s.ping();
      },
      Math.max(5, Math.min(1000, Math.floor(heartbeatMs / 4))),
    );
    timer.unref?.();
    t = { streams, timer };
    tickers.set(heartbeatMs, t);
  }
  const entry = t;
  entry.streams.add(stream);
  return () => {
    entry.streams.delete(stream);
    if (entry.streams.size === 0) {
      clearInterval(entry.timer);
      tickers.delete(heartbeatMs);
    }
  };
}

/**
 * Turns an event source into wire frames: `retry:` first, then events, with a `: ping` comment whenever
 * the stream has been quiet for `heartbeatMs`. Ends when the source ends or `signal` aborts. Pull-based:
 * the writer's pace (backpressure) decides when the next event is taken from the source.
 */
export function sseFrames(
  events: AsyncIterable<SseEvent>,
  options: { retryMs?: number; heartbeatMs?: number; signal: AbortSignal },
): AsyncIterableIterator<string> {
  const { signal } = options;
  const source = events[Symbol.asyncIterator]();
  let first: string | undefined = options.retryMs !== undefined ? `retry: ${Math.max(0, Math.floor(options.retryMs))}\n\n` : undefined;
  let done = false;
  let pulling = false;
  let buffered: IteratorResult<SseEvent> | undefined;
  let waiter: ((r: IteratorResult<string>) => void) | undefined;
  const DONE: IteratorResult<string> = { done: true, value: undefined };

  const stream: Beating = {
    idleSince: Date.now(),
    ping() {
      if (!waiter || done) return; // the writer is busy: the connection is not idle
      stream.idleSince = Date.now();
      const w = waiter;
      waiter = undefined;
      w({ done: false, value: ": ping\n\n" });
    },
  };
  const stopBeat = beat(options.heartbeatMs ?? 15_000, stream);

  const finish = () => {
    if (done) return;
    done = true;
    stopBeat();
    signal.removeEventListener("abort", finish);
    // a source built on `channel` returns at once even with a pending next()
    void Promise.resolve()
      .then(() => source.return?.())
      .catch(() => {});
    if (waiter) {
      const w = waiter;
      waiter = undefined;
      w(DONE);
    }
  };
  if (signal.aborted) finish();
  else signal.addEventListener("abort", finish, { once: true });

  const toFrame = (r: IteratorResult<SseEvent>): IteratorResult<string> => {
    if (r.done || done) {
      finish();
      return DONE;
    }
    try {
      const value = encodeSseEvent(r.value);
      stream.idleSince = Date.now();
      return { done: false, value };
    } catch {
      finish();
      return DONE;
    }
  };
  const deliver = (r: IteratorResult<SseEvent>) => {
    pulling = false;
    if (waiter) {
      const w = waiter;
      waiter = undefined;
      w(toFrame(r));
    } else buffered = r;
  };

  const iterator: AsyncIterableIterator<string> = {
    next() {
      if (done) return Promise.resolve(DONE);
      if (first !== undefined) {
        const value = first;
        first = undefined;
        return Promise.resolve({ done: false, value });
      }
      if (buffered) {
        const r = buffered;
        buffered = undefined;
        return Promise.resolve(toFrame(r));
      }
      if (!pulling) {
        pulling = true;
        source.next().then(deliver, () => deliver({ done: true, value: undefined }));
      }
      return new Promise((resolve) => {
        waiter = resolve;
      });
    },
    return() {
      finish();
      return Promise.resolve(DONE);
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

export interface Channel<T> extends AsyncIterable<T> {
  push(value: T): boolean;
  close(): void;
  readonly closed: boolean;
}

/**
 * A push-to-pull queue for live events. Bounded: when the consumer falls `maxBuffered` behind, the
 * channel closes (a stalled stream is dropped rather than growing without limit). Ends when `signal`
 * aborts, and `return()` ends it at once even while a `next()` is pending.
 */
export function channel<T>(options: { signal?: AbortSignal; maxBuffered?: number; onClose?: () => void } = {}): Channel<T> {
  return new BoundedChannel<T>(options);
}

// A class rather than an object literal with a `closed` getter: V8 puts a literal's accessor pair in old
// space, which keeps each stream's closures alive through young-generation GCs.
class BoundedChannel<T> implements Channel<T>, AsyncIterator<T> {
  readonly #max: number;
  readonly #buffer: T[] = [];
  readonly #signal: AbortSignal | undefined;
  readonly #onClose: (() => void) | undefined;
  #waiting: ((r: IteratorResult<T>) => void) | undefined;
  #closed = false;

  constructor(options: { signal?: AbortSignal; maxBuffered?: number; onClose?: () => void }) {
    this.#max = options.maxBuffered ?? 10_000;
    this.#signal = options.signal;
    this.#onClose = options.onClose;
    if (this.#signal?.aborted) this.close();
    else this.#signal?.addEventListener("abort", this.close, { once: true });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Bound: usable as a listener. */
  readonly close = (): void => {
    if (this.#closed) return;
    this.#closed = true;
    this.#signal?.removeEventListener("abort", this.close);
    const w = this.#waiting;
    if (w) {
      this.#waiting = undefined;
      w({ done: true, value: undefined });
    }
    this.#onClose?.();
  };

  push(value: T): boolean {
    if (this.#closed) return false;
    const w = this.#waiting;
    if (w) {
      this.#waiting = undefined;
      w({ done: false, value });
      return true;
    }
    if (this.#buffer.length >= this.#max) {
      this.#buffer.length = 0;
      this.close();
      return false;
    }
    this.#buffer.push(value);
    return true;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#buffer.length) return Promise.resolve({ done: false, value: this.#buffer.shift() as T });
    if (this.#closed) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<T>> {
    this.#buffer.length = 0;
    this.close();
    return Promise.resolve({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return this;
  }
}
