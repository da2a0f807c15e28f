// The GitHub Issues backend: one issue per conversation in a (private) repository. Customer actions write to
// GitHub through a rate-limit-aware queue and land in a local mirror at once; agent activity arrives by signed
// webhook, and a periodic reconciliation poll repairs whatever a lost webhook missed (GitHub does not redeliver).
import type { CustomerBackend } from "../../domain/backend.js";
import { createMirror } from "../../domain/mirror.js";
import { type Attached, attached, background, bot, githubState, writeOpenStatus } from "./client.js";
import { githubCustomerOps } from "./customer.js";
import { reconcilePass } from "./reconcile.js";
import { githubWebhook } from "./webhook.js";

export { githubRateLimitWait } from "./client.js";

export interface GithubBackendOptions {
  /** `owner/name` of the (private) repository holding one issue per conversation. */
  repo: string;
  /**
   * Token with issues read/write on the repository: a fine-grained PAT, or an App installation token (`ghs_…`,
   * or a function giving the current one), which needs `botLogin` because it cannot ask `GET /user`.
   */
  token: string | (() => string);
  /** Secret of the repository webhook (`X-Hub-Signature-256`). */
  webhookSecret: string;
  /** REST base; default `https://api.github.com` (GitHub Enterprise: `https://HOST/api/v3`). */
  apiUrl?: string;
  /**
   * Login the token writes as; required for an App installation token (the App's `<slug>[bot]`). For a
   * personal token, default asked once from `GET /user`, before the first write.
   */
  botLogin?: string;
  /** Reconciliation poll period; default 5 minutes, 0 turns it off. */
  reconcileIntervalMs?: number;
  /** How far back the first poll looks; default 24 hours. */
  reconcileLookbackMs?: number;
  /** Spacing between writes of one token (GitHub asks for about a second); default 1000 ms. */
  minWriteIntervalMs?: number;
  /** Wait on a rate limit without a `retry-after` or reset hint, doubled per repeat; default 60 s. */
  rateLimitBackoffMs?: number;
  /** Longest a customer request waits for a write before a 429; default 30 s. */
  maxWaitMs?: number;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

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
