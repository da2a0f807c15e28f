// A stand-in for the GitHub REST endpoints the issue backend uses, on a real loopback socket. It keeps
// issues and comments in memory, records every request, tracks overlapping writes, and can be told to
// answer the next requests with GitHub's rate-limit responses. Every request is checked against GitHub's
// OpenAPI description (`violations`); lists are paged with `Link` headers; answers start from GitHub's
// example objects.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { checkGithubRequest } from "./github-openapi.js";
import { exampleComment, exampleIssue } from "./github-webhooks.js";

export interface FakeIssue {
  number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  state_reason: string | null;
  /** When the issue was last closed (the time of an issue closed by a test: its updated_at). */
  closed_at?: string | null;
  labels: string[];
  user: { login: string };
  assignee: { login: string } | null;
  created_at: string;
  updated_at: string;
}

export interface FakeComment {
  id: number;
  issue: number;
  body: string;
  user: { login: string };
  created_at: string;
  updated_at: string;
}

export type Limit =
  | { kind: "secondary"; retryAfter?: number }
  | { kind: "primary"; resetInSeconds: number }
  | { kind: "429"; retryAfter: number };

export interface Recorded {
  method: string;
  path: string;
  at: number;
  status: number;
  auth: string | undefined;
}

const stamp = () => new Date().toISOString().replace(/\.\d{3}Z$/, "Z");

export interface FakeGithubOptions {
  repo: string;
  botLogin: string;
  writeDelayMs?: number;
  /** Most items per page, whatever `per_page` asks (GitHub may answer fewer; clients follow `Link`). */
  maxPerPage?: number;
  /** false: `GET /user` answers 403 to every token, as it does to an App installation token. */
  identity?: boolean;
  /** false: the token has no triage access; labels on a new issue are dropped silently, label writes answer 403. */
  canLabel?: boolean;
}

