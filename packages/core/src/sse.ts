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

export function encodeSseEvent(ev: SseEvent): string {
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

const TICK = Symbol("tick");
const ABORT = Symbol("abort");

/**
 * Turns an event source into wire frames: `retry:` first, then events, with a `: ping` comment whenever
 * the source is quiet for `heartbeatMs`. Ends when the source ends or `signal` aborts.
 */
export async function* sseFrames(
  events: AsyncIterable<SseEvent>,
  options: { retryMs?: number; heartbeatMs?: number; signal: AbortSignal },
): AsyncGenerator<string> {
  const { signal } = options;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  if (options.retryMs !== undefined) yield `retry: ${Math.max(0, Math.floor(options.retryMs))}\n\n`;
  const it = events[Symbol.asyncIterator]();
  let aborted: Promise<typeof ABORT>;
  let onAbort: () => void = () => {};
  aborted = new Promise((resolve) => {
    onAbort = () => resolve(ABORT);
    if (signal.aborted) resolve(ABORT);
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  let pending: Promise<IteratorResult<SseEvent>> | undefined;
  try {
    while (!signal.aborted) {
      pending ??= it.next();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const tick = new Promise<typeof TICK>((resolve) => {
        timer = setTimeout(() => resolve(TICK), heartbeatMs);
      });
      const r = await Promise.race([pending, tick, aborted]);
      clearTimeout(timer);
      if (r === ABORT) break;
      if (r === TICK) {
        yield ": ping\n\n";
        continue;
      }
      pending = undefined;
      if (r.done) break;
      yield encodeSseEvent(r.value);
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    // A source built on `channel` returns at once even with a pending next().
    void it.return?.()?.catch?.(() => {});
  }
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
  const max = options.maxBuffered ?? 10_000;
  const buffer: T[] = [];
  let waiting: ((r: IteratorResult<T>) => void) | undefined;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    options.signal?.removeEventListener("abort", close);
    if (waiting) {
      const w = waiting;
      waiting = undefined;
      w({ done: true, value: undefined });
    }
    options.onClose?.();
  };
  if (options.signal?.aborted) close();
  else options.signal?.addEventListener("abort", close, { once: true });

  const iterator: AsyncIterator<T> = {
    next() {
      if (buffer.length) return Promise.resolve({ done: false, value: buffer.shift() as T });
      if (closed) return Promise.resolve({ done: true, value: undefined });
      return new Promise((resolve) => {
        waiting = resolve;
      });
    },
    return() {
      buffer.length = 0;
      close();
      return Promise.resolve({ done: true, value: undefined });
    },
  };
  return {
    push(value: T) {
      if (closed) return false;
      if (waiting) {
        const w = waiting;
        waiting = undefined;
        w({ done: false, value });
        return true;
      }
      if (buffer.length >= max) {
        buffer.length = 0;
        close();
        return false;
      }
      buffer.push(value);
      return true;
    },
    close,
    get closed() {
      return closed;
    },
    [Symbol.asyncIterator]: () => iterator,
  };
}
