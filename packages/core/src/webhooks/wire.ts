// Subscriptions and deliveries on the wire, and the bodies that create and change a subscription.
import * as z from "zod";
import { iso } from "../clock.js";
import type { Delivery, DeliveryAttempt, Subscription } from "./types.js";

export const SubscriptionSchema = z.object({
  id: z.string(),
  url: z.string().describe("Where deliveries are POSTed"),
  events: z.array(z.string()).describe("Event types delivered; `*` for all"),
  description: z.string(),
  enabled: z.boolean(),
  secret: z.string().describe("`whsec_…`: verify each delivery's `webhook-signature` with it (Standard Webhooks)"),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const AttemptSchema = z.object({
  at: z.string(),
  status: z.number().int().nullable().describe("The receiver's HTTP status; null when it did not answer"),
  error: z.string().nullable(),
  durationMs: z.number().int(),
  response: z.string().describe("The start of the receiver's answer (at most 2 KiB)"),
});

export const DeliverySchema = z.object({
  id: z.string(),
  subscriptionId: z.string(),
  eventId: z.string().describe("Also the `webhook-id` header: the same on every attempt"),
  eventType: z.string(),
  subject: z.string(),
  state: z.enum(["pending", "delivered", "failed"]),
  payload: z.unknown().describe("The body sent: `{ type, timestamp, data }`"),
  attempts: z.array(AttemptSchema).describe("The latest attempts (at most 20), oldest first"),
  attemptCount: z.number().int(),
  occurredAt: z.string(),
  createdAt: z.string(),
  deliveredAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable().describe("When the next automatic attempt is due"),
});

export const DeliveryPageSchema = z.object({ data: z.array(DeliverySchema), next: z.string().nullable() });

const Url = z
  .string()
  .max(2048)
  .refine((u) => URL.canParse(u), "must be an absolute URL");
const Events = z.array(z.string().min(1).max(100)).min(1).max(50);

export const CreateSubscriptionBody = z.strictObject({
  url: Url,
  events: Events,
  description: z.string().max(500).optional(),
  enabled: z.boolean().optional(),
});

export const UpdateSubscriptionBody = z.strictObject({
  url: Url.optional(),
  events: Events.optional(),
  description: z.string().max(500).optional(),
  enabled: z.boolean().optional(),
  rotateSecret: z.literal(true).optional().describe("Replace the secret with a new one"),
});

export const subscriptionWire = (s: Subscription): z.output<typeof SubscriptionSchema> => ({
  id: s.id,
  url: s.url,
  events: s.events,
  description: s.description,
  enabled: s.enabled,
  secret: s.secret,
  createdAt: iso(s.createdAt),
  updatedAt: iso(s.updatedAt),
});

const attemptWire = (a: DeliveryAttempt) => ({ ...a, at: iso(a.at) });

export const deliveryWire = (d: Delivery): z.output<typeof DeliverySchema> => ({
  id: d.id,
  subscriptionId: d.subscriptionId,
  eventId: d.eventId,
  eventType: d.eventType,
  subject: d.subject,
  state: d.state,
  payload: JSON.parse(d.payload),
  attempts: d.attempts.map(attemptWire),
  attemptCount: d.attemptCount,
  occurredAt: iso(d.occurredAt),
  createdAt: iso(d.createdAt),
  deliveredAt: d.deliveredAt === null ? null : iso(d.deliveredAt),
  nextAttemptAt: d.nextAttemptAt === null ? null : iso(d.nextAttemptAt),
});
