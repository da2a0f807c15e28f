// The GitHub Issues backend: one issue per conversation in a (private) repository. Customer actions write to
// GitHub through a rate-limit-aware queue and land in a local mirror at once; agent activity arrives by signed
// webhook, and a periodic reconciliation poll repairs whatever a lost webhook missed (GitHub does not redeliver).
import type { CustomerBackend } from "../../domain/backend.js";
import { createMirror } from "../../domain/mirror.js";
import { type Attached, attached, background, bot, type GithubBackendOptions, githubState, writeOpenStatus } from "./client.js";
import { githubCustomerOps } from "./customer.js";
import { reconcilePass } from "./reconcile.js";
import { githubWebhook } from "./webhook.js";

export type { GithubBackendOptions };

export { githubRateLimitWait } from "./client.js";

export interface GithubBackend extends CustomerBackend {
  readonly kind: "github";
  /** Runs one reconciliation pass now (the timer runs it periodically). */
  reconcile(): Promise<{ issues: number }>;
}

export function githubBackend(options: GithubBackendOptions): GithubBackend {
  const s = githubState(options);
  const { repo } = s;
  const backend: GithubBackend = {
    kind: "github",

    attach(cx) {
      if (s.at) throw new Error("a github backend serves one product of one service");
      const mirror = createMirror({ store: cx.store, bus: cx.bus, clock: cx.clock, logger: cx.logger, events: cx.events });
      const at: Attached = { cx, mirror };
      s.at = at;
      // learnt now, so a bad token shows in the log at start-up rather than at the first customer's message
      bot(s).catch((error) => cx.logger.warn("support: github backend cannot tell its own login", { repo, error }));
      const every = options.reconcileIntervalMs ?? 5 * 60_000;
      if (every > 0) {
        at.timer = setInterval(() => {
          backend.reconcile().catch((error) => cx.logger.warn("support: github reconciliation failed", { repo, error }));
        }, every);
        (at.timer as { unref?: () => void }).unref?.();
      }
    },

    ...githubCustomerOps(s),

    webhook: githubWebhook({
      repo,
      secret: options.webhookSecret,
      ids: s.ids,
      context: () => attached(s),
      bot: () => bot(s),
      lock: s.lock,
      onAgentReply: (issue, reopen) => void background(s, "status labels", writeOpenStatus(s, issue, "waiting-for-customer", reopen)),
    }),

    reconcile: () => reconcilePass(s),

    async dispose() {
      if (s.at?.timer) clearInterval(s.at.timer);
    },
  };
  return backend;
}
