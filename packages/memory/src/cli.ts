// `mountkit-memory keys create|revoke|list`: API-key administration against any MemoryStore;
// `mountkit-memory mcp`: one brain as an MCP server on stdio (its SDK loaded only by that command).
// The store comes from a module exporting `openMemoryStore(env): Promise<{ store, close? }>`, named by
// --store-module or MEMORY_STORE_MODULE (the SQL package provides one); hosts can call runCli directly
// (`@mountkit/memory/cli`: Node only, so it stays off the root entry). `mountkit-memory webhooks …` manages a
// brain's webhook subscriptions over the HTTP API, with the brain's key (the core's `mountkit webhooks`).
import { pathToFileURL } from "node:url";
import { webhooksCommand } from "@mountkit/core/webhooks-cli";
import { createApiKey, revokeApiKey } from "./auth/keys.js";
import type { CliIo } from "./cli/io.js";
import { transferCommand } from "./cli/transfer.js";
import type { MemoryStore } from "./store/types.js";

export type { CliIo };


const USAGE = `usage:
  mountkit-memory keys create --brain <brainId> [--label <text>] [--key <secret>]
  mountkit-memory keys revoke <keyId>
  mountkit-memory keys list [--brain <brainId>] [--json]
  mountkit-memory mcp [--brain <brainId>]   MCP server on stdin/stdout for one brain (or env MEMORY_BRAIN);
                 the store: DATABASE_URL (PostgreSQL) or DATA_DIR (SQLite, default ./data) through
                 @mountkit/sql/memory unless --store-module says otherwise; logs on stderr (MEMORY_LOG_LEVEL)
  mountkit-memory export --brain <brainId> [--out <file>]       the brain as JSON Lines (stdout without --out)
  mountkit-memory import --brain <brainId> [--in <file>]        an export into a brain with no records (stdin without --in)
  mountkit-memory brains delete <brainId>                       a brain with everything it holds and its keys
  mountkit-memory webhooks list|create|show|update|delete|deliveries|redeliver ...   (mountkit-memory webhooks --help)
                 a brain's subscriptions on a running server: --server <url> --token <API key>
                 (or MOUNTKIT_URL, MOUNTKIT_TOKEN)
options:
  --store-module <path|package>  module exporting openMemoryStore(env) (or env MEMORY_STORE_MODULE)`;

function parse(argv: string[]): { positional: string[]; flags: Map<string, string | true> } {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith("--")) {
      positional.push(a);
      continue;
    }
    const [name, inline] = a.slice(2).split("=", 2) as [string, string | undefined];
    const next = argv[i + 1];
    if (inline !== undefined) flags.set(name, inline);
    else if (next !== undefined && !next.startsWith("--") && name !== "json") {
      flags.set(name, next);
      i++;
    } else flags.set(name, true);
  }
  return { positional, flags };
}

