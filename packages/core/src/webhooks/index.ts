// @mountkit/core/webhooks: outbound events for every service. Events ride the durable queue (enqueued with the change
// they report), fan out to the subscriptions of their scope, and are delivered signed per Standard Webhooks.
export { DEFAULT_RETRY_SCHEDULE_MS, retryDelay, startWebhooks, type WebhookDispatcher, type WebhookOptions } from "./dispatcher.js";
export { deliveryQueue, eventId, eventJob, fanoutQueue, subscribedTypes, webhookEvent } from "./events.js";
export { inMemoryWebhookStore, memoryWebhookStore } from "./in-memory-store.js";
export { type WebhookRoutesOptions, webhookRoutes } from "./routes.js";
export { newSecret } from "./secret.js";
export { signedHeaders } from "./send.js";
export {
  type Delivery,
  type DeliveryAttempt,
  type DeliveryState,
  KEPT_ATTEMPTS,
  type Subscription,
  takesEvent,
  type WebhookEvent,
  type WebhookStore,
} from "./types.js";
export { DeliverySchema, SubscriptionSchema } from "./wire.js";
