// Making events and the jobs that carry them: an event is written as a fan-out job, in the same transaction as the
// change it reports when the store can (EnqueueInput is what stores insert), so a committed change always has its event.
import type { NewJob } from "../queue.js";
import { takesEvent, type WebhookEvent, type WebhookStore } from "./types.js";

/**
 * Which of `types` some enabled subscription of `scope` takes, in one read of the scope's subscriptions: a service
 * writes an event's job only when someone takes it.
 */
export async function subscribedTypes<T extends string>(store: WebhookStore, scope: string, types: readonly T[]): Promise<ReadonlySet<T>> {
  const subs = await store.listSubscriptions(scope);
  return new Set(types.filter((t) => subs.some((s) => takesEvent(s, t))));
}

let lastTime = 0;
let sequence = 0;

/**
 * A time-ordered event id: `evt_` + 9 base-36 digits of the time + 4 of a per-process sequence + 6 random, so the
 * events of one process sort in the order they were made, and those of several processes by millisecond.
 */
export function eventId(now: number): string {
  if (now > lastTime) {
    lastTime = now;
    sequence = 0;
  } else sequence++;
  const random = crypto.getRandomValues(new Uint8Array(6));
  const tail = Array.from(random, (b) => (b % 36).toString(36)).join("");
  return `evt_${Math.max(0, lastTime).toString(36).padStart(9, "0")}${(sequence % 36 ** 4).toString(36).padStart(4, "0")}${tail}`;
}

export function webhookEvent<T>(input: { type: string; scope: string; subject: string; data: T; now: number }): WebhookEvent<T> {
  return { id: eventId(input.now), type: input.type, scope: input.scope, subject: input.subject, occurredAt: input.now, data: input.data };
}

/** The fan-out queue of a service's events. */
export const fanoutQueue = (service: string) => `webhooks.${service}.fanout`;
/** The delivery queue of a service's events. */
export const deliveryQueue = (service: string) => `webhooks.${service}.deliver`;

/** The fan-out job of an event: one per event (its id), a scope's events fanned out one at a time, in order. */
export function eventJob(service: string, event: WebhookEvent): NewJob {
  return {
    queue: fanoutQueue(service),
    id: event.id,
    payload: event,
    groupKey: event.scope,
    runAt: event.occurredAt,
    now: event.occurredAt,
    maxAttempts: 20,
  };
}
