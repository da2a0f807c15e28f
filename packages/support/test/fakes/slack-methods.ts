// Checks a Web API call against Slack's own client (@slack/web-api): the method must be one `WebClient`
// has, and its arguments are checked against a table whose keys the compiler holds to the method's
// official argument type (a missing or unknown key fails `npm run typecheck`), with each value's JSON type.
import { WebClient } from "@slack/web-api";

type ArgsOf<F> = F extends (options?: infer A) => unknown ? NonNullable<A> : F extends (options: infer A) => unknown ? A : never;
/** Every key of every member of a union (Slack's argument types are unions of variants). */
type Keys<T> = T extends unknown ? keyof T : never;
type Kind = "string" | "number" | "boolean" | "object" | "array";
interface Rule {
  kinds: Kind[];
  required?: true;
}

interface Used {
  "auth.test": ArgsOf<WebClient["auth"]["test"]>;
  "users.info": ArgsOf<WebClient["users"]["info"]>;
  "chat.postMessage": ArgsOf<WebClient["chat"]["postMessage"]>;
  "conversations.replies": ArgsOf<WebClient["conversations"]["replies"]>;
  "files.getUploadURLExternal": ArgsOf<WebClient["files"]["getUploadURLExternal"]>;
  "files.completeUploadExternal": ArgsOf<WebClient["files"]["completeUploadExternal"]>;
}

const s: Rule = { kinds: ["string"] };
const b: Rule = { kinds: ["boolean"] };
const n: Rule = { kinds: ["number"] };
const req: Rule = { kinds: ["string"], required: true };

const RULES: { [M in keyof Used]: { [K in Keys<Used[M]>]-?: Rule } } = {
  "auth.test": { token: s },
  "users.info": { token: s, user: req, include_locale: b },
  "chat.postMessage": {
    token: s,
    channel: req,
    text: s,
    blocks: { kinds: ["array", "string"] },
    attachments: { kinds: ["array", "string"] },
    markdown_text: s,
    thread_ts: s,
    reply_broadcast: b,
    as_user: b,
    icon_emoji: s,
    icon_url: s,
    username: s,
    parse: s,
    link_names: b,
    metadata: { kinds: ["object", "string"] },
    unfurl_links: b,
    unfurl_media: b,
    mrkdwn: b,
  },
  "conversations.replies": {
    token: s,
    channel: req,
    ts: req,
    include_all_metadata: b,
    cursor: s,
    limit: n,
    latest: s,
    oldest: s,
    inclusive: b,
  },
  "files.getUploadURLExternal": { token: s, filename: req, length: { kinds: ["number"], required: true }, alt_text: s, snippet_type: s },
  "files.completeUploadExternal": {
    token: s,
    // a form carries the list as JSON text (the official client sends it so); checked below
    files: { kinds: ["array", "string"], required: true },
    channel_id: s,
    thread_ts: s,
    initial_comment: s,
    blocks: { kinds: ["array", "string"] },
  },
};

const client = new WebClient();

/** JSON type of a value as it arrived; query-string values are text, so numbers and booleans may be written as text. */
function kindOk(v: unknown, kinds: Kind[], fromQuery: boolean): boolean {
  if (fromQuery && typeof v === "string") {
    if (kinds.includes("number") && /^\d+$/.test(v)) return true;
    if (kinds.includes("boolean") && /^(true|false|0|1)$/.test(v)) return true;
  }
  const k: Kind = Array.isArray(v) ? "array" : (typeof v as Kind);
  return kinds.includes(k);
}

/** Problems of one call, empty when Slack's client knows the method and its arguments. */
export function checkSlackCall(method: string, args: Record<string, unknown>, fromQuery: boolean): string[] {
  const [group, name, ...more] = method.split(".");
  const fn = more.length === 0 && group && name ? (client as unknown as Record<string, Record<string, unknown>>)[group]?.[name] : undefined;
  if (typeof fn !== "function") return [`${method}: not a Web API method of @slack/web-api`];
  const rules = (RULES as Record<string, Record<string, Rule>>)[method];
  if (!rules) return [`${method}: the stand-in does not serve it`];
  const problems: string[] = [];
  for (const [k, v] of Object.entries(args)) {
    const rule = rules[k];
    if (!rule) problems.push(`${method}: unknown argument ${k}`);
    else if (!kindOk(v, rule.kinds, fromQuery)) problems.push(`${method}: ${k} must be ${rule.kinds.join(" or ")}`);
  }
  for (const [k, rule] of Object.entries(rules)) if (rule.required && args[k] === undefined) problems.push(`${method}: ${k} is required`);
  if (method === "chat.postMessage" && !["text", "blocks", "attachments", "markdown_text"].some((k) => args[k] !== undefined))
    problems.push("chat.postMessage: one of text, blocks, attachments or markdown_text is required");
  if (method === "files.completeUploadExternal") problems.push(...checkFilesList(args.files));
  // files.getUploadURLExternal's documentation: `length` is required and 0 answers missing_argument
  if (method === "files.getUploadURLExternal" && Number(args.length) < 1) problems.push("files.getUploadURLExternal: length must be at least 1");
  // files.completeUploadExternal's documentation: thread_ts only with channel_id (the client's FileThreadDestinationArgument)
  if (method === "files.completeUploadExternal" && args.thread_ts !== undefined && args.channel_id === undefined)
    problems.push("files.completeUploadExternal: thread_ts needs channel_id");
  // chat.postMessage's documentation: "truncated at 40,000 characters"
  if (method === "chat.postMessage" && typeof args.text === "string" && args.text.length > 40_000)
    problems.push(`chat.postMessage: text of ${args.text.length} characters (Slack truncates past 40,000)`);
  return problems;
}

/** `files` of files.completeUploadExternal: a non-empty list of `{ id, title? }` (FileUploadComplete), as JSON text in a form. */
function checkFilesList(files: unknown): string[] {
  let list = files;
  if (typeof files === "string") {
    try {
      list = JSON.parse(files);
    } catch {
      return ["files.completeUploadExternal: files is not JSON"];
    }
  }
  if (!Array.isArray(list) || list.length === 0) return ["files.completeUploadExternal: files must be a non-empty list"];
  const keys = new Set(["id", "title", "highlight_type"]);
  const bad = list.filter(
    (f) =>
      typeof f !== "object" ||
      f === null ||
      typeof f.id !== "string" ||
      (f.title !== undefined && typeof f.title !== "string") ||
      Object.keys(f).some((k) => !keys.has(k)),
  );
  return bad.length ? ["files.completeUploadExternal: each file is { id, title? }"] : [];
}
