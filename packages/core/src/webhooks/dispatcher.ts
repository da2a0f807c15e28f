// A service's outbound events at run time: the fan-out worker (an event becomes one delivery per matching
// subscription) and the delivery worker (signed POSTs, retried with backoff and jitter for about a day, then failed).
// Deliveries of one subscription run one at a time (the job group), so a slow receiver holds one worker slot and never
// delays another's; before a delivery goes out, the subscription's earlier pending deliveries of the same subject go
// first, so a receiver that was down gets a subject's events in order once it is back.
import { outboundTransport } from "@mountkit/core/outbound";
import type { Clock } from "../clock.js";
import { kitLogger, type Logger } from "../logger.js";
import { createWorker, type Job, type JobStore, type Worker } from "../queue.js";
import { deliveryQueue, fanoutQueue } from "./events.js";
import { type SendOptions, sendDelivery } from "./send.js";
import type { Delivery, Subscription, WebhookEvent, WebhookStore } from "./types.js";

export interface WebhookOptions {
  /** Let receivers on loopback or private addresses through (tests, private networks). Metadata addresses stay refused. */
  allowPrivate?: boolean;
  /** Per attempt. Default 10 s. */
  timeoutMs?: number;
  /**
   * Delays before the retries, in ms: default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 28 h in all, the
   * Standard Webhooks schedule). Each is drawn within ±20% (jitter). After the last, the delivery is failed.
   */
  retryScheduleMs?: readonly number[];
  /** Deliveries in flight at once, each to a different subscription. Default 8. */
  concurrency?: number;
  /** How often idle workers look for due jobs. Default 500 ms. */
  pollMs?: number;
  /** DNS for the outbound checks (tests). Default the system resolver. */
  resolve?: SendOptions["resolve"];
}

export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

/** A number in [0, 1) from a string: the same job and attempt always draw the same jitter. */
function hashUnit(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return (h >>> 0) / 2 ** 32;
}

/** The delay before retry `attempt` (1-based: after the first failure) of a job, ±20% jitter. */
export function retryDelay(schedule: readonly number[], attempt: number, jobId: string): number {
  const base = schedule[Math.min(attempt, schedule.length) - 1] ?? 0;
  return Math.round(base * (0.8 + 0.4 * hashUnit(`${jobId}:${attempt}`)));
}

export const deliveryId = (event: WebhookEvent, sub: Subscription) => `dlv_${event.id.slice(4)}_${sub.id.replace(/^whs_/, "")}`;

