// The GitHub backend's reconciliation poll: every issue updated since the last pass is brought into the
// mirror, which repairs whatever a lost webhook missed (GitHub does not redeliver).
import { iso } from "@mountkit/core";
import { parseMetadata } from "../../domain/metadata.js";
import { isOpen } from "../../domain/status.js";
import { allPages, attached, background, bot, type GithubState, writeOpenStatus } from "./client.js";
import { type GhComment, type GhIssue, isoOf, labelNames, snapshotOf } from "./mapping.js";

/** Brings one mirrored issue to GitHub's state; creates the mirror of a bot-opened issue it lacks. */
async function reconcileIssue(s: GithubState, issue: GhIssue) {
  const { mirror, cx } = attached(s);
  const { ids, issuesPath } = s;
  const id = ids.conversation(issue.number);
  await s.lock(id, async () => {
    let c = await cx.store.getConversation({ id });
    if (c?.deletedAt) return;
    const login = await bot(s);
    if (!c) {
      // an issue the kit opened whose mirror was never written (a crash between the two): adopt it
      const meta = parseMetadata(issue.body);
      const customerId = meta?.customerId;
      const opened = Date.parse(issue.created_at);
      if (!customerId || issue.user?.login?.toLowerCase() !== login.toLowerCase() || cx.clock.now() - opened < 60_000) return;
      const comments = await allPages<GhComment>(s, `${issuesPath}/${issue.number}/comments`, {});
      const snap = snapshotOf(ids, issue, comments, login, customerId);
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
      const comments = await allPages<GhComment>(s, `${issuesPath}/${issue.number}/comments`, {});
      const stored = new Set((await cx.store.listMessages({ conversationId: id })).map((m) => m.id));
      const snap = snapshotOf(ids, issue, comments, login, c.customerId, { status: c.status, stored });
      await mirror.sync(id, snap);
      // the messages moved the status (a lost webhook): the issue's labels follow, as the webhook would have
      const to = snap.state.status;
      if (to && to !== c.status && isOpen(to) && !labelNames(issue).includes(to))
        void background(s, "status labels", writeOpenStatus(s, issue.number, to, false));
    } catch (e) {
      if ((e as { gone?: boolean }).gone) await mirror.remove(id);
      else throw e;
    }
  });
}

/** One pass over the issues updated since the last one began; one pass at a time. */
export function reconcilePass(s: GithubState): Promise<{ issues: number }> {
  // one pass at a time: a pass over many pages can outlast the timer's period
  s.pass ??= (async () => {
    const started = attached(s).cx.clock.now();
    // a little overlap: an issue updated while the last pass ran is looked at again (the sync is idempotent)
    const from = s.since === undefined ? started - (s.options.reconcileLookbackMs ?? 24 * 3_600_000) : s.since - 60_000;
    const issues = await allPages<GhIssue>(s, s.issuesPath, {
      state: "all",
      since: iso(from).replace(/\.\d{3}Z$/, "Z"),
      sort: "updated",
      direction: "asc",
    });
    let n = 0;
    for (const issue of issues) {
      if (issue.pull_request) continue;
      await reconcileIssue(s, issue);
      n++;
    }
    s.since = started;
    return { issues: n };
  })().finally(() => {
    s.pass = undefined;
  });
  return s.pass;
}
