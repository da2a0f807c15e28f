// The `mountkit-entries` command: `import <file-or-url>...` submits spec URLs, spec files, entries or country records to
// a running server; `webhooks <command>` manages webhook subscriptions (the core's commands, on the entries service).
import { readFile } from "node:fs/promises";
import { basename, extname } from "node:path";
import { parseArgs } from "node:util";
import { webhooksCommand } from "@mountkit/core/webhooks-cli";
import { load as loadYaml } from "js-yaml";
import { progressBar } from "./cli/progress.js";

export interface ImportItem {
  /** Where it came from, for the summary: file name, URL, `file.json#3`. */
  source: string;
  typeId: string;
  body: { name: string; description: string; customData: Record<string, unknown>; tags?: string[] };
}

export interface ImportFailure {
  source: string;
  status?: number;
  error: string;
  details?: Array<{ path: string; message: string }>;
}

/** The command's name; `mountkit`, its earlier name, is kept as an alias (and `mountkit entries import` still works). */
const NAME = "mountkit-entries";

const USAGE = `usage: ${NAME} import <file-or-url>... [options]
       ${NAME} webhooks <command> [options]   (${NAME} webhooks --help)

Submits each argument to a running mountkit server:
  https://...          an OpenAPI/Swagger document's URL: an \`apis\` entry (name from info.title)
  spec.yaml|json       a local OpenAPI/Swagger file: an \`apis\` entry at --spec-base-url/<file name>
  entries.json|yaml    an entry {name, description, customData, tags?} or a list of them
  countries.json       a country record {emoji, name, officialName, sovereignty, alpha2, alpha3, numeric} or a list
  *.jsonl / *.ndjson   one entry or country record per line

options:
  --server <url>         base URL of the server (env MOUNTKIT_URL; default http://127.0.0.1:3000)
  --token <jwt>          bearer token (env MOUNTKIT_TOKEN)
  --type <id>            type of plain entries (default: apis when customData.specUrl, countries when alpha2)
  --spec-base-url <url>  where local spec files are published
  --tag <tag>            add a tag to every entry (repeatable)
  --concurrency <n>      parallel submissions (default 4)
  -h, --help`;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isSpec = (v: unknown) => isObject(v) && (typeof v.openapi === "string" || v.swagger !== undefined) && isObject(v.info);
const isCountry = (v: unknown) => isObject(v) && typeof v.alpha2 === "string" && !("customData" in v);

function parseContent(text: string, file: string): unknown {
  const ext = extname(file).toLowerCase();
  if (ext === ".jsonl" || ext === ".ndjson") {
    return text
      .split(/\r?\n/)
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l));
  }
  return /^\s*[[{]/.test(text) ? JSON.parse(text) : loadYaml(text);
}

function specEntry(source: string, doc: Record<string, unknown>, specUrl: string, tags: string[]): ImportItem {
  const info = (doc.info ?? {}) as Record<string, unknown>;
  const name = typeof info.title === "string" && info.title.trim() ? info.title.trim().slice(0, 200) : specUrl.slice(0, 200);
  const description =
    typeof info.description === "string" && info.description.trim()
      ? info.description.trim().slice(0, 10_000)
      : `API described at ${specUrl}`;
  return { source, typeId: "apis", body: { name, description, customData: { specUrl }, ...(tags.length ? { tags } : {}) } };
}

function recordEntry(source: string, v: unknown, o: { type?: string; tags: string[] }): ImportItem {
  if (isCountry(v)) {
    const c = v as Record<string, string>;
    return {
      source,
      typeId: o.type ?? "countries",
      body: {
        name: String(c.name ?? c.alpha2),
        description: String(c.officialName ?? c.name ?? c.alpha2),
        customData: c,
        ...(o.tags.length ? { tags: o.tags } : {}),
      },
    };
  }
  if (!isObject(v) || !isObject(v.customData)) throw new Error("not an entry ({name, description, customData}) nor a country record");
  const typeId =
    o.type ?? (typeof v.customData.specUrl === "string" ? "apis" : typeof v.customData.alpha2 === "string" ? "countries" : undefined);
  if (!typeId) throw new Error("cannot tell the entry's type: pass --type");
  const tags = [...(Array.isArray(v.tags) ? (v.tags as string[]) : []), ...o.tags];
  return { source, typeId, body: { ...(v as ImportItem["body"]), ...(tags.length ? { tags } : {}) } };
}

/** Turns the command line's arguments into submissions; unreadable arguments become failures. */
export async function collectItems(
  args: string[],
  o: { type?: string; specBaseUrl?: string; tags: string[]; fetch?: typeof fetch },
): Promise<{ items: ImportItem[]; failures: ImportFailure[] }> {
  const items: ImportItem[] = [];
  const failures: ImportFailure[] = [];
  const doFetch = o.fetch ?? fetch;
  for (const arg of args) {
    if (/^https?:\/\//i.test(arg)) {
      // Read the spec for its title; the server fetches and judges it again, so a failure here is not fatal.
      let doc: Record<string, unknown> = {};
      try {
        const res = await doFetch(arg, { signal: AbortSignal.timeout(15_000) });
        const parsed = res.ok ? parseContent(await res.text(), new URL(arg).pathname) : undefined;
        if (isSpec(parsed)) doc = parsed as Record<string, unknown>;
      } catch {
        // left to the server's verdict
      }
      items.push(specEntry(arg, doc, arg, o.tags));
      continue;
    }
    let value: unknown;
    try {
      value = parseContent(await readFile(arg, "utf8"), arg);
    } catch (e) {
      failures.push({ source: arg, error: `cannot read: ${(e as Error).message.split("\n")[0]}` });
      continue;
    }
    if (isSpec(value)) {
      if (!o.specBaseUrl) {
        failures.push({ source: arg, error: "a local spec file needs --spec-base-url (the server fetches specs by URL)" });
        continue;
      }
      const specUrl = new URL(basename(arg), o.specBaseUrl.endsWith("/") ? o.specBaseUrl : `${o.specBaseUrl}/`).href;
      items.push(specEntry(arg, value as Record<string, unknown>, specUrl, o.tags));
      continue;
    }
    const list = Array.isArray(value) ? value : [value];
    list.forEach((v, i) => {
      const source = Array.isArray(value) ? `${arg}#${i}` : arg;
      try {
        items.push(recordEntry(source, v, o));
      } catch (e) {
        failures.push({ source, error: (e as Error).message });
      }
    });
  }
  return { items, failures };
}

/** Submits items with bounded concurrency; reports each outcome as it lands. */
export async function submitAll(
  items: ImportItem[],
  o: { server: string; token?: string; concurrency: number; onResult?: (ok: boolean) => void; fetch?: typeof fetch },
): Promise<{ created: Array<{ source: string; id: string }>; failures: ImportFailure[] }> {
  const doFetch = o.fetch ?? fetch;
  const created: Array<{ source: string; id: string }> = [];
  const failures: ImportFailure[] = [];
  const base = o.server.replace(/\/+$/, "");
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      try {
        const res = await doFetch(`${base}/api/v1/types/${encodeURIComponent(item.typeId)}/data`, {
          method: "POST",
          headers: { "content-type": "application/json", ...(o.token ? { authorization: `Bearer ${o.token}` } : {}) },
          body: JSON.stringify(item.body),
          signal: AbortSignal.timeout(60_000),
        });
        const text = await res.text();
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(text);
        } catch {
          body = { error: text.slice(0, 200) };
        }
        if (res.status === 201) created.push({ source: item.source, id: String(body.id) });
        else
          failures.push({
            source: item.source,
            status: res.status,
            error: typeof body.error === "string" ? body.error : `HTTP ${res.status}`,
            ...(Array.isArray(body.details) ? { details: body.details as ImportFailure["details"] } : {}),
          });
        o.onResult?.(res.status === 201);
      } catch (e) {
        failures.push({ source: item.source, error: `request failed: ${(e as Error).message}` });
        o.onResult?.(false);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency, items.length)) }, worker));
  return { created, failures };
}

