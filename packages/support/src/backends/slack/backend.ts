// The Slack backend: one thread per conversation in a channel. Customer messages are posted by the kit's bot
// (the root message, then thread replies, with the hidden metadata in Slack message metadata); humans answer in
// the thread. The Events API endpoint verifies Slack's signing secret, writes the event to the durable job
// store before acknowledging it, and a worker does the work (each `event_id` once, bot messages ignored, its
// own included). A reconciliation pass over `conversations.replies` repairs what an outage lost.
import { createWorker } from "@mountkit/core/jobs";
import type { CustomerBackend } from "../../domain/backend.js";
import { createMirror } from "../../domain/mirror.js";
import { type SlackBackendOptions, type SlackMessage, slackState } from "./client.js";
import { slackCustomerOps } from "./customer.js";
import { processEvent, reconcilePass, slackWebhook } from "./events.js";
import { filesWorker } from "./files.js";

export type { SlackBackendOptions };

export { verifySlackSignature } from "./events.js";

export interface SlackBackend extends CustomerBackend {
  readonly kind: "slack";
  /** Resolves when every acknowledged event has been processed and every queued file upload done (tests, graceful shutdown). */
  idle(): Promise<void>;
  /** Runs one reconciliation pass now: each recent thread's replies against the mirror (the timer runs it periodically). */
  reconcile(): Promise<{ conversations: number }>;
}

export function slackBackend(options: SlackBackendOptions): SlackBackend {
  const s = slackState(options);
  const backend: SlackBackend = {
    kind: "slack",
    webhook: slackWebhook(s),

    attach(cx) {
      if (s.at) throw new Error("a slack backend serves one product of one service");
      s.at = { cx, mirror: createMirror({ store: cx.store, bus: cx.bus, clock: cx.clock, logger: cx.logger, events: cx.events }) };
      s.worker = createWorker<SlackMessage>({
        store: cx.jobs,
        queue: s.queue,
        handler: (job) => processEvent(s, job.payload),
        onDead: (job, error) =>
          cx.logger.warn("support: a Slack event failed every attempt; the reconciliation pass will pick it up", { job: job.id, error }),
        concurrency: 2,
        pollMs: options.workerPollMs ?? 1000,
        clock: cx.clock,
        logger: cx.logger,
      });
      s.worker.start();
      s.filesWorker = filesWorker(s);
      s.filesWorker.start();
      const every = options.reconcileIntervalMs ?? 5 * 60_000;
      if (every > 0) {
        s.timer = setInterval(() => {
          backend.reconcile().catch((error) => cx.logger.warn("support: slack reconciliation failed", { channel: s.channel, error }));
        }, every);
        (s.timer as { unref?: () => void }).unref?.();
      }
    },

    reconcile: () => reconcilePass(s),

    async dispose() {
      if (s.timer) clearInterval(s.timer);
      await s.worker?.stop();
      await s.filesWorker?.stop();
    },

    ...slackCustomerOps(s),

    idle: async () => {
      await s.worker?.idle();
      await s.filesWorker?.idle();
    },
  };
  return backend;
}
