// The GitHub Issues backend: one issue per conversation in a (private) repository. Customer actions write to
// GitHub through a rate-limit-aware queue and land in a local mirror at once; agent activity arrives by signed
// webhook, and a periodic reconciliation poll repairs whatever a lost webhook missed (GitHub does not redeliver).
import { iso, type Logger } from "@mountkit/core";
import type { BackendContext, CustomerBackend } from "../../domain/backend.js";
import { storePage } from "../../domain/cursor.js";
import { parseMetadata } from "../../domain/metadata.js";
import { createMirror, type Mirror } from "../../domain/mirror.js";
import { isOpen, openedConversation, type Status } from "../../domain/status.js";
import { summary } from "../../domain/wire.js";
import { supportError } from "../../errors.js";
import type { ConversationRecord } from "../../store/types.js";
import { neutraliseMentions } from "../display.js";
import { keyedLock, nextLink, type RestClient, type RestReply, restClient, shortHash } from "../rest.js";
import {
  CUSTOMER_AUTHOR,
  commentMessage,
  isCustomerBody,
  type GhComment,
  type GhIds,
  type GhIssue,
  ghIds,
  isoOf,
  labelNames,
  OPEN_STATUS_LABELS,
  snapshotOf,
} from "./mapping.js";
import { githubWebhook } from "./webhook.js";

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

interface Attached {
  cx: BackendContext;
  mirror: Mirror;
  timer?: ReturnType<typeof setInterval>;
}

/** Whether a GitHub answer is a rate limit, and how long to wait (GitHub's documented rules). */
export function githubRateLimitWait(backoffMs: number) {
  return (r: RestReply, consecutive: number): number | undefined => {
    if (r.status !== 403 && r.status !== 429) return undefined;
    const retryAfter = Number(r.headers.get("retry-after"));
    const remaining = r.headers.get("x-ratelimit-remaining");
    const reset = Number(r.headers.get("x-ratelimit-reset"));
    const message = String((r.body as { message?: unknown } | undefined)?.message ?? "");
    const secondary = /secondary rate limit|abuse/i.test(message);
    if (r.status === 403 && !secondary && remaining !== "0" && !r.headers.has("retry-after")) return undefined;
    if (Number.isFinite(retryAfter) && retryAfter >= 0 && r.headers.has("retry-after")) return retryAfter * 1000;
    if (remaining === "0" && Number.isFinite(reset) && reset > 0) return Math.max(0, reset * 1000 - Date.now()) + 1000;
    return backoffMs * 2 ** Math.min(consecutive, 6);
  };
}

