// A stand-in for the GitHub REST endpoints the issue backend uses, on a real loopback socket. It keeps
// issues and comments in memory, records every request, tracks overlapping writes, and can be told to
// answer the next requests with GitHub's rate-limit responses.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeIssue {
  number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  state_reason: string | null;
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

export async function fakeGithub(o: { repo: string; botLogin: string; writeDelayMs?: number }) {
  const issues = new Map<number, FakeIssue>();
  const comments: FakeComment[] = [];
  const requests: Recorded[] = [];
  const limits: Limit[] = [];
  let nextIssue = 1;
  let nextComment = 1000;
  let inFlightWrites = 0;
  let maxInFlightWrites = 0;
  const prefix = `/repos/${o.repo}/issues`;

  const issueJson = (i: FakeIssue) => ({ ...i, labels: i.labels.map((name) => ({ name })), assignees: i.assignee ? [i.assignee] : [] });
  const commentJson = (c: FakeComment) => ({ id: c.id, body: c.body, user: c.user, created_at: c.created_at, updated_at: c.updated_at });

  async function readJson(req: IncomingMessage): Promise<any> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    return text ? JSON.parse(text) : undefined;
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
      const body = write ? await readJson(req) : undefined;
      if (method === "GET" && url.pathname === "/user") return send(res, 200, { login: o.botLogin });
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
            labels: [...(body.labels ?? [])],
            user: { login: o.botLogin },
            assignee: null,
            created_at: stamp(),
            updated_at: stamp(),
          };
          issues.set(i.number, i);
          return send(res, 201, issueJson(i));
        }
        const since = url.searchParams.get("since");
        const page = Number(url.searchParams.get("page") ?? 1);
        const per = Number(url.searchParams.get("per_page") ?? 30);
        const all = [...issues.values()]
          .filter((i) => !since || i.updated_at >= since)
          .sort((a, b) => (a.updated_at < b.updated_at ? -1 : a.updated_at > b.updated_at ? 1 : a.number - b.number));
        return send(res, 200, all.slice((page - 1) * per, page * per).map(issueJson));
      }
      const issue = issues.get(Number(rest[0]));
      if (!issue) return send(res, 404, { message: "Not Found" });
      const touch = () => {
        issue.updated_at = stamp();
      };
      if (rest.length === 1) {
        if (method === "GET") return send(res, 200, issueJson(issue));
        if (method === "PATCH") {
          if (body.state) issue.state = body.state;
          if (body.state === "open") issue.state_reason = "reopened";
          if (body.state_reason !== undefined) issue.state_reason = body.state_reason;
          if (body.labels) issue.labels = [...body.labels];
          touch();
          return send(res, 200, issueJson(issue));
        }
      }
      if (rest[1] === "labels") {
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
        const page = Number(url.searchParams.get("page") ?? 1);
        const per = Number(url.searchParams.get("per_page") ?? 30);
        const mine = comments.filter((c) => c.issue === issue.number);
        return send(res, 200, mine.slice((page - 1) * per, page * per).map(commentJson));
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
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    issues,
    comments,
    requests,
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
    commentJson,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
