// The in-process WebhookStore: for tests and single-process hosts without a database.
import { mentionsAny } from "../queue.js";
import { type Delivery, KEPT_ATTEMPTS, type Subscription, takesEvent, type WebhookStore } from "./types.js";

const copy = <T>(v: T): T => structuredClone(v);

export function inMemoryWebhookStore(): WebhookStore {
  const subs = new Map<string, Subscription>();
  const deliveries = new Map<string, Delivery>();
  const bySub = (subscriptionId: string) => [...deliveries.values()].filter((d) => d.subscriptionId === subscriptionId);
  return {
    async createSubscription(s) {
      if (subs.has(s.id)) throw new Error(`duplicate subscription ${s.id}`);
      subs.set(s.id, copy(s));
    },
    async getSubscription(scope, id) {
      const s = subs.get(id);
      return s && s.scope === scope ? copy(s) : null;
    },
    async listSubscriptions(scope) {
      return [...subs.values()]
        .filter((s) => s.scope === scope)
        .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))
        .map(copy);
    },
    async matchingSubscriptions(scope, type) {
      return [...subs.values()].filter((s) => s.scope === scope && takesEvent(s, type)).map(copy);
    },
    async updateSubscription(s) {
      const old = subs.get(s.id);
      if (!old || old.scope !== s.scope) return false;
      subs.set(s.id, copy(s));
      return true;
    },
    async deleteSubscription(scope, id) {
      const old = subs.get(id);
      if (!old || old.scope !== scope) return false;
      subs.delete(id);
      for (const d of bySub(id)) deliveries.delete(d.id);
      return true;
    },
    async forgetMentions(scope, ids) {
      let n = 0;
      for (const d of [...deliveries.values()])
        if (d.scope === scope && mentionsAny(d.payload, ids)) {
          deliveries.delete(d.id);
          n++;
        }
      return n;
    },
    async addDelivery(d) {
      if (deliveries.has(d.id)) return false;
      deliveries.set(d.id, copy(d));
      return true;
    },
    async getDelivery(id) {
      const d = deliveries.get(id);
      return d ? copy(d) : null;
    },
    async listDeliveries(subscriptionId, { limit, before }) {
      const cut = before ? deliveries.get(before) : undefined;
      return bySub(subscriptionId)
        .filter((d) => !cut || d.eventId < cut.eventId)
        .sort((a, b) => (a.eventId < b.eventId ? 1 : -1))
        .slice(0, limit)
        .map(copy);
    },
    async pendingBefore(subscriptionId, subject, eventId) {
      return bySub(subscriptionId)
        .filter((d) => d.subject === subject && d.state === "pending" && d.eventId < eventId)
        .sort((a, b) => (a.eventId < b.eventId ? -1 : 1))
        .map(copy);
    },
    async recordAttempt(id, attempt, next) {
      const d = deliveries.get(id);
      if (!d) return;
      d.attempts = [...d.attempts, attempt].slice(-KEPT_ATTEMPTS);
      d.attemptCount += 1;
      d.state = next.state;
      d.nextAttemptAt = next.nextAttemptAt;
      if (next.state === "delivered") d.deliveredAt = attempt.at;
    },
    async resetDelivery(id, nextAttemptAt) {
      const d = deliveries.get(id);
      if (!d) return false;
      d.state = "pending";
      d.nextAttemptAt = nextAttemptAt;
      return true;
    },
  };
}

/** @deprecated Renamed `inMemoryWebhookStore`: "memory" in a name means the memory service. This alias goes in the next major version. */
export const memoryWebhookStore = inMemoryWebhookStore;