export function githubBackend(options: GithubBackendOptions): GithubBackend {
  const repo = options.repo.trim();
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repo))
    throw new Error(`github backend: repo must be owner/name, got ${JSON.stringify(repo)}`);
  const apiUrl = (options.apiUrl ?? "https://api.github.com").replace(/\/+$/, "");
  // an installation token answers 403 to GET /user and GET /app needs the App's JWT: nothing can tell its
  // login, and without it the kit's own comments would read as an agent's, so refuse to start
  const appToken = typeof options.token === "function" || options.token.startsWith("ghs_");
  if (appToken && !options.botLogin?.trim())
    throw new Error(
      "github backend: a GitHub App installation token cannot look up its own login; set botLogin to the App's bot login, `<app-slug>[bot]`",
    );
  const token = () => (typeof options.token === "function" ? options.token() : options.token);
  const ids: GhIds = ghIds(shortHash(`${apiUrl}/${repo.toLowerCase()}`));
  const issuesPath = `/repos/${repo}/issues`;
  const lock = keyedLock();
  const gh: RestClient = restClient({
    baseUrl: apiUrl,
    get headers() {
      return {
        accept: "application/vnd.github+json",
        authorization: `Bearer ${token()}`,
        "x-github-api-version": "2022-11-28",
        "user-agent": "mountkit-support",
      };
    },
    // one queue per credential; a token function (rotating App installation tokens) is one installation
    queueKey: `github:${apiUrl}:${typeof options.token === "string" ? shortHash(options.token) : `installation:${repo.split("/")[0]!.toLowerCase()}`}`,
    rateLimitWait: githubRateLimitWait(options.rateLimitBackoffMs ?? 60_000),
    minWriteIntervalMs: options.minWriteIntervalMs ?? 1000,
    maxWaitMs: options.maxWaitMs ?? 30_000,
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
  });
  let at: Attached | undefined;
  let botLogin: Promise<string> | undefined = options.botLogin?.trim() ? Promise.resolve(options.botLogin.trim()) : undefined;
  let since: number | undefined;
  let pass: Promise<{ issues: number }> | undefined;

  const attached = (): Attached => {
    if (!at) throw new Error("github backend used before a support service attached it");
    return at;
  };
  const log = (): Logger => attached().cx.logger;

  function bot(): Promise<string> {
    botLogin ??= gh.read({ path: "/user" }).then((r) => {
      const login = (r.body as { login?: unknown } | undefined)?.login;
      if (r.status !== 200 || typeof login !== "string") {
        botLogin = undefined;
        throw supportError("backend_unavailable", {
          message: `cannot tell which GitHub login the token writes as (GET /user answered ${r.status}); set botLogin`,
        });
      }
      return login;
    });
    return botLogin;
  }

  /** A GitHub answer that must be 2xx; anything else is the backend being unavailable. */
  function ok<T>(r: RestReply, what: string): T {
    if (r.status >= 200 && r.status < 300) return r.body as T;
    throw supportError("backend_unavailable", { message: `GitHub answered ${r.status} to ${what}` });
  }

  async function owned(scope: { productSlug: string; customerId: string }, id: string): Promise<ConversationRecord & { issue: number }> {
    const issue = ids.issueNumber(id);
    const c = issue === undefined ? null : await attached().mirror.get(id);
    if (!c || issue === undefined || c.productSlug !== scope.productSlug || c.customerId !== scope.customerId)
      throw supportError("conversation_not_found");
    return { ...c, issue };
  }

  /** Puts exactly one open status label on the issue (reopening it first when needed). Background-safe. */
  async function writeOpenStatus(issue: number, to: Status, reopen: boolean) {
    const wait = { maxWaitMs: 10 * 60_000 };
    if (reopen) ok(await gh.write({ method: "PATCH", path: `${issuesPath}/${issue}`, body: { state: "open" }, ...wait }), "reopen");
    const added = await gh.write({ method: "POST", path: `${issuesPath}/${issue}/labels`, body: { labels: [to] }, ...wait });
    const now = ok<Array<{ name: string }>>(added, "add label");
    for (const l of now.map((x) => x.name)) {
      if (l !== to && (OPEN_STATUS_LABELS as readonly string[]).includes(l))
        await gh.write({ method: "DELETE", path: `${issuesPath}/${issue}/labels/${encodeURIComponent(l)}`, ...wait });
    }
  }

  async function removeOpenStatusLabels(issue: number, labels: string[]) {
    for (const l of labels) {
      if ((OPEN_STATUS_LABELS as readonly string[]).includes(l))
        await gh.write({ method: "DELETE", path: `${issuesPath}/${issue}/labels/${encodeURIComponent(l)}`, maxWaitMs: 10 * 60_000 });
    }
  }

  const background = (what: string, p: Promise<unknown>) =>
    p.catch((error) => log().warn(`support: github ${what} failed; the reconciliation poll will show GitHub's state`, { error }));

  /** Every page, following GitHub's `Link: rel="next"` to the end (no page cap that would stop a pass short). */
  async function allPages<T>(path: string, query: Record<string, string | number>): Promise<T[]> {
    const out: T[] = [];
    const seen = new Set<string>();
    let r = await gh.read({ path, query: { ...query, per_page: 100 } });
    for (;;) {
      if (r.status === 404 || r.status === 410) throw Object.assign(new Error("gone"), { gone: true });
      const items = ok<T[]>(r, `GET ${path}`);
      if (!Array.isArray(items)) throw supportError("backend_unavailable", { message: `GitHub answered GET ${path} with a non-list` });
      out.push(...items);
      const next = nextLink(r.headers.get("link"));
      if (!next || seen.has(next)) return out;
      seen.add(next);
      r = await gh.read({ path: next });
    }
  }

  /**
   * The comment an earlier attempt of this message posted, found by the hidden block it carries: the
   * attempt wrote to GitHub, then failed before the mirror had it (a store error, a crash).
   */
  async function postedEarlier(issue: number, login: string, customerId: string, clientMessageId: string): Promise<GhComment | undefined> {
    const comments = await allPages<GhComment>(`${issuesPath}/${issue}/comments`, {});
    return comments.find((c) => {
      const meta = isCustomerBody(c.user?.login, c.body, login, customerId) ? parseMetadata(c.body) : undefined;
      return meta?.clientMessageId === clientMessageId;
    });
  }

  /** Brings one mirrored issue to GitHub's state; creates the mirror of a bot-opened issue it lacks. */
  async function reconcileIssue(issue: GhIssue) {
    const { mirror, cx } = attached();
    const id = ids.conversation(issue.number);
    await lock(id, async () => {
      let c = await cx.store.getConversation({ id });
      if (c?.deletedAt) return;
      const login = await bot();
      if (!c) {
        // an issue the kit opened whose mirror was never written (a crash between the two): adopt it
        const meta = parseMetadata(issue.body);
        const customerId = meta?.customerId;
        const opened = Date.parse(issue.created_at);
        if (!customerId || issue.user?.login?.toLowerCase() !== login.toLowerCase() || cx.clock.now() - opened < 60_000) return;
        const comments = await allPages<GhComment>(`${issuesPath}/${issue.number}/comments`, {});
        const snap = snapshotOf(ids, issue, comments, login, customerId, "new");
        c = await mirror.create({
          conversation: {
            id,
            productSlug: cx.productSlug,
            customerId,
            subject: issue.title,
            status: snap.state.status ?? "new",
            labels: snap.state.labels ?? [],
            assignee: snap.state.assignee ?? null,
            createdAt: isoOf(issue.created_at),
            updatedAt: isoOf(issue.updated_at),
          },
          messages: snap.messages,
        });
        return;
      }
      try {
        const comments = await allPages<GhComment>(`${issuesPath}/${issue.number}/comments`, {});
        await mirror.sync(id, snapshotOf(ids, issue, comments, login, c.customerId, c.status));
      } catch (e) {
        if ((e as { gone?: boolean }).gone) await mirror.remove(id);
        else throw e;
      }
    });
  }

  const backend: GithubBackend = {
    kind: "github",

    attach(cx) {
      if (at) throw new Error("a github backend serves one product of one service");
      const mirror = createMirror({ store: cx.store, bus: cx.bus, clock: cx.clock, logger: cx.logger });
      at = { cx, mirror };
      // learnt now, so a bad token shows in the log at start-up rather than at the first customer's message
      bot().catch((error) => cx.logger.warn("support: github backend cannot tell its own login", { repo, error }));
      const every = options.reconcileIntervalMs ?? 5 * 60_000;
      if (every > 0) {
        at.timer = setInterval(() => {
          backend.reconcile().catch((error) => cx.logger.warn("support: github reconciliation failed", { repo, error }));
        }, every);
        (at.timer as { unref?: () => void }).unref?.();
      }
    },

    async createConversation({ productSlug, customerId, subject, body, clientMessageId }) {
      const { mirror, cx } = attached();
      // known before anything is written: every later read of this issue depends on it
      await bot();
      const r = await gh.write({
        method: "POST",
        path: issuesPath,
        body: { title: subject, body: neutraliseMentions(body), labels: ["new"] },
      });
      const issue = ok<GhIssue>(r, "create issue");
      if (!labelNames(issue).includes("new"))
        cx.logger.warn("support: GitHub dropped the status label (the token lacks triage access); statuses are kept by the kit only", {
          repo,
        });
      const now = iso(cx.clock.now());
      const c = await mirror.create({
        conversation: openedConversation({ id: ids.conversation(issue.number), productSlug, customerId, subject, at: now }),
        messages: [
          {
            id: ids.issueBody(issue.number),
            body,
            author: CUSTOMER_AUTHOR,
            isCustomer: true,
            dedupKey: clientMessageId ?? `#github/issue/${issue.number}`,
            createdAt: now,
          },
        ],
      });
      return { conversationId: c.id, createdAt: c.createdAt };
    },

    async listConversations(scope) {
      return (await attached().cx.store.listConversations(storePage(scope))).map(summary);
    },

    async getConversation({ conversationId, ...scope }) {
      if (ids.issueNumber(conversationId) === undefined) return null;
      return attached().mirror.viewFor(scope, conversationId);
    },

    async postMessage({ conversationId, body, clientMessageId, ...scope }) {
      const { mirror } = attached();
      return lock(conversationId, async () => {
        const c = await owned(scope, conversationId);
        const dup = await mirror.duplicate(conversationId, clientMessageId);
        if (dup) return dup;
        if (c.status === "closed") throw supportError("conversation_closed");
        const login = await bot();
        let posted: GhComment | undefined;
        if (clientMessageId !== null) {
          // the first attempt of this message marks it before writing; a repeat finds the mark and looks on
          // GitHub for what an attempt that failed after its write left there (the mark lives a week, and
          // the reconciliation poll mirrors such a comment well before)
          const source = `github-post:${repo.toLowerCase()}`;
          const deliveryId = `${conversationId}\n${scope.customerId}\n${clientMessageId}`;
          const first = await attached().cx.store.claimDelivery({ source, deliveryId, receivedAt: iso(attached().cx.clock.now()) });
          if (!first) posted = await postedEarlier(c.issue, login, scope.customerId, clientMessageId);
        }
        const again = posted !== undefined;
        if (!posted) {
          const r = await gh.write({
            method: "POST",
            path: `${issuesPath}/${c.issue}/comments`,
            body: { body: body && neutraliseMentions(body) },
          });
          if (r.status === 404 || r.status === 410) {
            await mirror.remove(conversationId);
            throw supportError("conversation_not_found");
          }
          posted = ok<GhComment>(r, "create comment");
        }
        const message = commentMessage(ids, posted, login, scope.customerId);
        const added = await mirror.addMessage(conversationId, message, (s) => (s === "closed" ? s : "waiting-for-agent"));
        if (!added) throw supportError("conversation_not_found");
        if (c.status !== "waiting-for-agent")
          void background("status labels", writeOpenStatus(c.issue, "waiting-for-agent", !isOpen(c.status)));
        return { id: added.message.id, createdAt: added.message.createdAt, deduplicated: again || added.message.id !== message.id };
      });
    },

    async closeConversation({ conversationId, action, ...scope }) {
      const { mirror } = attached();
      return lock(conversationId, async () => {
        const c = await owned(scope, conversationId);
        if (!isOpen(c.status)) return { status: c.status };
        const status = action === "resolve" ? "resolved" : "closed";
        const r = await gh.write({
          method: "PATCH",
          path: `${issuesPath}/${c.issue}`,
          body: { state: "closed", state_reason: action === "resolve" ? "completed" : "not_planned" },
        });
        if (r.status === 404 || r.status === 410) {
          await mirror.remove(conversationId);
          throw supportError("conversation_not_found");
        }
        const issue = ok<GhIssue>(r, "close issue");
        await mirror.setState(conversationId, { status });
        void background("status labels", removeOpenStatusLabels(c.issue, labelNames(issue)));
        return { status };
      });
    },

    async openStream({ conversationId, ...scope }) {
      const c = ids.issueNumber(conversationId) === undefined ? null : await attached().mirror.get(conversationId);
      if (!c || c.productSlug !== scope.productSlug || c.customerId !== scope.customerId) return null;
      return { conversation: c };
    },

    webhook: undefined as never,

    reconcile() {
      // one pass at a time: a pass over many pages can outlast the timer's period
      pass ??= (async () => {
        const started = attached().cx.clock.now();
        // a little overlap: an issue updated while the last pass ran is looked at again (the sync is idempotent)
        const from = since === undefined ? started - (options.reconcileLookbackMs ?? 24 * 3_600_000) : since - 60_000;
        const issues = await allPages<GhIssue>(issuesPath, {
          state: "all",
          since: iso(from).replace(/\.\d{3}Z$/, "Z"),
          sort: "updated",
          direction: "asc",
        });
        let n = 0;
        for (const issue of issues) {
          if (issue.pull_request) continue;
          await reconcileIssue(issue);
          n++;
        }
        since = started;
        return { issues: n };
      })().finally(() => {
        pass = undefined;
      });
      return pass;
    },

    async dispose() {
      if (at?.timer) clearInterval(at.timer);
    },
  };

  backend.webhook = githubWebhook({
    repo,
    secret: options.webhookSecret,
    ids,
    context: () => attached(),
    bot,
    lock,
    onAgentReply: (issue, reopen) => void background("status labels", writeOpenStatus(issue, "waiting-for-customer", reopen)),
  });
  return backend;
}