export async function fakeGithub(o: FakeGithubOptions) {
  const issues = new Map<number, FakeIssue>();
  const comments: FakeComment[] = [];
  const requests: Recorded[] = [];
  /** Requests GitHub's description does not allow, or sent without GitHub's media type. */
  const violations: string[] = [];
  const issueBase = exampleIssue();
  const commentBase = exampleComment();
  const limits: Limit[] = [];
  let nextIssue = 1;
  let nextComment = 1000;
  let inFlightWrites = 0;
  let labelGate: Promise<void> | undefined;
  let maxInFlightWrites = 0;
  const prefix = `/repos/${o.repo}/issues`;

  const issueJson = (i: FakeIssue) => ({
    ...issueBase,
    ...i,
    id: 10_000 + i.number,
    user: { ...issueBase.user, ...i.user },
    labels: i.labels.map((name, n) => ({ ...issueBase.labels?.[0], id: n + 1, name })),
    assignee: i.assignee && { ...issueBase.user, ...i.assignee },
    assignees: i.assignee ? [{ ...issueBase.user, ...i.assignee }] : [],
    comments: comments.filter((c) => c.issue === i.number).length,
    closed_at: i.state === "closed" ? (i.closed_at ?? i.updated_at) : null,
  });
  const commentJson = (c: FakeComment) => ({
    ...commentBase,
    id: c.id,
    body: c.body,
    user: { ...commentBase.user, ...c.user },
    created_at: c.created_at,
    updated_at: c.updated_at,
  });

  async function readJson(req: IncomingMessage): Promise<{ present: boolean; value: any }> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    return text ? { present: true, value: JSON.parse(text) } : { present: false, value: undefined };
  }

  /** One page of a list, with GitHub's `Link` header pointing at the next one. */
  function page<T>(res: ServerResponse, url: URL, all: T[], toJson: (x: T) => unknown): number {
    const n = Number(url.searchParams.get("page") ?? 1);
    const per = Math.min(Number(url.searchParams.get("per_page") ?? 30), 100, o.maxPerPage ?? 100);
    const items = all.slice((n - 1) * per, n * per);
    const headers: Record<string, string> = {};
    if (n * per < all.length) {
      const next = new URL(url);
      next.searchParams.set("page", String(n + 1));
      headers.link = `<${address}${next.pathname}${next.search}>; rel="next", <${address}${next.pathname}?page=${Math.ceil(all.length / per)}>; rel="last"`;
    }
    return send(res, 200, items.map(toJson), headers);
  }

  function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): number {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(body === undefined ? "" : JSON.stringify(body));
    return status;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<number> {
    const url = new URL(req.url ?? "/", "http://x");
    const method = req.method ?? "GET";
    const write = method !== "GET";
    const json = await readJson(req);
    const problems = checkGithubRequest({ method, url, body: json.value, hasBody: json.present });
    if (req.headers.accept !== "application/vnd.github+json") problems.push(`${method} ${url.pathname}: accept is ${req.headers.accept}`);
    if (problems.length) {
      violations.push(...problems);
      return send(res, 422, { message: "Validation Failed", errors: problems });
    }
    const limit = limits.shift();
    if (limit) {
      if (limit.kind === "secondary") {
        send(
          res,
          403,
          { message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again." },
          limit.retryAfter !== undefined ? { "retry-after": String(limit.retryAfter) } : {},
        );
        return 403;
      }
      if (limit.kind === "primary") {
        send(
          res,
          403,
          { message: "API rate limit exceeded" },
          {
            "x-ratelimit-remaining": "0",
            "x-ratelimit-reset": String(Math.ceil(Date.now() / 1000) + limit.resetInSeconds),
          },
        );
        return 403;
      }
      send(res, 429, { message: "Too many requests" }, { "retry-after": String(limit.retryAfter) });
      return 429;
    }
    if (write) {
      inFlightWrites++;
      maxInFlightWrites = Math.max(maxInFlightWrites, inFlightWrites);
      await new Promise((r) => setTimeout(r, o.writeDelayMs ?? 5));
    }
    try {
      const body = json.value;
      if (method === "GET" && url.pathname === "/user") {
        // what GitHub answers an App installation token
        if (o.identity === false || req.headers.authorization?.startsWith("Bearer ghs_"))
          return send(res, 403, { message: "Resource not accessible by integration", status: "403" });
        return send(res, 200, { login: o.botLogin });
      }
      if (!url.pathname.startsWith(prefix)) return send(res, 404, { message: "Not Found" });
      const rest = url.pathname.slice(prefix.length).split("/").filter(Boolean);
      if (rest.length === 0) {
        if (method === "POST") {
          const i: FakeIssue = {
            number: nextIssue++,
            title: body.title,
            body: body.body ?? null,
            state: "open",
            state_reason: null,
            // without triage access GitHub drops the labels of a new issue without a word
            labels: o.canLabel === false ? [] : [...(body.labels ?? [])],
            user: { login: o.botLogin },
            assignee: null,
            created_at: stamp(),
            updated_at: stamp(),
          };
          issues.set(i.number, i);
          return send(res, 201, issueJson(i));
        }
        const since = url.searchParams.get("since");
        const all = [...issues.values()]
          .filter((i) => !since || i.updated_at >= since)
          .sort((a, b) => (a.updated_at < b.updated_at ? -1 : a.updated_at > b.updated_at ? 1 : a.number - b.number));
        return page(res, url, all, issueJson);
      }
      const issue = issues.get(Number(rest[0]));
      if (!issue) return send(res, 404, { message: "Not Found" });
      const touch = () => {
        issue.updated_at = stamp();
      };
      if (rest.length === 1) {
        if (method === "GET") return send(res, 200, issueJson(issue));
        if (method === "PATCH") {
          await labelGate;
          if (body.state) issue.state = body.state;
          if (body.state) issue.closed_at = body.state === "closed" ? stamp() : null;
          if (body.state === "open") issue.state_reason = "reopened";
          if (body.state_reason !== undefined) issue.state_reason = body.state_reason;
          if (body.labels) issue.labels = [...body.labels];
          touch();
          return send(res, 200, issueJson(issue));
        }
      }
      if (rest[1] === "labels") {
        if (o.canLabel === false) return send(res, 403, { message: "Resource not accessible by personal access token", status: "403" });
        await labelGate;
        if (method === "POST") {
          for (const l of body.labels) if (!issue.labels.includes(l)) issue.labels.push(l);
          touch();
          return send(
            res,
            200,
            issue.labels.map((name) => ({ name })),
          );
        }
        if (method === "DELETE" && rest[2]) {
          const name = decodeURIComponent(rest[2]);
          if (!issue.labels.includes(name)) return send(res, 404, { message: "Label does not exist" });
          issue.labels = issue.labels.filter((l) => l !== name);
          touch();
          return send(
            res,
            200,
            issue.labels.map((n) => ({ name: n })),
          );
        }
      }
      if (rest[1] === "comments") {
        if (method === "POST") {
          const c: FakeComment = {
            id: nextComment++,
            issue: issue.number,
            body: body.body,
            user: { login: o.botLogin },
            created_at: stamp(),
            updated_at: stamp(),
          };
          comments.push(c);
          touch();
          return send(res, 201, commentJson(c));
        }
        return page(
          res,
          url,
          comments.filter((c) => c.issue === issue.number),
          commentJson,
        );
      }
      return send(res, 404, { message: "Not Found" });
    } finally {
      if (write) inFlightWrites--;
    }
  }

  const server = createServer((req, res) => {
    const at = Date.now();
    handle(req, res)
      .then((status) => requests.push({ method: req.method ?? "", path: req.url ?? "", at, status, auth: req.headers.authorization }))
      .catch((e) => {
        send(res, 500, { message: String(e) });
      });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: address,
    issues,
    comments,
    requests,
    violations,
    get maxInFlightWrites() {
      return maxInFlightWrites;
    },
    /** The next requests answer with these rate-limit responses, in order. */
    limit(...l: Limit[]) {
      limits.push(...l);
    },
    /** What a person does on github.com: changes the data; the test sends the webhook. */
    agentComment(issue: number, login: string, body: string): FakeComment {
      const c: FakeComment = { id: nextComment++, issue, body, user: { login }, created_at: stamp(), updated_at: stamp() };
      comments.push(c);
      issues.get(issue)!.updated_at = stamp();
      return c;
    },
    issueJson: (n: number) => issueJson(issues.get(n)!),
    /** Holds status writes (labels added or removed, an issue PATCH) until `gate` resolves: the kit's write in flight. */
    holdStatusWrites(gate: Promise<void> | undefined) {
      labelGate = gate;
    },
    commentJson,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