/** Runs one command; returns the process exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  if (argv[0] === "webhooks") return webhooks(argv.slice(1), io);
  if (argv[0] === "export" || argv[0] === "import" || argv[0] === "brains") return transferCommand(argv, io);
  if (argv[0] === "mcp") return mcp(argv.slice(1), io);
  const { positional, flags } = parse(argv);
  const [group, command, arg] = positional;
  const str = (name: string) => (typeof flags.get(name) === "string" ? (flags.get(name) as string) : undefined);
  if (group !== "keys" || !command || !["create", "revoke", "list"].includes(command)) {
    io.err(USAGE);
    return 2;
  }
  if (command === "create" && !str("brain")) {
    io.err("keys create needs --brain <brainId>");
    return 2;
  }
  if (command === "revoke" && !arg) {
    io.err("keys revoke needs the key id (see keys list)");
    return 2;
  }
  const { store, close } = await io.openStore();
  try {
    if (command === "create") {
      const { key, record } = await createApiKey(store, { brainId: str("brain")!, label: str("label") ?? null, key: str("key") });
      io.out(`created key ${record.id} for brain ${record.brainId}`);
      io.out(`secret (shown once, store it now): ${key}`);
      return 0;
    }
    if (command === "revoke") {
      const ok = await revokeApiKey(store, arg!);
      if (!ok) {
        io.err(`no active key with id ${arg}`);
        return 1;
      }
      io.out(`revoked ${arg}`);
      return 0;
    }
    const keys = await store.listApiKeys({ brainId: str("brain") });
    if (flags.has("json")) io.out(JSON.stringify(keys.map(({ hash: _hash, ...k }) => k)));
    else
      for (const k of keys) {
        const state = k.revokedAt === null ? "active" : `revoked ${new Date(k.revokedAt).toISOString()}`;
        io.out(`${k.id}  brain=${k.brainId}  ${k.prefix}…  ${state}${k.label ? `  ${k.label}` : ""}`);
      }
    return 0;
  } catch (err) {
    io.err((err as Error).message);
    return 1;
  } finally {
    await close?.();
  }
}

/** `webhooks …`: the core's subscription commands, on the memory service's routes unless `--service`/`--path` says otherwise. */
function webhooks(argv: string[], io: CliIo): Promise<number> {
  const chosen = argv.some((a) => /^--(service|path)(=|$)/.test(a));
  const lines = (write: (line: string) => void) => ({ write: (s: string) => write(s.replace(/\n$/, "")) });
  return webhooksCommand(
    chosen ? argv : [...argv, "--service", "memory"],
    io.env ?? process.env,
    lines(io.out),
    lines(io.err),
    "mountkit-memory webhooks",
  );
}

/** `mcp`: serves until the client closes stdin. The SDK is imported here only, so the other commands run without it. */
async function mcp(argv: string[], io: CliIo): Promise<number> {
  const { flags } = parse(argv);
  const flag = flags.get("brain");
  const brainId = (typeof flag === "string" ? flag : (io.env ?? process.env).MEMORY_BRAIN)?.trim();
  if (!brainId) {
    io.err("mcp needs the brain: --brain <brainId> or MEMORY_BRAIN");
    return 2;
  }
  let stdio: typeof import("./mcp/stdio.js");
  try {
    stdio = await import("./mcp/stdio.js");
  } catch (err) {
    io.err(`mcp needs @modelcontextprotocol/sdk installed beside @mountkit/memory (${(err as Error).message})`);
    return 1;
  }
  const { store, close } = await io.openStore();
  try {
    await stdio.serveMcpStdio({ store, brainId });
    return 0;
  } finally {
    await close?.();
  }
}

/** Where `mountkit-memory mcp` finds its store when none is named: DATABASE_URL or DATA_DIR, as the example server. */
const MCP_STORE_MODULE = "@mountkit/sql/memory";

/** The `mountkit-memory` command itself (started by `cli-bin.ts`). */
export async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const i = argv.findIndex((a) => a === "--store-module" || a.startsWith("--store-module="));
  let spec = process.env.MEMORY_STORE_MODULE;
  if (i >= 0) {
    const a = argv[i]!;
    spec = a.includes("=") ? a.split("=", 2)[1] : argv[i + 1];
    argv.splice(i, a.includes("=") ? 1 : 2);
  }
  if (argv[0] === "mcp") {
    spec ??= MCP_STORE_MODULE;
    // stdout is the protocol's: a stray console.log from any library would corrupt it
    console.log = console.error;
    console.info = console.error;
  }
  const code = await runCli(argv, {
    async openStore() {
      if (!spec) throw new Error("no store configured: pass --store-module <module> or set MEMORY_STORE_MODULE");
      const url = spec.startsWith(".") || spec.startsWith("/") ? pathToFileURL(spec).href : spec;
      const mod = (await import(url)) as {
        openMemoryStore?: (env: NodeJS.ProcessEnv) => Promise<{ store: MemoryStore; close?(): Promise<void> }>;
      };
      if (typeof mod.openMemoryStore !== "function") throw new Error(`${spec} does not export openMemoryStore(env)`);
      return mod.openMemoryStore(process.env);
    },
    out: (l) => process.stdout.write(`${l}\n`),
    err: (l) => process.stderr.write(`${l}\n`),
  }).catch((err: Error) => {
    process.stderr.write(`${err.message}\n`);
    return 1;
  });
  process.exitCode = code;
}
