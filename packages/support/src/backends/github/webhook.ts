// GitHub webhook receiver: verifies `X-Hub-Signature-256` over the raw body in constant time, processes each
// `X-GitHub-Delivery` once, and turns issue and comment activity into mirror changes (and so stream events).
import { constantTimeEqual, iso } from "@mountkit/core";
import type { BackendContext, WebhookReceiver } from "../../domain/backend.js";
import type { Mirror } from "../../domain/mirror.js";
import { isOpen, isStatus } from "../../domain/status.js";
import { supportError } from "../../errors.js";
import { hmacSha256Hex } from "../rest.js";
import { agentLabels, assigneeOf, commentMessage, type GhComment, type GhIds, type GhIssue, issueMessage, statusOf } from "./mapping.js";

export interface Payload {
  action?: string;
  issue?: GhIssue;
  comment?: GhComment;
  label?: { name: string };
  changes?: { title?: unknown; body?: unknown };
  repository?: { full_name?: string };
  sender?: { login?: string };
}

export interface GithubWebhookDeps {
  repo: string;
  secret: string;
  ids: GhIds;
  context(): { cx: BackendContext; mirror: Mirror };
  bot(): Promise<string>;
  lock<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /** An agent's comment moved the conversation to waiting-for-customer: put the label on the issue. */
  onAgentReply(issue: number, reopen: boolean): void;
}

export async function verifyGithubSignature(secret: string, raw: Uint8Array, header: string | undefined): Promise<boolean> {
  if (!header?.startsWith("sha256=")) return false;
  const expected = `sha256=${await hmacSha256Hex(secret, raw)}`;
  return constantTimeEqual(header.trim().toLowerCase(), expected);
}

/**
 * The delivery's JSON, from either content type a GitHub webhook can be set to: `application/json`, or the
 * default `application/x-www-form-urlencoded`, whose `payload` field holds the same JSON. The signature was
 * checked over the bytes as sent, before this.
 */
export function readPayload(rawBody: Uint8Array, contentType: string | undefined): Payload {
  const text = new TextDecoder().decode(rawBody);
  const form = /^\s*application\/x-www-form-urlencoded\s*(;|$)/i.test(contentType ?? "");
  const json = form ? new URLSearchParams(text).get("payload") : text;
  if (json === null) throw supportError("invalid_request", { message: "the form-encoded delivery has no payload field" });
  try {
    const value = JSON.parse(json) as unknown;
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("not an object");
    return value as Payload;
  } catch {
    throw supportError("invalid_request", {
      message: form ? "the payload field is not a JSON object" : "the payload is not a JSON object",
    });
  }
}

export function githubWebhook(d: GithubWebhookDeps): WebhookReceiver {
  async function apply(event: string, p: Payload) {
    const { cx, mirror } = d.context();
    const issue = p.issue;
    if (!issue || typeof issue.number !== "number" || issue.pull_request) return;
    const id = d.ids.conversation(issue.number);
    await d.lock(id, async () => {
      const c = await mirror.get(id);
      // not a conversation of this kit (an issue a person opened), or one whose mirror is gone
      if (!c) return;
      if (event === "issue_comment" && p.comment) {
        const m = commentMessage(d.ids, p.comment, await d.bot(), c.customerId);
        if (p.action === "created") {
          if (m.isCustomer) {
            // the kit's own post: the posting request moves the status
            await mirror.addMessage(id, m);
            return;
          }
          const r = await mirror.addMessage(id, m, (s) => (isOpen(s) ? "waiting-for-customer" : s));
          if (r?.added && isOpen(c.status) && c.status !== "waiting-for-customer") d.onAgentReply(issue.number, false);
        } else if (p.action === "edited") {
          if (!(await mirror.editMessage(id, m.id, m.body))) await mirror.addMessage(id, m);
        } else if (p.action === "deleted") {
          await mirror.removeMessage(id, m.id);
        }
        return;
      }
      if (event !== "issues") return;
      // the kit's own status writes (labels, close, reopen) come back as events: the mirror made that decision
      // already, and the payload's labels may predate a later one, so its echo never moves the status
      const own = p.sender?.login !== undefined && p.sender.login.toLowerCase() === (await d.bot()).toLowerCase();
      switch (p.action) {
        case "deleted":
        case "transferred":
          await mirror.remove(id);
          return;
        case "edited":
          if (p.changes?.title) await mirror.setState(id, { subject: issue.title });
          // read as the poll reads it: a customer's body comes back without the mention joiners
          if (p.changes?.body)
            await mirror.editMessage(id, d.ids.issueBody(issue.number), issueMessage(d.ids, issue, await d.bot(), c.customerId).body);
          return;
        case "assigned":
        case "unassigned":
          await mirror.setState(id, { assignee: assigneeOf(issue) });
          return;
        case "labeled":
        case "unlabeled":
          // an agent label leaves the status alone: the payload's status labels may predate a label write in flight
          if (own || (p.label && !isStatus(p.label.name))) {
            await mirror.setState(id, { labels: agentLabels(issue) });
            return;
          }
          await mirror.setState(id, {
            status: statusOf(issue, p.action === "labeled" ? p.label?.name : undefined, c.status),
            labels: agentLabels(issue),
          });
          return;
        case "closed":
        case "reopened":
          await mirror.setState(id, { ...(own ? {} : { status: statusOf(issue, undefined, c.status) }), labels: agentLabels(issue) });
          return;
        default:
          cx.logger.debug("support: github webhook action ignored", { event, action: p.action });
      }
    });
  }

  return {
    source: "github",
    async receive({ headers, rawBody }) {
      if (!rawBody || !(await verifyGithubSignature(d.secret, rawBody, headers["x-hub-signature-256"]))) return null;
      const delivery = headers["x-github-delivery"];
      const event = headers["x-github-event"];
      if (!delivery || !event) throw supportError("invalid_request", { message: "X-GitHub-Delivery and X-GitHub-Event are required" });
      const payload = readPayload(rawBody, headers["content-type"]);
      if (event === "ping") return { status: 200, body: { ok: true } };
      if (payload.repository?.full_name?.toLowerCase() !== d.repo.toLowerCase())
        return { status: 202, body: { ignored: "repository" }, passed: true };
      const { cx } = d.context();
      const source = `github:${d.repo.toLowerCase()}`;
      if (!(await cx.store.claimDelivery({ source, deliveryId: delivery, receivedAt: iso(cx.clock.now()) })))
        return { status: 200, body: { ok: true, duplicate: true } };
      try {
        await apply(event, payload);
      } catch (error) {
        // not processed: a redelivery (manual, from GitHub's UI) must get its chance
        await cx.store.releaseDelivery({ source, deliveryId: delivery }).catch(() => undefined);
        throw error;
      }
      return { status: 200, body: { ok: true } };
    },
  };
}