export function formatSummary(total: number, created: number, failures: ImportFailure[]): string {
  const lines = [`imported ${created} of ${total}${failures.length ? `; ${failures.length} failed:` : ""}`];
  for (const f of failures) {
    lines.push(`  ✗ ${f.source}${f.status ? ` (${f.status})` : ""}: ${f.error}`);
    for (const d of (f.details ?? []).slice(0, 10)) lines.push(`      ${d.path}: ${d.message}`);
    if ((f.details?.length ?? 0) > 10) lines.push(`      … ${f.details!.length - 10} more`);
  }
  return lines.join("\n");
}

/** CLI entry point; resolves to the process exit code. */
export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  out: NodeJS.WriteStream = process.stdout,
): Promise<number> {
  // `entries import`, the form from when the command was named `mountkit`, still works
  const [command, ...rest] = argv[0] === "entries" ? argv.slice(1) : argv;
  if (command === "webhooks") return webhooksCommand(rest, env, out, process.stderr, `${NAME} webhooks`);
  if (command === "-h" || command === "--help") {
    out.write(`${USAGE}\n`);
    return 0;
  }
  if (command !== "import") {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  let parsed: ReturnType<
    typeof parseArgs<{
      options: Record<string, { type: "string" | "boolean"; multiple?: boolean; short?: string }>;
      allowPositionals: true;
    }>
  >;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        server: { type: "string" },
        token: { type: "string" },
        type: { type: "string" },
        "spec-base-url": { type: "string" },
        tag: { type: "string", multiple: true },
        concurrency: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const v = parsed.values as Record<string, string | string[] | boolean | undefined>;
  if (v.help) {
    out.write(`${USAGE}\n`);
    return 0;
  }
  if (parsed.positionals.length === 0) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const server = (v.server as string | undefined) ?? env.MOUNTKIT_URL ?? "http://127.0.0.1:3000";
  const token = (v.token as string | undefined) ?? env.MOUNTKIT_TOKEN;
  const tags = (v.tag as string[] | undefined) ?? [];
  const { items, failures: unreadable } = await collectItems(parsed.positionals, {
    type: v.type as string | undefined,
    specBaseUrl: v["spec-base-url"] as string | undefined,
    tags,
  });
  const bar = progressBar(items.length);
  const { created, failures } = await submitAll(items, { server, token, concurrency: Number(v.concurrency ?? 4) || 4, onResult: bar.tick });
  bar.done();
  const all = [...unreadable, ...failures];
  out.write(`${formatSummary(items.length + unreadable.length, created.length, all)}\n`);
  return all.length ? 1 : 0;
}
