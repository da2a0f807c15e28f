// The host under test: the example server (`npm start`'s entry point) as its own process on a random port, with the
// environment the scenarios need (docs/conventions.md#the-example-server), and the credentials to call it. The suite runs it on the sources,
// the benchmark on dist/ (the caller passes the Node flags).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SignJWT } from "jose";
import { send } from "./http.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
export const SOURCE_FLAGS = ["--conditions=mountkit-source", "--import", "tsx"];

export type Framework = "fastify" | "express" | "fetch";

export interface HostOptions {
  framework: Framework;
  /** `postgres://...` runs on PostgreSQL; unset runs on SQLite in a fresh temp folder. */
  databaseUrl?: string;
  /** Node flags before the script: SOURCE_FLAGS (default) or the benchmark's. */
  nodeFlags?: string[];
  env?: Record<string, string>;
}

export interface Host {
  url: string;
  framework: Framework;
  /** The SQLite file (absent on PostgreSQL). */
  sqliteFile?: string;
  /** `Authorization` value for the memory service (brain "brain"). */
  memoryAuth: string;
  /** `Authorization` value for entries writes (a JWT signed with AUTH_HS256_SECRET). */
  entriesAuth: string;
  /** The support product the scenarios use. */
  product: string;
  output(): string;
  /** SIGTERM, then SIGKILL when the process has not exited within `graceMs` (a wedged loop never runs its handler). */
  stop(graceMs?: number): Promise<void>;
}

const MEMORY_KEY = "mk_host_safety_key_0123456789";
const SECRET = "host-safety-secret-0123456789abcdef0123456789";

export async function startHost(o: HostOptions): Promise<Host> {
  const dataDir = o.databaseUrl ? undefined : mkdtempSync(join(tmpdir(), "mountkit-host-safety-"));
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
    FRAMEWORK: o.framework,
    DATABASE_URL: o.databaseUrl ?? "",
    DATA_DIR: dataDir ?? "",
    MEMORY_API_KEYS: `${MEMORY_KEY}=brain`,
    // the scenarios poll episode statuses: the daily quota is not what they measure
    MEMORY_DAILY_QUOTA: "10000000",
    AUTH_HS256_SECRET: SECRET,
    SPEC_FETCH_ALLOW_PRIVATE: "1",
    SUPPORT_PRODUCTS: "demo",
    ...o.env,
  };
  const child = spawn(process.execPath, [...(o.nodeFlags ?? SOURCE_FLAGS), "examples/server/src/main.ts"], {
    cwd: REPO,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => void (out += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => void (out += c));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const cleanup = () => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  let url: string;
  try {
    url = await listening(child, () => out, 90_000);
  } catch (e) {
    child.kill("SIGKILL");
    await exited;
    cleanup();
    throw e;
  }
  const entriesAuth = `Bearer ${await new SignJWT({})
    .setProtectedHeader({ alg: "HS256" })
    .setSubject("host-safety")
    .setIssuedAt()
    .setExpirationTime("2h")
    .sign(new TextEncoder().encode(SECRET))}`;
  const host: Host = {
    url,
    framework: o.framework,
    sqliteFile: dataDir ? join(dataDir, "mountkit.sqlite") : undefined,
    memoryAuth: `Bearer ${MEMORY_KEY}`,
    entriesAuth,
    product: "demo",
    output: () => out,
    async stop(graceMs = 10_000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const force = setTimeout(() => child.kill("SIGKILL"), graceMs);
        await exited;
        clearTimeout(force);
      }
      cleanup();
    },
  };
  // first calls build documents and open connections: the figures are about the steady state
  for (const path of [
    "/openapi.yaml",
    "/api/v1/types/apis/data",
    `/api/conversations/list?productSlug=demo&customerId=cust_00000000-0000-4000-8000-000000000000`,
  ])
    await send(`${url}${path}`, { timeoutMs: 30_000 });
  return host;
}

function listening(child: ChildProcess, output: () => string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the example server did not listen within ${timeoutMs} ms:\n${output()}`)), timeoutMs);
    const check = () => {
      const m = /listening on (http:\/\/\S+)/.exec(output());
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off("data", check);
      resolve(m[1]!);
    };
    child.stdout!.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the example server exited with ${code} before listening:\n${output()}`));
    });
  });
}

/** True when the host answers an unrelated GET within `ms`: a scenario that wedged it leaves it false. */
export async function responsive(host: Host, ms = 2_000): Promise<boolean> {
  const a = await send(`${host.url}/openapi.yaml`, { timeoutMs: ms });
  return a.status === 200;
}
