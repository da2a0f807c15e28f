// What a customer does on a GitHub-backed product: each write goes to the issue through the rate-limit-aware
// queue first, then lands in the mirror at once; reads come from the mirror.
import { iso } from "@mountkit/core";
import type { CustomerBackend, CustomerScope } from "../../domain/backend.js";
import { isOpen, openedConversation } from "../../domain/status.js";
import { supportError } from "../../errors.js";
import type { ConversationRecord } from "../../store/types.js";
import { neutraliseMentions } from "../display.js";
import { customerBody, mirroredReads, onceByClientId } from "../mirrored.js";
import { attached, background, bot, type GithubState, ok, postedEarlier, removeOpenStatusLabels, writeOpenStatus } from "./client.js";
import { withFileList } from "./files.js";
import { CUSTOMER_AUTHOR, commentMessage, type GhComment, type GhIssue, labelNames } from "./mapping.js";

type CustomerOps = Omit<CustomerBackend, "kind" | "attach" | "webhook" | "dispose">;

/** A customer body as the issue shows it: its attachments listed, with signed links when the service gives them. */
const shown = (s: GithubState, body: string) => withFileList(body, attached(s).cx.files, s.options.embedImages ?? true);

async function owned(s: GithubState, scope: CustomerScope, id: string): Promise<ConversationRecord & { issue: number }> {
  const issue = s.ids.issueNumber(id);
  const c = issue === undefined ? null : await attached(s).mirror.get(id);
  if (!c || issue === undefined || c.productSlug !== scope.productSlug || c.customerId !== scope.customerId)
    throw supportError("conversation_not_found");
  return { ...c, issue };
}

const createConversation =
  (s: GithubState): CustomerBackend["createConversation"] =>
  ({ productSlug, customerId, subject, body, clientMessageId }) =>
    onceByClientId(s, { productSlug, customerId }, clientMessageId, async () => {
      const { mirror, cx } = attached(s);
      // known before anything is written: every later read of this issue depends on it
      await bot(s);
      const r = await s.gh.write({
        method: "POST",
        path: s.issuesPath,
        body: { title: subject, body: neutraliseMentions(await shown(s, customerBody(body, customerId))), labels: ["new"] },
      });
      const issue = ok<GhIssue>(r, "create issue");
      if (!labelNames(issue).includes("new"))
        cx.logger.warn("support: GitHub dropped the status label (the token lacks triage access); statuses are kept by the kit only", {
          repo: s.repo,
        });
      const now = iso(cx.clock.now());
      const c = await mirror.create({
        conversation: openedConversation({ id: s.ids.conversation(issue.number), productSlug, customerId, subject, at: now }),
        messages: [
          {
            id: s.ids.issueBody(issue.number),
            body: customerBody(body, customerId),
            author: CUSTOMER_AUTHOR,
            isCustomer: true,
            dedupKey: clientMessageId ?? `#github/issue/${issue.number}`,
            createdAt: now,
          },
        ],
        dedupKey: clientMessageId,
      });
      if (c.id !== s.ids.conversation(issue.number))
        cx.logger.warn("support: another process created this conversation first; the extra issue stays on GitHub", {
          repo: s.repo,
          issue: issue.number,
        });
      return { conversationId: c.id, createdAt: c.createdAt };
    });

const postMessage =
  (s: GithubState): CustomerBackend["postMessage"] =>
  async ({ conversationId, body, clientMessageId, ...scope }) => {
    const { mirror } = attached(s);
    return s.lock(conversationId, async () => {
      const c = await owned(s, scope, conversationId);
      const dup = await mirror.duplicate(conversationId, clientMessageId);
      if (dup) return dup;
      if (c.status === "closed") throw supportError("conversation_closed");
      const login = await bot(s);
      let posted: GhComment | undefined;
      if (clientMessageId !== null) {
        // the first attempt of this message marks it before writing; a repeat finds the mark and looks on
        // GitHub for what an attempt that failed after its write left there (the mark lives a week, and
        // the reconciliation poll mirrors such a comment well before)
        const source = `github-post:${s.repo.toLowerCase()}`;
        const deliveryId = `${conversationId}\n${scope.customerId}\n${clientMessageId}`;
        const first = await attached(s).cx.store.claimDelivery({ source, deliveryId, receivedAt: iso(attached(s).cx.clock.now()) });
        if (!first) posted = await postedEarlier(s, c.issue, login, scope.customerId, clientMessageId);
      }
      const again = posted !== undefined;
      if (!posted) {
        const r = await s.gh.write({
          method: "POST",
          path: `${s.issuesPath}/${c.issue}/comments`,
          body: { body: neutraliseMentions(await shown(s, customerBody(body, scope.customerId))) },
        });
        if (r.status === 404 || r.status === 410) {
          await mirror.remove(conversationId);
          throw supportError("conversation_not_found");
        }
        posted = ok<GhComment>(r, "create comment");
      }
      const message = commentMessage(s.ids, posted, login, scope.customerId);
      const added = await mirror.addMessage(conversationId, message, (st) => (st === "closed" ? st : "waiting-for-agent"));
      if (!added) throw supportError("conversation_not_found");
      if (c.status !== "waiting-for-agent")
        void background(s, "status labels", writeOpenStatus(s, c.issue, "waiting-for-agent", !isOpen(c.status)));
      return { id: added.message.id, createdAt: added.message.createdAt, deduplicated: again || added.message.id !== message.id };
    });
  };

const closeConversation =
  (s: GithubState): CustomerBackend["closeConversation"] =>
  async ({ conversationId, action, ...scope }) => {
    const { mirror } = attached(s);
    return s.lock(conversationId, async () => {
      const c = await owned(s, scope, conversationId);
      if (!isOpen(c.status)) return { status: c.status };
      const status = action === "resolve" ? "resolved" : "closed";
      const r = await s.gh.write({
        method: "PATCH",
        path: `${s.issuesPath}/${c.issue}`,
        body: { state: "closed", state_reason: action === "resolve" ? "completed" : "not_planned" },
      });
      if (r.status === 404 || r.status === 410) {
        await mirror.remove(conversationId);
        throw supportError("conversation_not_found");
      }
      const issue = ok<GhIssue>(r, "close issue");
      await mirror.setState(conversationId, { status });
      void background(s, "status labels", removeOpenStatusLabels(s, c.issue, labelNames(issue)));
      return { status };
    });
  };

export function githubCustomerOps(s: GithubState): CustomerOps {
  return {
    createConversation: createConversation(s),
    postMessage: postMessage(s),
    closeConversation: closeConversation(s),
    ...mirroredReads(
      () => attached(s),
      (id) => s.ids.issueNumber(id) !== undefined,
    ),
  };
}
