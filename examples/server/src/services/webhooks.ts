// The outbound-events options every service takes, from the environment: WEBHOOKS_ALLOW_PRIVATE=1 lets receivers on
// loopback or private addresses through; WEBHOOKS_RETRY_SCHEDULE_MS (comma-separated ms) replaces the retry schedule.
import type { WebhookOptions } from "@mountkit/core/webhooks";

export function webhooksFromEnv(env: NodeJS.ProcessEnv): WebhookOptions {
  const schedule = env.WEBHOOKS_RETRY_SCHEDULE_MS?.trim();
  const retryScheduleMs = schedule ? schedule.split(",").map((s) => Number(s.trim())) : undefined;
  if (retryScheduleMs?.some((n) => !Number.isSafeInteger(n) || n < 0))
    throw new Error("WEBHOOKS_RETRY_SCHEDULE_MS must be comma-separated non-negative integers (milliseconds)");
  return {
    ...(env.WEBHOOKS_ALLOW_PRIVATE === "1" ? { allowPrivate: true } : {}),
    ...(retryScheduleMs ? { retryScheduleMs } : {}),
  };
}
