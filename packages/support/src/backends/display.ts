// How customer text is shown on a remote system without acting there: Slack mrkdwn control characters are
// escaped, GitHub @-mentions are broken by a zero-width joiner. The stored body stays as the customer wrote it.

/** Slack's three control characters in message text (`<!channel>`, `<@U…>`, `<url|label>` all start with `<`). */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

const ZWJ = "\u200d";
// an `@` before a login or team name (after any joiners already there, so the mapping can be undone exactly)
const MENTION = /@(?=\u200d*[A-Za-z0-9])/g;
const NEUTRALISED = /@\u200d(?=\u200d*[A-Za-z0-9])/g;

/**
 * The body GitHub shows: one joiner after every `@` that could start a mention, so `@team` notifies nobody.
 * `restoreMentions` removes exactly those joiners, so a customer's own joiners survive the round trip.
 */
export function neutraliseMentions(text: string): string {
  return text.replace(MENTION, `@${ZWJ}`);
}

/** The customer's text back from what `neutraliseMentions` wrote on GitHub. */
export function restoreMentions(text: string): string {
  return text.replace(NEUTRALISED, "@");
}
