// The subscription routes every service mounts under its own auth: list, create, read, change (and rotate the
// secret), delete; a subscription's delivery log, one delivery, and a manual redelivery. A subscription of another
// scope answers 404 like one that does not exist.
import * as z from "zod";
import { coreError } from "../errors.js";
import { randomIds } from "../ids.js";
import { SpecFetchError, vetTarget } from "../outbound/policy.js";
import { empty, json, type Middleware, type RequestContext, type ResponseDoc, type Route, route } from "../route.js";
import type { WebhookDispatcher } from "./dispatcher.js";
import { newSecret } from "./secret.js";
import type { Subscription } from "./types.js";
import {
  CreateSubscriptionBody,
  DeliveryPageSchema,
  DeliverySchema,
  deliveryWire,
  SubscriptionSchema,
  subscriptionWire,
  UpdateSubscriptionBody,
} from "./wire.js";

export interface WebhookRoutesOptions {
  webhooks: WebhookDispatcher;
  /** Where the routes live: `/api/webhooks`, `/v1/webhooks`… */
  path: string;
  /** The service's auth: who is calling, before any handler. */
  use: Middleware[];
  security?: string[];
  /** The caller's scope (`entries:owner:<id>`…), from what `use` put in the context. */
  scopeOf: (ctx: RequestContext) => string;
  /** The event types of the service; a subscription names some of them, or `*`. */
  eventTypes: readonly string[];
  /** Statuses the auth answers (401, 403, 429…), for the documents. */
  authErrors?: Record<number, ResponseDoc>;
}

const Id = z.object({ id: z.string().max(100) });
const DeliveryParams = z.object({ id: z.string().max(100), deliveryId: z.string().max(200) });
const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  cursor: z.string().max(200).optional().describe("`next` of the previous page"),
});

const invalid = (path: string, message: string) => coreError("invalid_request", { details: [{ path, message }] });

/** The URL checks a subscription must pass when it is saved; delivery checks it again, DNS included. */
async function checkUrl(url: string, allowPrivate: boolean) {
  try {
    await vetTarget(new URL(url), { allowPrivate });
  } catch (e) {
    if (e instanceof SpecFetchError) throw invalid("/url", e.message);
    throw e;
  }
}

function checkEvents(events: string[], known: readonly string[]) {
  events.forEach((e, i) => {
    if (e !== "*" && !known.includes(e)) throw invalid(`/events/${i}`, `unknown event type "${e}"; one of ${known.join(", ")} or *`);
  });
}

/** What the subscription and delivery routes share: the options, the auth, the scoped lookups. */
function routeParts(o: WebhookRoutesOptions) {
  const { webhooks } = o;
  const store = webhooks.store;
  const allowPrivate = webhooks.options.allowPrivate === true;
  const common = { tags: ["webhooks"], use: o.use, ...(o.security ? { security: o.security } : {}) };
  const errors = (...s: number[]): Record<number, ResponseDoc> => ({
    ...o.authErrors,
    ...Object.fromEntries(
      s.map((n) => [n, { description: n === 404 ? "No such subscription or delivery in your scope" : "Invalid input" }]),
    ),
  });
  const found = async (ctx: RequestContext<{ id: string }>) => {
    const s = await store.getSubscription(o.scopeOf(ctx), ctx.params.id);
    if (!s) throw coreError("not_found", { message: "no such subscription" });
    return s;
  };
  const delivery = async (ctx: RequestContext<z.output<typeof DeliveryParams>>) => {
    const s = await found(ctx);
    const d = await store.getDelivery(ctx.params.deliveryId);
    if (!d || d.subscriptionId !== s.id) throw coreError("not_found", { message: "no such delivery" });
    return d;
  };
  return { store, allowPrivate, common, errors, found, delivery };
}

type Parts = ReturnType<typeof routeParts>;

