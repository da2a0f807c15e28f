// How text crosses to and from a remote system: customer text is shown there without acting (Slack mrkdwn control
// characters escaped, split to Slack's length limit; GitHub @-mentions broken by a zero-width joiner), and a
// person's Slack text is decoded to plain text for the customer. The stored customer body stays as written.

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

/** Slack cuts a message's `text` past 40,000 characters (chat.postMessage's documented limit). */
export const SLACK_TEXT_LIMIT = 40_000;

/**
 * Escaped text cut into pieces of at most `limit` characters, in order: at the last line break in the back half of
 * a piece when there is one, else at the limit; never inside an `&amp;`/`&lt;`/`&gt;` escape or a surrogate pair.
 */
export function splitSlackText(text: string, limit = SLACK_TEXT_LIMIT): string[] {
  if (limit < 8) throw new Error("a Slack piece holds at least 8 characters");
  const out: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    let cut = limit;
    const line = rest.lastIndexOf("\n", cut - 1);
    if (line >= limit / 2) cut = line + 1;
    else {
      // every `&` of escaped text starts an escape of four or five characters: one the cut would split moves whole
      const amp = rest.lastIndexOf("&", cut - 1);
      if (amp > cut - 5 && amp + (rest.startsWith("&amp;", amp) ? 5 : 4) > cut) cut = amp;
      const code = rest.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut--;
    }
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  out.push(rest);
  return out;
}

const unescapeSlack = (text: string): string => text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

/**
 * A person's Slack text as plain text for the customer (Slack's "Formatting text for app surfaces"): escapes
 * decoded; `<@U…>` as `@` and the user's display name (`nameOf`, else the id); `<#C…|name>` as `#name`;
 * `<!here>` and the like as `@here`, `<!subteam^…|@team>` and `<!date^…|fallback>` as their label;
 * `<url|label>` as `label (url)` (just the url when the label repeats it), `<url>` as the url.
 */
export async function decodeSlack(text: string, nameOf: (userId: string) => Promise<string | undefined>): Promise<string> {
  let out = "";
  let at = 0;
  for (const m of text.matchAll(/<([^<>]*)>/g)) {
    out += unescapeSlack(text.slice(at, m.index));
    at = m.index + m[0].length;
    out += await decodeToken(m[1]!, nameOf);
  }
  return out + unescapeSlack(text.slice(at));
}

async function decodeToken(inner: string, nameOf: (userId: string) => Promise<string | undefined>): Promise<string> {
  const bar = inner.indexOf("|");
  const target = bar === -1 ? inner : inner.slice(0, bar);
  const label = bar === -1 ? undefined : unescapeSlack(inner.slice(bar + 1));
  if (target.startsWith("@")) {
    const id = target.slice(1);
    const name = (await nameOf(id)) ?? label;
    return `@${name && name !== id ? name : id}`;
  }
  if (target.startsWith("#")) return `#${label ?? target.slice(1)}`;
  if (target.startsWith("!")) {
    if (label !== undefined) return label;
    const word = target.slice(1).split("^")[0]!;
    return `@${word}`;
  }
  const url = unescapeSlack(target);
  if (label === undefined || label === url || `mailto:${label}` === url) return url.replace(/^mailto:/, "");
  return `${label} (${url})`;
}
