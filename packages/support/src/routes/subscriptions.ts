// Outbound-event (webhook) subscriptions of a product under the Support SPI, at /care/webhooks: the bearer token
// names the product (the service's `spiToken` its `spiProduct`, a product's own `spiToken` that product), and a
// subscription or delivery of another product answers 404 like one that does not exist (docs/support.md#webhooks).
import type { Middleware, Route } from "@mountkit/core";
import { webhookRoutes } from "@mountkit/core/webhooks";
import { productScope, SUPPORT_EVENTS } from "../domain/outbound.js";
import { spiBearer } from "../http/auth.js";
import type { SupportContext } from "../http/context.js";
import { bodyErrors } from "./schemas.js";
import { spiProductOf } from "./spi.js";

export const SUBSCRIPTIONS_PATH = "/care/webhooks";

export function subscriptionRoutes(cx: SupportContext): Route[] {
  // the product is checked before the handler, so a token of a service with no product gets 404 on every route
  const product: Middleware = async (ctx, next) => {
    spiProductOf(cx, ctx.state);
    return next();
  };
  const routes = webhookRoutes({
    webhooks: cx.hooks,
    path: SUBSCRIPTIONS_PATH,
    use: [spiBearer(cx.spiTokens, "support-spi"), product],
    security: ["spiBearer"],
    scopeOf: (ctx) => productScope(spiProductOf(cx, ctx.state).slug),
    eventTypes: SUPPORT_EVENTS,
    authErrors: {
      401: { description: "Bad or missing bearer token" },
      404: { description: "No product is served on this SPI, or no such subscription or delivery of your product" },
    },
  });
  // a route that reads a body documents what the core answers about it, as the service's other routes do
  return routes.map((r) => (r.body ? { ...r, responses: { ...bodyErrors, ...r.responses } } : r));
}
