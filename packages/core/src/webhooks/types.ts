// The outbound-events vocabulary shared by the three services: an event, a subscription to a scope's events, a
// delivery of one event to one subscription with its attempts, and the storage behind them.

/** Something that happened in a service, in one tenant's scope (an owner, a product, a brain). */
export interface WebhookEvent<T = unknown> {
  /** Time-ordered (`evt_` + time + sequence): a subject's events sort in the order they happened. */
  id: string;
  /** `entry.created`, `conversation.status_changed`, `episode.done`... */
  type: string;
  /** The tenant whose subscriptions receive it: `entries:owner:<id>`, `support:product:<slug>`, `memory:brain:<id>`. */
  scope: string;
  /** What it is about (an entry, a conversation, an episode): deliveries of one subject arrive in order. */
  subject: string;
  /** Epoch milliseconds. */
  occurredAt: number;
  data: T;
}

/** Where a scope's events go. */
export interface Subscription {
  id: string;
  scope: string;
  url: string;
  /** Event types delivered; `*` for every type. */
  events: string[];
  /** `whsec_` + base64 key: signs every delivery (Standard Webhooks). */
  secret: string;
  description: string;
  /** A disabled subscription receives no new events; deliveries already made keep their course. */
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
}

/** Whether the subscription takes new events of `type`: enabled, and `type` or `*` among its events. */
export const takesEvent = (s: Pick<Subscription, "enabled" | "events">, type: string) =>
  s.enabled && (s.events.includes("*") || s.events.includes(type));

export type DeliveryState = "pending" | "delivered" | "failed";

/** One try of one delivery. */
export interface DeliveryAttempt {
  at: number;
  /** The receiver's HTTP status; null when it did not answer (refused, timed out, unreachable). */
  status: number | null;
  /** Why the attempt failed; null for a 2xx. */
  error: string | null;
  durationMs: number;
  /** The start of the receiver's answer (at most 2 KiB), for the log. */
  response: string;
}

/** One event on its way to one subscription. */
export interface Delivery {
  /** `dlv_` + the event's and the subscription's ids. */
  id: string;
  subscriptionId: string;
  scope: string;
  eventId: string;
  eventType: string;
  subject: string;
  /** The exact JSON body sent (and signed). */
  payload: string;
  occurredAt: number;
  state: DeliveryState;
  /** The latest attempts, oldest first (at most 20 kept). */
  attempts: DeliveryAttempt[];
  /** Attempts made in all (including those no longer kept). */
  attemptCount: number;
  createdAt: number;
  deliveredAt: number | null;
  /** When the next automatic attempt is due; null when none is planned. */
  nextAttemptAt: number | null;
}

/** Storage of subscriptions and deliveries. A delivery's id is unique: adding it twice keeps the first. */
export interface WebhookStore {
  createSubscription(s: Subscription): Promise<void>;
  /** The subscription when it belongs to `scope`. */
  getSubscription(scope: string, id: string): Promise<Subscription | null>;
  listSubscriptions(scope: string): Promise<Subscription[]>;
  /** Enabled subscriptions of `scope` taking `type` (listed, or `*`). */
  matchingSubscriptions(scope: string, type: string): Promise<Subscription[]>;
  /** Replaces a subscription of the same scope and id; false when there is none. */
  updateSubscription(s: Subscription): Promise<boolean>;
  /** Removes a subscription of `scope` and its deliveries; false when there is none. */
  deleteSubscription(scope: string, id: string): Promise<boolean>;
  /** Adds a delivery unless its id exists; true when added. */
  addDelivery(d: Delivery): Promise<boolean>;
  getDelivery(id: string): Promise<Delivery | null>;
  /** A subscription's deliveries, newest event first, strictly before `before` (a delivery id) when given. */
  listDeliveries(subscriptionId: string, page: { limit: number; before?: string }): Promise<Delivery[]>;
  /** Pending deliveries of the subscription and subject for events before `eventId`, oldest first. */
  pendingBefore(subscriptionId: string, subject: string, eventId: string): Promise<Delivery[]>;
  /** Appends an attempt and sets the state and the next planned attempt. */
  recordAttempt(id: string, attempt: DeliveryAttempt, next: { state: DeliveryState; nextAttemptAt: number | null }): Promise<void>;
  /** Makes a delivery pending again (a manual redelivery); false when there is none. */
  resetDelivery(id: string, nextAttemptAt: number): Promise<boolean>;
  /**
   * Deletes the deliveries of `scope` whose payload names any of `ids` (sent or not: an erased record's content is
   * neither kept in the log nor sent), every one of the scope without `ids`; answers how many. Optional for a host's own
   * store, which then keeps them.
   */
  forgetMentions?(scope: string, ids?: readonly string[]): Promise<number>;
}

/** Attempts kept per delivery. */
export const KEPT_ATTEMPTS = 20;
