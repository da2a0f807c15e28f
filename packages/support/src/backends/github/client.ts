// GitHub's REST API as the GitHub backend uses it: the state one backend's parts share, GitHub's rate-limit
// rules, the login the token writes as, every page of a list, and the status labels written in the background.
import type { Logger } from "@mountkit/core";
import type { BackendContext } from "../../domain/backend.js";
import { parseMetadata } from "../../domain/metadata.js";
import type { Mirror } from "../../domain/mirror.js";
import type { Status } from "../../domain/status.js";
import { supportError } from "../../errors.js";
import { keyedLock, nextLink, type RestClient, type RestReply, restClient, shortHash } from "../rest.js";
import { type GhComment, type GhIds, ghIds, isCustomerBody, OPEN_STATUS_LABELS } from "./mapping.js";

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
  /**
   * Attachments of customer messages are listed in the issue body or comment (name, type, size). With the service's
   * `attachments.links` (`{ secret, publicUrl, ttlMs }`), each has a signed link to `GET /agent/attachments/{id}` that
   * works without the agent token until it expires (default 30 days): anyone who can read the issue, or a
   * notification email of it, can download the file until then; afterwards agents download it with their token. Without
   * `links`, files are named with their id only. See docs/support.md#attachment-links.
   *
   * `embedImages` (default true) also shows images in the comment (`![name](link)`): GitHub's image proxy fetches
   * them from `publicUrl`, so that address must be reachable from the internet; false leaves them as links.
   */
  embedImages?: boolean;
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

export interface Attached {
  cx: BackendContext;
  mirror: Mirror;
  timer?: ReturnType<typeof setInterval>;
}

/** One GitHub backend: its options, repository, ids, client and lock, and what attaching and running it set. */
export interface GithubState {
  options: GithubBackendOptions;
  /** `owner/name`, trimmed. */
  repo: string;
  ids: GhIds;
  issuesPath: string;
  gh: RestClient;
  lock: ReturnType<typeof keyedLock>;
  at?: Attached;
  botLogin?: Promise<string>;
  /** When the last reconciliation pass started. */
  since?: number;
  pass?: Promise<{ issues: number }>;
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

/** The backend's state from its options; throws on a repository or token it could never serve. */
export function githubState(options: GithubBackendOptions): GithubState {
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
  return {
    options,
    repo,
    ids: ghIds(shortHash(`${apiUrl}/${repo.toLowerCase()}`)),
    issuesPath: `/repos/${repo}/issues`,
    gh,
    lock: keyedLock(),
    botLogin: options.botLogin?.trim() ? Promise.resolve(options.botLogin.trim()) : undefined,
  };
}

export function attached(s: GithubState): Attached {
  if (!s.at) throw new Error("github backend used before a support service attached it");
  return s.at;
}

const log = (s: GithubState): Logger => attached(s).cx.logger;

/** The login the token writes as (asked once from `GET /user`; asked again after a failure). */
export function bot(s: GithubState): Promise<string> {
  s.botLogin ??= s.gh.read({ path: "/user" }).then((r) => {
    const login = (r.body as { login?: unknown } | undefined)?.login;
    if (r.status !== 200 || typeof login !== "string") {
      s.botLogin = undefined;
      throw supportError("backend_unavailable", {
        message: `cannot tell which GitHub login the token writes as (GET /user answered ${r.status}); set botLogin`,
      });
    }
    return login;
  });
  return s.botLogin;
}

/** A GitHub answer that must be 2xx; anything else is the backend being unavailable. */
export function ok<T>(r: RestReply, what: string): T {
  if (r.status >= 200 && r.status < 300) return r.body as T;
  throw supportError("backend_unavailable", { message: `GitHub answered ${r.status} to ${what}` });
}

/** Puts exactly one open status label on the issue (reopening it first when needed). Background-safe. */
export async function writeOpenStatus(s: GithubState, issue: number, to: Status, reopen: boolean) {
  const { gh, issuesPath } = s;
  const wait = { maxWaitMs: 10 * 60_000 };
  if (reopen) ok(await gh.write({ method: "PATCH", path: `${issuesPath}/${issue}`, body: { state: "open" }, ...wait }), "reopen");
  const added = await gh.write({ method: "POST", path: `${issuesPath}/${issue}/labels`, body: { labels: [to] }, ...wait });
  const now = ok<Array<{ name: string }>>(added, "add label");
  for (const l of now.map((x) => x.name)) {
    if (l !== to && (OPEN_STATUS_LABELS as readonly string[]).includes(l))
      await gh.write({ method: "DELETE", path: `${issuesPath}/${issue}/labels/${encodeURIComponent(l)}`, ...wait });
  }
}

export async function removeOpenStatusLabels(s: GithubState, issue: number, labels: string[]) {
  for (const l of labels) {
    if ((OPEN_STATUS_LABELS as readonly string[]).includes(l))
      await s.gh.write({ method: "DELETE", path: `${s.issuesPath}/${issue}/labels/${encodeURIComponent(l)}`, maxWaitMs: 10 * 60_000 });
  }
}

export const background = (s: GithubState, what: string, p: Promise<unknown>) =>
  p.catch((error) => log(s).warn(`support: github ${what} failed; the reconciliation poll will show GitHub's state`, { error }));

/** Every page, following GitHub's `Link: rel="next"` to the end (no page cap that would stop a pass short). */
export async function allPages<T>(s: GithubState, path: string, query: Record<string, string | number>): Promise<T[]> {
  const out: T[] = [];
  const seen = new Set<string>();
  let r = await s.gh.read({ path, query: { ...query, per_page: 100 } });
  for (;;) {
    if (r.status === 404 || r.status === 410) throw Object.assign(new Error("gone"), { gone: true });
    const items = ok<T[]>(r, `GET ${path}`);
    if (!Array.isArray(items)) throw supportError("backend_unavailable", { message: `GitHub answered GET ${path} with a non-list` });
    out.push(...items);
    const next = nextLink(r.headers.get("link"));
    if (!next || seen.has(next)) return out;
    seen.add(next);
    r = await s.gh.read({ path: next });
  }
}

/**
 * The comment an earlier attempt of this message posted, found by the hidden block it carries: the
 * attempt wrote to GitHub, then failed before the mirror had it (a store error, a crash).
 */
export async function postedEarlier(
  s: GithubState,
  issue: number,
  login: string,
  customerId: string,
  clientMessageId: string,
): Promise<GhComment | undefined> {
  const comments = await allPages<GhComment>(s, `${s.issuesPath}/${issue}/comments`, {});
  return comments.find((c) => {
    const meta = isCustomerBody(c.user?.login, c.body, login, customerId) ? parseMetadata(c.body) : undefined;
    return meta?.clientMessageId === clientMessageId;
  });
}
