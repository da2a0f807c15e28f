// WebhookStore on SQL: subscriptions and deliveries in two tables of the core migrations. A delivery's attempts are a
// JSON list (the latest twenty) on its row; its id is its primary key, so a fan-out repeated after a crash adds nothing.
import {
  type Delivery,
  type DeliveryAttempt,
  KEPT_ATTEMPTS,
  type Subscription,
  takesEvent,
  type WebhookStore,
} from "@mountkit/core/webhooks";
import type { Kysely } from "kysely";
import type { SqlDatabase } from "../../db.js";
import { deleteMentioning } from "../../mentions.js";

interface SubscriptionRow {
  id: string;
  scope: string;
  url: string;
  events: string;
  secret: string;
  description: string;
  enabled: number;
  created_at: number;
  updated_at: number;
}

interface DeliveryRow {
  id: string;
  subscription_id: string;
  scope: string;
  event_id: string;
  event_type: string;
  subject: string;
  payload: string;
  occurred_at: number;
  state: Delivery["state"];
  attempts: string;
  attempt_count: number;
  created_at: number;
  delivered_at: number | null;
  next_attempt_at: number | null;
}

type WebhooksDb = { webhook_subscriptions: SubscriptionRow; webhook_deliveries: DeliveryRow };

const num = (v: number | null) => (v === null ? null : Number(v));

const toSubscription = (r: SubscriptionRow): Subscription => ({
  id: r.id,
  scope: r.scope,
  url: r.url,
  events: JSON.parse(r.events),
  secret: r.secret,
  description: r.description,
  enabled: Number(r.enabled) === 1,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

const subscriptionRow = (s: Subscription): SubscriptionRow => ({
  id: s.id,
  scope: s.scope,
  url: s.url,
  events: JSON.stringify(s.events),
  secret: s.secret,
  description: s.description,
  enabled: s.enabled ? 1 : 0,
  created_at: s.createdAt,
  updated_at: s.updatedAt,
});

const toDelivery = (r: DeliveryRow): Delivery => ({
  id: r.id,
  subscriptionId: r.subscription_id,
  scope: r.scope,
  eventId: r.event_id,
  eventType: r.event_type,
  subject: r.subject,
  payload: r.payload,
  occurredAt: Number(r.occurred_at),
  state: r.state,
  attempts: JSON.parse(r.attempts) as DeliveryAttempt[],
  attemptCount: Number(r.attempt_count),
  createdAt: Number(r.created_at),
  deliveredAt: num(r.delivered_at),
  nextAttemptAt: num(r.next_attempt_at),
});

export function sqlWebhookStore(database: SqlDatabase): WebhookStore {
  const db = database.kysely as Kysely<WebhooksDb>;
  const pg = database.dialect === "postgres";
  const subs = () => db.selectFrom("webhook_subscriptions").selectAll();
  return {
    async createSubscription(s) {
      await db.insertInto("webhook_subscriptions").values(subscriptionRow(s)).execute();
    },
    async getSubscription(scope, id) {
      const r = await subs().where("id", "=", id).where("scope", "=", scope).executeTakeFirst();
      return r ? toSubscription(r) : null;
    },
    async listSubscriptions(scope) {
      return (await subs().where("scope", "=", scope).orderBy("created_at").orderBy("id").execute()).map(toSubscription);
    },
    async matchingSubscriptions(scope, type) {
      const rows = await subs().where("scope", "=", scope).where("enabled", "=", 1).execute();
      return rows.map(toSubscription).filter((s) => takesEvent(s, type));
    },
    async updateSubscription(s) {
      const { id, scope, created_at: _c, ...set } = subscriptionRow(s);
      const r = await db.updateTable("webhook_subscriptions").set(set).where("id", "=", id).where("scope", "=", scope).executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    async deleteSubscription(scope, id) {
      return db.transaction().execute(async (trx) => {
        const r = await trx.deleteFrom("webhook_subscriptions").where("id", "=", id).where("scope", "=", scope).executeTakeFirst();
        if (Number(r.numDeletedRows) === 0) return false;
        await trx.deleteFrom("webhook_deliveries").where("subscription_id", "=", id).execute();
        return true;
      });
    },
    async forgetMentions(scope, ids) {
      return deleteMentioning(db, pg, db.deleteFrom("webhook_deliveries").where("scope", "=", scope), ids);
    },
    async addDelivery(d) {
      const r = await db
        .insertInto("webhook_deliveries")
        .values({
          id: d.id,
          subscription_id: d.subscriptionId,
          scope: d.scope,
          event_id: d.eventId,
          event_type: d.eventType,
          subject: d.subject,
          payload: d.payload,
          occurred_at: d.occurredAt,
          state: d.state,
          attempts: JSON.stringify(d.attempts),
          attempt_count: d.attemptCount,
          created_at: d.createdAt,
          delivered_at: d.deliveredAt,
          next_attempt_at: d.nextAttemptAt,
        })
        .onConflict((oc) => oc.column("id").doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    async getDelivery(id) {
      const r = await db.selectFrom("webhook_deliveries").selectAll().where("id", "=", id).executeTakeFirst();
      return r ? toDelivery(r) : null;
    },
    async listDeliveries(subscriptionId, { limit, before }) {
      let q = db.selectFrom("webhook_deliveries").selectAll().where("subscription_id", "=", subscriptionId);
      if (before) {
        const cut = await db.selectFrom("webhook_deliveries").select("event_id").where("id", "=", before).executeTakeFirst();
        if (cut) q = q.where("event_id", "<", cut.event_id);
      }
      return (await q.orderBy("event_id", "desc").limit(limit).execute()).map(toDelivery);
    },
    async pendingBefore(subscriptionId, subject, eventId) {
      const rows = await db
        .selectFrom("webhook_deliveries")
        .selectAll()
        .where("subscription_id", "=", subscriptionId)
        .where("subject", "=", subject)
        .where("state", "=", "pending")
        .where("event_id", "<", eventId)
        .orderBy("event_id")
        .execute();
      return rows.map(toDelivery);
    },
    async recordAttempt(id, attempt, next) {
      await db.transaction().execute(async (trx) => {
        const r = await trx.selectFrom("webhook_deliveries").select(["attempts", "attempt_count"]).where("id", "=", id).executeTakeFirst();
        if (!r) return;
        const attempts = [...(JSON.parse(r.attempts) as DeliveryAttempt[]), attempt].slice(-KEPT_ATTEMPTS);
        await trx
          .updateTable("webhook_deliveries")
          .set({
            attempts: JSON.stringify(attempts),
            attempt_count: Number(r.attempt_count) + 1,
            state: next.state,
            next_attempt_at: next.nextAttemptAt,
            ...(next.state === "delivered" ? { delivered_at: attempt.at } : {}),
          })
          .where("id", "=", id)
          .execute();
      });
    },
    async resetDelivery(id, nextAttemptAt) {
      const r = await db
        .updateTable("webhook_deliveries")
        .set({ state: "pending", next_attempt_at: nextAttemptAt })
        .where("id", "=", id)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
  };
}
