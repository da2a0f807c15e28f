// One delivery attempt: the payload signed per Standard Webhooks (the `standardwebhooks` library), POSTed under the
// outbound policy (target vetted and pinned, no redirect followed, a time cap, the answer read up to 2 KiB).
import { Webhook } from "standardwebhooks";
import { type SafeFetchOptions, SpecFetchError, type SpecTransport, sendUnderPolicy } from "../outbound/policy.js";
import type { Delivery, DeliveryAttempt, Subscription } from "./types.js";

export interface SendOptions extends Pick<SafeFetchOptions, "allowPrivate" | "resolve"> {
  /** Per attempt, connection to last byte. Default 10 s. */
  timeoutMs: number;
  transport: SpecTransport;
}

/** The headers Standard Webhooks defines for one message. */
export function signedHeaders(secret: string, messageId: string, at: Date, payload: string): Record<string, string> {
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(messageId, at, payload),
  };
}

export async function sendDelivery(d: Delivery, sub: Subscription, now: number, o: SendOptions): Promise<DeliveryAttempt> {
  const started = performance.now();
  const headers = {
    "content-type": "application/json",
    "user-agent": "mountkit-webhooks",
    ...signedHeaders(sub.secret, d.eventId, new Date(now), d.payload),
  };
  const took = () => Math.round(performance.now() - started);
  try {
    const answer = await sendUnderPolicy(sub.url, { method: "POST", body: d.payload, headers, keepBytes: 2048 }, o, o.transport);
    const ok = answer.status >= 200 && answer.status <= 299;
    const response = answer.truncated ? "(answer over 2 KiB, not kept)" : answer.body;
    return { at: now, status: answer.status, error: ok ? null : `the receiver answered ${answer.status}`, durationMs: took(), response };
  } catch (e) {
    const message = e instanceof SpecFetchError ? e.message : "could not send";
    return { at: now, status: null, error: message, durationMs: took(), response: "" };
  }
}
