// How a GitHub issue and its comments read as a conversation: status from state, state_reason and the
// mutually exclusive status labels; who is the customer; the stored ids of the mirror.
import { parseMetadata } from "../../domain/metadata.js";
import type { MirrorMessage, MirrorSnapshot } from "../../domain/mirror.js";
import { isOpen, isStatus, type Status } from "../../domain/status.js";
import { restoreMentions } from "../display.js";
import { withoutFileList } from "./files.js";

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
  closed_at?: string | null;
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
    body: customer && c.body !== null ? withoutFileList(restoreMentions(c.body)) : c.body,
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
    body: customer ? withoutFileList(restoreMentions(issue.body ?? "")) : (issue.body ?? ""),
    author: customer ? CUSTOMER_AUTHOR : (issue.user?.login ?? "unknown"),
    isCustomer: customer,
    dedupKey: clientMessageId || `#github/issue/${issue.number}`,
    createdAt: isoOf(issue.created_at),
  };
}

/** The last message by time; a stable sort, so within GitHub's whole seconds the order GitHub lists them in. */
const lastOf = <M extends Pick<MirrorMessage, "createdAt">>(messages: readonly M[]): M | undefined =>
  [...messages].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0)).at(-1);

/** What the messages say the status of an open conversation is: who wrote last (the status machine's rule). */
export function statusFromMessages(messages: readonly Pick<MirrorMessage, "isCustomer" | "createdAt">[]): Status {
  const last = lastOf(messages);
  if (last && !last.isCustomer) return "waiting-for-customer";
  return messages.length > 1 ? "waiting-for-agent" : "new";
}

/**
 * The status a poll reads from an issue, idempotently, whatever label writes of the kit are in flight (the
 * labels are the kit's output, not the truth of an open issue) and whatever the kit's clock says against GitHub's
 * (only GitHub's own times are compared with each other). `stored`: the ids of the messages the mirror has.
 * - closed: resolved or closed by `state_reason`, unless a customer message is newer than `closed_at` (the kit
 *   is reopening it for that message): the mirror's status stands;
 * - open, mirrored as resolved or closed: reopened on GitHub, read from its labels (`statusOf`);
 * - open: the mirror's status, unless the last message is one the mirror lacks (its webhook was lost): then it
 *   moves the status as its webhook would have (who wrote last decides). A message the mirror has already moved
 *   the status once, so a status set after it (by an agent's label, by the kit) stands, and a second poll
 *   changes nothing.
 */
export function polledStatus(issue: GhIssue, messages: MirrorMessage[], known: Status, stored: ReadonlySet<string>): Status {
  if (issue.state === "closed") {
    const closedAt = issue.closed_at ? isoOf(issue.closed_at) : "";
    // GitHub's times have whole seconds: a message in the second of the close counts as after it
    if (isOpen(known) && messages.some((m) => m.isCustomer && m.createdAt >= closedAt)) return known;
    return statusOf(issue, undefined, known);
  }
  if (!isOpen(known)) return statusOf(issue, undefined, known);
  const last = lastOf(messages);
  return last && !stored.has(last.id) ? statusFromMessages(messages) : known;
}

/**
 * The issue as a mirror snapshot. `mirrored`: the mirror's status and the ids of its messages, when there is a
 * mirror; a new mirror (an adopted issue) takes its status from the messages.
 */
export function snapshotOf(
  ids: GhIds,
  issue: GhIssue,
  comments: GhComment[],
  botLogin: string,
  customerId: string,
  mirrored: { status: Status; stored: ReadonlySet<string> } = { status: "new", stored: new Set() },
): MirrorSnapshot {
  const messages = [issueMessage(ids, issue, botLogin, customerId), ...comments.map((c) => commentMessage(ids, c, botLogin, customerId))];
  const status = polledStatus(issue, messages, mirrored.status, mirrored.stored);
  return { state: { subject: issue.title, status, labels: agentLabels(issue), assignee: assigneeOf(issue) }, messages };
}