export interface WebhookDispatcher {
  readonly store: WebhookStore;
  readonly jobs: JobStore;
  readonly service: string;
  readonly options: WebhookOptions;
  /** Makes a delivery pending again and queues an attempt now. */
  redeliver(delivery: Delivery): Promise<void>;
  /** Wakes the fan-out worker (after a change was committed with its event). */
  wake(): void;
  /**
   * After an erasure in `scope`: deletes the events not yet fanned out and those done (their jobs keep the event), and
   * the deliveries, sent or not, whose content names any of `ids`; every event and delivery of the scope without `ids`
   * (a deleted tenant). A store without `forgetMentions` keeps its part.
   */
  forget(scope: string, ids?: readonly string[]): Promise<void>;
  /** Resolves when no event or delivery is queued or running (delayed retries count as queued). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/** The payload a receiver gets: Standard Webhooks' `{ type, timestamp, data }`. */
function payloadOf(event: WebhookEvent): string {
  return JSON.stringify({ type: event.type, timestamp: new Date(event.occurredAt).toISOString(), data: event.data });
}

/** The two job handlers: an event's fan-out into deliveries, and one delivery (after its subject's earlier ones). */
function handlers(o: {
  service: string;
  store: WebhookStore;
  jobs: JobStore;
  clock: Clock;
  schedule: readonly number[];
  send: SendOptions;
  log: Logger;
  wakeDelivery: () => void;
}) {
  const { store, clock, schedule, send, log, wakeDelivery } = o;
  async function fanout(job: Job<WebhookEvent>) {
    const event = job.payload;
    // a subscription made after the event (its fan-out ran late, or again) does not get it
    const subs = (await store.matchingSubscriptions(event.scope, event.type)).filter((s) => s.createdAt <= event.occurredAt);
    if (!subs.length) return;
    const payload = payloadOf(event);
    for (const sub of subs) {
      const d: Delivery = {
        id: deliveryId(event, sub),
        subscriptionId: sub.id,
        scope: event.scope,
        eventId: event.id,
        eventType: event.type,
        subject: event.subject,
        payload,
        occurredAt: event.occurredAt,
        state: "pending",
        attempts: [],
        attemptCount: 0,
        createdAt: clock.now(),
        deliveredAt: null,
        nextAttemptAt: clock.now(),
      };
      await store.addDelivery(d);
      // idempotent: a fan-out retried after a crash finds the delivery and its job already there
      await o.jobs.enqueue({
        queue: deliveryQueue(o.service),
        id: d.id,
        payload: { deliveryId: d.id },
        groupKey: sub.id,
        maxAttempts: schedule.length + 1,
        now: clock.now(),
      });
    }
    wakeDelivery();
  }

  /** Sends one delivery; true when the receiver took it. */
  async function attempt(d: Delivery, sub: Subscription, job: Job<{ deliveryId: string }>): Promise<boolean> {
    const a = await sendDelivery(d, sub, clock.now(), send);
    const ok = a.error === null;
    const own = d.id === job.payload.deliveryId;
    const last = own && job.attempts >= job.maxAttempts;
    const next = ok ? null : last ? null : clock.now() + retryDelay(schedule, job.attempts, job.id);
    await store.recordAttempt(d.id, a, { state: ok ? "delivered" : last ? "failed" : "pending", nextAttemptAt: next });
    log.debug("webhook delivery", { delivery: d.id, event: d.eventType, status: a.status, ok, ms: a.durationMs });
    return ok;
  }

  async function deliverOne(job: Job<{ deliveryId: string }>) {
    const d = await store.getDelivery(job.payload.deliveryId);
    if (!d || d.state !== "pending") return;
    const sub = await store.getSubscription(d.scope, d.subscriptionId);
    if (!sub) return;
    // a subject's events in order: the earlier ones still pending for this subscription go first
    for (const e of [...(await store.pendingBefore(sub.id, d.subject, d.eventId)), d])
      if (!(await attempt(e, sub, job))) throw new Error(`delivery ${e.id} not taken`);
  }

  return { fanout, deliverOne };
}

export function startWebhooks(o: {
  service: string;
  store: WebhookStore;
  jobs: JobStore;
  clock: Clock;
  logger?: Logger;
  options?: WebhookOptions;
}): WebhookDispatcher {
  const options = o.options ?? {};
  const log = kitLogger(o.logger);
  const schedule = options.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS;
  const send: SendOptions = {
    timeoutMs: options.timeoutMs ?? 10_000,
    transport: outboundTransport,
    ...(options.allowPrivate ? { allowPrivate: true } : {}),
    ...(options.resolve ? { resolve: options.resolve } : {}),
  };
  const pollMs = options.pollMs ?? 500;
  const { store, clock } = o;
  let deliver: Worker | undefined;

  const { fanout, deliverOne } = handlers({ ...o, schedule, send, log, wakeDelivery: () => deliver?.wake() });
  const fan = createWorker<WebhookEvent>({
    store: o.jobs,
    queue: fanoutQueue(o.service),
    handler: fanout,
    concurrency: 2,
    pollMs,
    clock,
    logger: log,
  });
  deliver = createWorker<{ deliveryId: string }>({
    store: o.jobs,
    queue: deliveryQueue(o.service),
    handler: deliverOne,
    concurrency: options.concurrency ?? 8,
    pollMs,
    // a lease outlives an attempt's time cap for every earlier pending delivery it may send first
    leaseMs: Math.max(60_000, send.timeoutMs * 4),
    backoffMs: (n, job) => retryDelay(schedule, n, job?.id ?? ""),
    clock,
    logger: log,
  });
  fan.start();
  deliver.start();
  return {
    store,
    jobs: o.jobs,
    service: o.service,
    options,
    async redeliver(d) {
      await store.resetDelivery(d.id, clock.now());
      await o.jobs.enqueue({
        queue: deliveryQueue(o.service),
        id: `${d.id}.r${d.attemptCount}`,
        payload: { deliveryId: d.id },
        groupKey: d.subscriptionId,
        maxAttempts: schedule.length + 1,
        now: clock.now(),
      });
      deliver?.wake();
    },
    async forget(scope, ids) {
      if (ids?.length === 0) return;
      // the events first: an event fanned out after this would add deliveries again
      await o.jobs.forgetMentions?.({ queue: fanoutQueue(o.service), groupKey: scope, ...(ids ? { ids } : {}) });
      await store.forgetMentions?.(scope, ids);
    },
    wake() {
      fan.wake();
    },
    async idle() {
      await fan.idle();
      await deliver?.idle();
      await fan.idle();
    },
    async stop() {
      await Promise.all([fan.stop(), deliver?.stop()]);
    },
  };
}
