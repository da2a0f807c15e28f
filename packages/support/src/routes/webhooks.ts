// Inbound webhooks of the products' backends (GitHub, Slack) under `/agent/webhooks/<source>`. They sit on
// the agent mount because they carry agent activity, but are authenticated by the sender's signature over
// the raw body instead of the agent bearer token (GitHub and Slack cannot send one).
import { json, kitMeter, type Route, route } from "@mountkit/core";
import * as z from "zod";
import type { WebhookReceiver, WebhookReply } from "../domain/backend.js";
import { supportError } from "../errors.js";
import type { SupportContext } from "../http/context.js";

/** GitHub payloads reach 25 MB at worst; conversation issues stay far below this. */
const WEBHOOK_BODY_LIMIT = 5 * 1024 * 1024;

export function webhookRoutes(cx: SupportContext): Route[] {
  const receivers: WebhookReceiver[] = [];
  for (const p of cx.products.list()) if (!p.builtin && p.backend.webhook) receivers.push(p.backend.webhook);
  if (!receivers.length) return [];
  const sources = [...new Set(receivers.map((r) => r.source))];
  const deliveries = kitMeter()?.createCounter("mountkit.webhook.deliveries", {
    description: "Inbound backend webhook deliveries, by source and outcome (accepted, refused: bad signature, failed: an error)",
  });
  const count = (source: string, outcome: "accepted" | "refused" | "failed") =>
    deliveries?.add(1, { "mountkit.webhook.source": source, "mountkit.outcome": outcome });
  return [
    route({
      method: "POST",
      path: "/agent/webhooks/:source",
      operationId: "backendWebhook",
      summary: `Webhooks of the products' backends (${sources.join(", ")}), authenticated by their signatures`,
      tags: ["webhooks"],
      params: z.object({ source: z.string().min(1).max(50) }),
      bodyMode: "raw",
      // GitHub's default webhook content type is the form encoding (a `payload` field); Slack sends JSON
      accepts: ["application/json", "application/x-www-form-urlencoded"],
      bodyLimit: WEBHOOK_BODY_LIMIT,
      responses: {
        200: { description: "Accepted (or a repeat of a delivery already processed)", schema: z.object({}).passthrough() },
        401: { description: "Signature missing, wrong or stale" },
        404: { description: "No backend takes webhooks from this source" },
        408: { description: "Request body not received in time (`bodyTimeoutMs`, default 30 s); the connection is then closed" },
      },
      async handler(ctx) {
        const source = ctx.params.source;
        if (!sources.includes(source)) throw supportError("not_found");
        try {
          const reply = await receive(receivers, ctx);
          count(source, reply.status < 300 ? "accepted" : reply.status < 500 ? "refused" : "failed");
          return reply;
        } catch (e) {
          count(source, (e as { status?: number }).status === 401 ? "refused" : "failed");
          throw e;
        }
      },
    }),
  ];
}

/** The first receiver of the source that answers for the delivery; a signature that no receiver accepts is a 401. */
async function receive(
  receivers: WebhookReceiver[],
  { params, headers, rawBody }: { params: { source: string }; headers: Record<string, string | undefined>; rawBody?: Uint8Array },
) {
  const mine = receivers.filter((r) => r.source === params.source);
  let passed: WebhookReply | undefined;
  for (const r of mine) {
    const reply = await r.receive({ headers, rawBody });
    if (!reply) continue;
    if (reply.passed) {
      passed = reply;
      continue;
    }
    return json(reply.status, reply.body ?? {});
  }
  if (passed) return json(passed.status, passed.body ?? {});
  throw supportError("unauthorized", { message: "bad webhook signature" });
}
