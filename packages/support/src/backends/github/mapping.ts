// How a GitHub issue and its comments read as a conversation: status from state, state_reason and the
// mutually exclusive status labels; who is the customer; the stored ids of the mirror.
import { parseMetadata } from "../../domain/metadata.js";
import type { MirrorMessage, MirrorSnapshot } from "../../domain/mirror.js";
import { isOpen, isStatus, type Status } from "../../domain/status.js";
import { restoreMentions } from "../display.js";

export interface GhUser {
  login: string;
  type?: string;
}

export interface GhLabel {
  name: string;
}

export interface GhIssue {
  number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  state_reason?: string | null;
  labels: Array<GhLabel | string>;
  user: GhUser | null;
  assignee?: GhUser | null;
  assignees?: GhUser[];
  created_at: string;
  updated_at: string;
  pull_request?: unknown;
}

export interface GhComment {
  id: number;
  body: string | null;
  user: GhUser | null;
  created_at: string;
  updated_at?: string;
}

export const OPEN_STATUS_LABELS = ["new", "waiting-for-agent", "waiting-for-customer"] as const;
/** When two status labels are on an issue at once (a change in flight), the one that needs an answer wins. */
const PRIORITY: readonly Status[] = ["waiting-for-agent", "waiting-for-customer", "new"];

export const CUSTOMER_AUTHOR = "Customer";

export const labelNames = (issue: Pick<GhIssue, "labels">): string[] =>
  issue.labels.map((l) => (typeof l === "string" ? l : l.name)).filter((n): n is string => typeof n === "string");

/**
 * Status of an issue; `preferred` is the label a `labeled` event just added (it wins over a stale one).
 * `known` is the mirror's status: an open issue without any status label keeps an open one, because GitHub
 * drops labels silently when the token may not set them (no triage or push access), and that must not
 * read as a change. Only an issue reopened from a closed status, unlabelled, needs an agent's look.
 */
export function statusOf(issue: Pick<GhIssue, "state" | "state_reason" | "labels">, preferred?: string, known?: Status): Status {
  if (issue.state === "closed") return issue.state_reason === "not_planned" || issue.state_reason === "duplicate" ? "closed" : "resolved";
  const names = labelNames(issue);
  if (preferred && (OPEN_STATUS_LABELS as readonly string[]).includes(preferred) && names.includes(preferred)) return preferred as Status;
  for (const s of PRIORITY) if (names.includes(s)) return s;
  return known && isOpen(known) ? known : "waiting-for-agent";
}

/** The agent's labels: every label that is not a status. */
export const agentLabels = (issue: Pick<GhIssue, "labels">): string[] => labelNames(issue).filter((n) => !isStatus(n));

export const assigneeOf = (issue: Pick<GhIssue, "assignee" | "assignees">): string | null =>
  issue.assignee?.login ?? issue.assignees?.[0]?.login ?? null;

/** GitHub writes second-precision `Z` times; the store compares ISO strings as text, so normalise them. */
export const isoOf = (s: string): string => new Date(s).toISOString();

export interface GhIds {
  conversation(issueNumber: number): string;
  /** Issue number of a mirrored conversation id of this repo; undefined for any other id. */
  issueNumber(conversationId: string): number | undefined;
  issueBody(issueNumber: number): string;
  comment(commentId: number): string;
}

/** Ids carry a tag of the repository, so two repositories (or a re-pointed product) never collide. */
export function ghIds(tag: string): GhIds {
  const conv = new RegExp(`^gh_${tag}_(\\d{1,12})$`);
  return {
    conversation: (n) => `gh_${tag}_${n}`,
    issueNumber(id) {
      const m = conv.exec(id);
      return m ? Number(m[1]) : undefined;
    },
    issueBody: (n) => `ghb_${tag}_${n}`,
    comment: (id) => `ghc_${tag}_${id}`,
  };
}

/** A customer message only when written by the kit's own bot AND carrying the hidden block for this customer. */
export function isCustomerBody(author: string | undefined, body: string | null, botLogin: string, customerId: string): boolean {
  if (!author || author.toLowerCase() !== botLogin.toLowerCase()) return false;
  return parseMetadata(body)?.customerId === customerId;
}

export function commentMessage(ids: GhIds, c: GhComment, botLogin: string, customerId: string): MirrorMessage {
  const customer = isCustomerBody(c.user?.login, c.body, botLogin, customerId);
  const clientMessageId = customer ? parseMetadata(c.body)?.clientMessageId : undefined;
  return {
    id: ids.comment(c.id),
    body: customer && c.body !== null ? restoreMentions(c.body) : c.body,
    author: customer ? CUSTOMER_AUTHOR : (c.user?.login ?? "unknown"),
    isCustomer: customer,
    dedupKey: clientMessageId || `#github/comment/${c.id}`,
    createdAt: isoOf(c.created_at),
  };
}

export function issueMessage(ids: GhIds, issue: GhIssue, botLogin: string, customerId: string): MirrorMessage {
  const customer = isCustomerBody(issue.user?.login, issue.body, botLogin, customerId);
  const clientMessageId = customer ? parseMetadata(issue.body)?.clientMessageId : undefined;
  return {
    id: ids.issueBody(issue.number),
    body: customer ? restoreMentions(issue.body ?? "") : (issue.body ?? ""),
    author: customer ? CUSTOMER_AUTHOR : (issue.user?.login ?? "unknown"),
    isCustomer: customer,
    dedupKey: clientMessageId || `#github/issue/${issue.number}`,
    createdAt: isoOf(issue.created_at),
  };
}

export function snapshotOf(
  ids: GhIds,
  issue: GhIssue,
  comments: GhComment[],
  botLogin: string,
  customerId: string,
  known?: Status,
): MirrorSnapshot {
  return {
    state: { subject: issue.title, status: statusOf(issue, undefined, known), labels: agentLabels(issue), assignee: assigneeOf(issue) },
    messages: [issueMessage(ids, issue, botLogin, customerId), ...comments.map((c) => commentMessage(ids, c, botLogin, customerId))],
  };
}
