// Development or production, and the credentials development mode makes up. Production is MOUNTKIT_ENV=production
// (or NODE_ENV=production when MOUNTKIT_ENV is unset): no front door, no generated credential, nothing printed.
import { randomBytes } from "node:crypto";

export type Mode = "development" | "production";

export function modeFromEnv(env: NodeJS.ProcessEnv): Mode {
  const own = env.MOUNTKIT_ENV?.trim().toLowerCase();
  if (own === "production" || own === "development") return own;
  if (own) throw new Error("MOUNTKIT_ENV must be development or production");
  return env.NODE_ENV?.trim().toLowerCase() === "production" ? "production" : "development";
}

/** Credentials development mode generated because their variables were unset: shown on the front door and printed once. */
export interface DevCredentials {
  /** The memory key of brain "dev" (MEMORY_API_KEYS unset). */
  memoryKey?: string;
  /** A token the entries service accepts (no AUTH_* variable set). */
  entriesToken?: string;
  /** SUPPORT_AGENT_TOKEN, for the inbox and /agent. */
  agentToken?: string;
  /** SUPPORT_SPI_TOKEN, for interface B (/care). */
  spiToken?: string;
}

/** What the entries and memory services need to know of the mode: production generates no credential. */
export interface ModeDeps {
  /** Default development. */
  mode?: Mode;
  /** Where development mode reports the credentials it generated (printed by the caller instead of logged). */
  credentials?: DevCredentials;
}

const token = (prefix: string) => `${prefix}_${randomBytes(18).toString("base64url")}`;

/**
 * The environment the services read: in development, SUPPORT_AGENT_TOKEN and SUPPORT_SPI_TOKEN are generated when
 * unset (memory and entries make their own dev credentials and report them into `credentials`).
 */
export function devEnvironment(env: NodeJS.ProcessEnv, mode: Mode): { env: NodeJS.ProcessEnv; credentials: DevCredentials } {
  const credentials: DevCredentials = {};
  if (mode === "production") return { env, credentials };
  const out = { ...env };
  if (!out.SUPPORT_AGENT_TOKEN) out.SUPPORT_AGENT_TOKEN = credentials.agentToken = token("dev_agent");
  if (!out.SUPPORT_SPI_TOKEN) out.SUPPORT_SPI_TOKEN = credentials.spiToken = token("dev_spi");
  return { env: out, credentials };
}
