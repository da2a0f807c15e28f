// `mountkit webhooks <command>`: manages a service's webhook subscriptions over its HTTP API (docs/webhooks.md).
// Node only (`@mountkit/core/webhooks-cli`); each service's command line mounts it.
import { parseArgs } from "node:util";

/** Where each service keeps its subscriptions, relative to its mount. */
export const WEBHOOK_PATHS: Readonly<Record<string, string>> = {
  entries: "/api/v1/webhooks",
  memory: "/v1/webhooks",
  support: "/care/webhooks",
};

/** The help text, under the name of the command line that mounts these commands (`mountkit-entries webhooks`). */
const usage = (name: string) => `usage: ${name} <command> [options]

commands:
  list                                     the subscriptions of your scope
  create --url <url> --event <type>...     subscribe (--event repeatable, or * for all); prints the secret
  show <id>                                one subscription
  update <id> [--url <url>] [--event <type>...] [--description <text>] [--enable | --disable] [--rotate-secret]
  delete <id>                              delete a subscription and its delivery log
  deliveries <id> [--limit <n>] [--cursor <c>]   the delivery log, newest event first
  redeliver <id> <delivery-id>             send a delivery again now

options:
  --server <url>        base URL of the server (env MOUNTKIT_URL; default http://127.0.0.1:3000)
  --token <token>       bearer token or API key (env MOUNTKIT_TOKEN)
  --service <name>      entries (default), memory or support: where the subscriptions live
  --path <path>         the subscriptions' path, when the service is mounted elsewhere
  --description <text>  a note kept with the subscription
  --json                print the server's JSON answer
  -h, --help`;

type Out = { write(s: string): unknown };
type Values = Record<string, string | string[] | boolean | undefined>;

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      server: { type: "string" },
      token: { type: "string" },
      service: { type: "string" },
      path: { type: "string" },
      url: { type: "string" },
      event: { type: "string", multiple: true },
      description: { type: "string" },
      enable: { type: "boolean" },
      disable: { type: "boolean" },
      "rotate-secret": { type: "boolean" },
      limit: { type: "string" },
      cursor: { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}

/** The request a command makes: method, path below the subscriptions' path, body. */
function requestOf(command: string, args: string[], v: Values): { method: string; path: string; body?: unknown } | string {
  const id = args[0] ? `/${encodeURIComponent(args[0])}` : undefined;
  const events = v.event as string[] | undefined;
  switch (command) {
    case "list":
      return { method: "GET", path: "" };
    case "create":
      if (!v.url || !events?.length) return "create needs --url and at least one --event";
      return {
        method: "POST",
        path: "",
        body: {
          url: v.url,
          events,
          ...(v.description !== undefined ? { description: v.description } : {}),
          ...(v.disable ? { enabled: false } : {}),
        },
      };
    case "show":
      return id ? { method: "GET", path: id } : "show needs a subscription id";
    case "update": {
      if (!id) return "update needs a subscription id";
      const body = {
        ...(v.url !== undefined ? { url: v.url } : {}),
        ...(events?.length ? { events } : {}),
        ...(v.description !== undefined ? { description: v.description } : {}),
        ...(v.enable ? { enabled: true } : v.disable ? { enabled: false } : {}),
        ...(v["rotate-secret"] ? { rotateSecret: true } : {}),
      };
      return Object.keys(body).length ? { method: "PATCH", path: id, body } : "update needs something to change";
    }
    case "delete":
      return id ? { method: "DELETE", path: id } : "delete needs a subscription id";
    case "deliveries": {
      if (!id) return "deliveries needs a subscription id";
      const q = new URLSearchParams();
      if (v.limit) q.set("limit", String(v.limit));
      if (v.cursor) q.set("cursor", String(v.cursor));
      return { method: "GET", path: `${id}/deliveries${q.size ? `?${q}` : ""}` };
    }
    case "redeliver":
      return id && args[1]
        ? { method: "POST", path: `${id}/deliveries/${encodeURIComponent(args[1])}/redeliver` }
        : "redeliver needs a subscription id and a delivery id";
    default:
      return `unknown command ${command}`;
  }
}

type Row = Record<string, any>;

function human(command: string, answer: Row, out: Out) {
  if (command === "delete") return out.write("deleted\n");
  if (command === "list") {
    for (const s of answer.data as Row[]) out.write(`${s.id}  ${s.enabled ? "enabled " : "disabled"}  ${s.events.join(",")}  ${s.url}\n`);
    if (!answer.data.length) out.write("no subscriptions\n");
    return;
  }
  if (command === "deliveries") {
    for (const d of answer.data as Row[]) {
      const last = d.attempts.at(-1);
      out.write(
        `${d.id}  ${d.state.padEnd(9)}  ${d.eventType}  attempts ${d.attemptCount}${last ? `  last ${last.status ?? "-"} ${last.error ?? ""}` : ""}\n`,
      );
    }
    if (answer.next) out.write(`more: --cursor ${answer.next}\n`);
    return;
  }
  if (command === "redeliver") return out.write(`queued ${answer.id}\n`);
  out.write(`${JSON.stringify(answer, null, 2)}\n`);
}

/**
 * Runs one `webhooks` command; the exit code: 0 done, 1 the server refused, 2 a usage error. `name` is how the
 * help text names the command.
 */
export async function webhooksCommand(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  out: Out = process.stdout,
  err: Out = process.stderr,
  name = "mountkit webhooks",
): Promise<number> {
  const USAGE = usage(name);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (e) {
    err.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const v = parsed.values as Values;
  const [command, ...args] = parsed.positionals;
  if (v.help || !command) {
    err.write(`${USAGE}\n`);
    return v.help ? 0 : 2;
  }
  const service = (v.service as string | undefined) ?? "entries";
  const base = (v.path as string | undefined) ?? WEBHOOK_PATHS[service];
  if (!base) {
    err.write(`unknown service ${service}: entries, memory or support (or give --path)\n`);
    return 2;
  }
  const req = requestOf(command, args, v);
  if (typeof req === "string") {
    err.write(`${req}\n${USAGE}\n`);
    return 2;
  }
  const server = ((v.server as string | undefined) ?? env.MOUNTKIT_URL ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
  const token = (v.token as string | undefined) ?? env.MOUNTKIT_TOKEN;
  const res = await fetch(`${server}${base}${req.path}`, {
    method: req.method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(req.body ? { "content-type": "application/json" } : {}) },
    ...(req.body ? { body: JSON.stringify(req.body) } : {}),
  }).catch((e: Error) => e);
  if (res instanceof Error) {
    err.write(`could not reach ${server}: ${res.message}\n`);
    return 1;
  }
  const text = await res.text();
  const answer = text ? (JSON.parse(text) as Row) : {};
  if (!res.ok) {
    err.write(`${res.status}: ${answer.error ?? text}${answer.details ? `\n${JSON.stringify(answer.details, null, 2)}` : ""}\n`);
    return 1;
  }
  if (v.json) out.write(`${text || "{}"}\n`);
  else human(command, answer, out);
  return 0;
}