function subscriptionRoutes(o: WebhookRoutesOptions, { store, allowPrivate, common, errors, found }: Parts): Route[] {
  return [
    route({
      ...common,
      method: "GET",
      path: o.path,
      operationId: "listWebhooks",
      summary: "List the webhook subscriptions of your scope",
      responses: { 200: { description: "Subscriptions", schema: z.object({ data: z.array(SubscriptionSchema) }) }, ...errors() },
      handler: async (ctx) => json(200, { data: (await store.listSubscriptions(o.scopeOf(ctx))).map(subscriptionWire) }),
    }),
    route({
      ...common,
      method: "POST",
      path: o.path,
      operationId: "createWebhook",
      summary: "Subscribe a URL to event types; the answer carries the signing secret",
      body: CreateSubscriptionBody,
      responses: { 201: { description: "Created", schema: SubscriptionSchema }, ...errors(400) },
      handler: async (ctx) => {
        const b = ctx.body as z.output<typeof CreateSubscriptionBody>;
        checkEvents(b.events, o.eventTypes);
        await checkUrl(b.url, allowPrivate);
        const now = ctx.clock.now();
        const s: Subscription = {
          id: randomIds("whs"),
          scope: o.scopeOf(ctx),
          url: b.url,
          events: [...new Set(b.events)],
          secret: newSecret(),
          description: b.description ?? "",
          enabled: b.enabled ?? true,
          createdAt: now,
          updatedAt: now,
        };
        await store.createSubscription(s);
        return json(201, subscriptionWire(s));
      },
    }),
    route({
      ...common,
      method: "GET",
      path: `${o.path}/:id`,
      operationId: "getWebhook",
      summary: "Read one subscription",
      params: Id,
      responses: { 200: { description: "The subscription", schema: SubscriptionSchema }, ...errors(404) },
      handler: async (ctx) => json(200, subscriptionWire(await found(ctx))),
    }),
    route({
      ...common,
      method: "PATCH",
      path: `${o.path}/:id`,
      operationId: "updateWebhook",
      summary: "Change a subscription's URL, events, description or state, or rotate its secret",
      params: Id,
      body: UpdateSubscriptionBody,
      responses: { 200: { description: "The subscription as changed", schema: SubscriptionSchema }, ...errors(400, 404) },
      handler: async (ctx) => {
        const s = await found(ctx);
        const b = ctx.body as z.output<typeof UpdateSubscriptionBody>;
        if (b.events) checkEvents(b.events, o.eventTypes);
        if (b.url !== undefined) await checkUrl(b.url, allowPrivate);
        const next: Subscription = {
          ...s,
          ...(b.url !== undefined ? { url: b.url } : {}),
          ...(b.events ? { events: [...new Set(b.events)] } : {}),
          ...(b.description !== undefined ? { description: b.description } : {}),
          ...(b.enabled !== undefined ? { enabled: b.enabled } : {}),
          ...(b.rotateSecret ? { secret: newSecret() } : {}),
          updatedAt: ctx.clock.now(),
        };
        if (!(await store.updateSubscription(next))) throw coreError("not_found", { message: "no such subscription" });
        return json(200, subscriptionWire(next));
      },
    }),
    route({
      ...common,
      method: "DELETE",
      path: `${o.path}/:id`,
      operationId: "deleteWebhook",
      summary: "Delete a subscription and its delivery log",
      params: Id,
      responses: { 204: { description: "Deleted" }, ...errors(404) },
      handler: async (ctx) => {
        if (!(await store.deleteSubscription(o.scopeOf(ctx), ctx.params.id)))
          throw coreError("not_found", { message: "no such subscription" });
        return empty(204);
      },
    }),
  ];
}

function deliveryRoutes(o: WebhookRoutesOptions, { store, common, errors, found, delivery }: Parts): Route[] {
  const { webhooks } = o;
  return [
    route({
      ...common,
      method: "GET",
      path: `${o.path}/:id/deliveries`,
      operationId: "listWebhookDeliveries",
      summary: "A subscription's delivery log, newest event first",
      params: Id,
      query: PageQuery,
      responses: { 200: { description: "A page of deliveries", schema: DeliveryPageSchema }, ...errors(400, 404) },
      handler: async (ctx) => {
        const s = await found(ctx);
        const q = ctx.query as z.output<typeof PageQuery>;
        const limit = q.limit ?? 20;
        const rows = await store.listDeliveries(s.id, { limit: limit + 1, ...(q.cursor ? { before: q.cursor } : {}) });
        const data = rows.slice(0, limit);
        return json(200, { data: data.map(deliveryWire), next: rows.length > limit ? data[data.length - 1]!.id : null });
      },
    }),
    route({
      ...common,
      method: "GET",
      path: `${o.path}/:id/deliveries/:deliveryId`,
      operationId: "getWebhookDelivery",
      summary: "One delivery with its attempts",
      params: DeliveryParams,
      responses: { 200: { description: "The delivery", schema: DeliverySchema }, ...errors(404) },
      handler: async (ctx) => json(200, deliveryWire(await delivery(ctx))),
    }),
    route({
      ...common,
      method: "POST",
      path: `${o.path}/:id/deliveries/:deliveryId/redeliver`,
      operationId: "redeliverWebhook",
      summary: "Send a delivery again now (delivered or failed ones too), with the same webhook-id",
      params: DeliveryParams,
      bodyMode: "none",
      responses: { 202: { description: "Queued", schema: DeliverySchema }, ...errors(404) },
      handler: async (ctx) => {
        const d = await delivery(ctx);
        await webhooks.redeliver(d);
        return json(202, deliveryWire((await store.getDelivery(d.id)) ?? d));
      },
    }),
  ];
}

export function webhookRoutes(o: WebhookRoutesOptions): Route[] {
  const parts = routeParts(o);
  return [...subscriptionRoutes(o, parts), ...deliveryRoutes(o, parts)];
}
