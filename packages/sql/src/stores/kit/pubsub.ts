// PubSub across processes over PostgreSQL LISTEN/NOTIFY. One dedicated connection (outside the pool, built
// from the pool's settings, so it never starves queries) listens on a single
// channel from start-up (so a subscription is live the moment `subscribe` returns, with no LISTEN round
// trip per topic); topics are filtered in process. Messages should be small (ids, not payloads):
// NOTIFY caps a payload near 8000 bytes, and readers fetch the data itself from the database.
import { randomUUID } from "node:crypto";
import { kitLogger, type Logger } from "@mountkit/core";
import type { PubSub } from "@mountkit/core/jobs";
import type pg from "pg";
import { loadPg, type PgPool } from "../../drivers.js";

export interface PgPubSubOptions {
  /** NOTIFY channel shared by every process of a deployment. Default `mountkit_bus`. */
  channel?: string;
  logger?: Logger;
  /** First reconnect delay after the listening connection drops; doubles up to 10 s. Default 100 ms. */
  reconnectMs?: number;
  /**
   * Called after the listening connection came back: notifications sent while it was down are lost, so
   * a subscriber that keeps its own position (an SSE stream reading the event log) should catch up.
   */
  onReconnect?: () => void;
}

export interface PgPubSub extends PubSub {
  /** Resolves once the listening connection is up (the first time). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** PostgreSQL's limit is 8000 bytes including the envelope; stay clear of it. */
const MAX_PAYLOAD_BYTES = 7900;

export function pgPubSub(pool: PgPool, options: PgPubSubOptions = {}): PgPubSub {
  const channel = options.channel ?? "mountkit_bus";
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`pgPubSub: channel must be a lower-case SQL identifier, got ${channel}`);
  const log = kitLogger(options.logger);
  // lets a process recognise its own notifications, which it has already delivered locally
  const origin = randomUUID();
  const topics = topicListeners(log);

  function onNotification(n: pg.Notification) {
    if (n.channel !== channel || !n.payload) return;
    let env: { o: string; t: string; m: unknown };
    try {
      env = JSON.parse(n.payload);
    } catch {
      return;
    }
    if (env.o === origin) return;
    topics.deliver(env.t, env.m);
  }

  const connection = listenConnection(pool, channel, log, options, onNotification);

  return {
    ready: connection.ready,
    async publish(topic, message) {
      const payload = JSON.stringify({ o: origin, t: topic, m: message });
      if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES)
        throw new Error(`pgPubSub: message on ${topic} is over ${MAX_PAYLOAD_BYTES} bytes; publish ids and read the data back`);
      topics.deliver(topic, message);
      await pool.query("select pg_notify($1, $2)", [channel, payload]);
    },
    subscribe: topics.subscribe,
    async close() {
      if (connection.closed()) return;
      const ended = connection.close();
      topics.clear();
      await ended;
    },
  };
}

type Listener = (m: unknown) => void;

/** The process's subscriptions by topic; a listener that throws is logged and the others still run. */
function topicListeners(log: Logger) {
  const topics = new Map<string, Set<Listener>>();
  return {
    deliver(topic: string, message: unknown) {
      const set = topics.get(topic);
      if (!set) return;
      for (const l of [...set]) {
        try {
          l(message);
        } catch (e) {
          log.warn("pubsub listener failed", { topic, error: e });
        }
      }
    },
    subscribe(topic: string, listener: Listener) {
      const set = topics.get(topic) ?? new Set<Listener>();
      topics.set(topic, set);
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0 && topics.get(topic) === set) topics.delete(topic);
      };
    },
    clear() {
      topics.clear();
    },
  };
}

/**
 * The dedicated listening connection: connects at once, LISTENs on `channel`, and reconnects with a
 * doubling delay (up to 10 s) whenever it fails or drops, until closed.
 */
function listenConnection(
  pool: PgPool,
  channel: string,
  log: Logger,
  options: Pick<PgPubSubOptions, "reconnectMs" | "onReconnect">,
  onNotification: (n: pg.Notification) => void,
) {
  const baseDelay = options.reconnectMs ?? 100;
  let client: pg.Client | null = null;
  let closed = false;
  let delay = baseDelay;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let firstReady: (() => void) | undefined;
  let firstFailed: ((e: unknown) => void) | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    firstReady = resolve;
    firstFailed = reject;
  });
  ready.catch(() => {});
  let everConnected = false;

  function drop(c: pg.Client, err?: unknown) {
    if (client !== c) return;
    client = null;
    c.off("notification", onNotification);
    c.end().catch(() => {});
    if (closed) return;
    log.warn("pubsub connection lost, reconnecting", { error: err });
    schedule();
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(() => void connect(), delay);
    timer.unref?.();
    delay = Math.min(10_000, delay * 2);
  }

  async function connect() {
    if (closed || client) return;
    const { Client } = await loadPg();
    if (closed || client) return;
    const c = new Client(pool.options as pg.ClientConfig);
    c.on("error", () => {});
    try {
      await c.connect();
    } catch (e) {
      if (!closed) log.warn("pubsub cannot connect", { error: e });
      c.end().catch(() => {});
      schedule();
      return;
    }
    if (closed) {
      c.end().catch(() => {});
      return;
    }
    client = c;
    c.on("notification", onNotification);
    c.on("error", (e) => drop(c, e));
    c.on("end", () => drop(c));
    try {
      await c.query(`listen ${channel}`);
    } catch (e) {
      drop(c, e);
      return;
    }
    delay = baseDelay;
    if (!everConnected) {
      everConnected = true;
      firstReady?.();
    } else {
      log.info("pubsub reconnected");
      try {
        options.onReconnect?.();
      } catch (e) {
        log.warn("pubsub onReconnect failed", { error: e });
      }
    }
  }

  void connect();

  return {
    /** Resolves once the connection is up (the first time); rejects when closed before that. */
    ready: () => ready,
    closed: () => closed,
    /** Stops reconnecting and ends the connection. */
    async close() {
      closed = true;
      clearTimeout(timer);
      firstFailed?.(new Error("pgPubSub closed"));
      const c = client;
      client = null;
      if (c) {
        c.off("notification", onNotification);
        await c.end().catch(() => {});
      }
    },
  };
}
