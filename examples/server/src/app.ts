// Builds the three services from the environment (CONTRACT.md §0).
import type { Clock, Logger, Service } from "@mountkit/core";
import { entriesFromEnv } from "./services/entries.js";
import { memoryFromEnv } from "./services/memory.js";
import { supportFromEnv } from "./services/support.js";

export interface AppDeps {
  logger: Logger;
  clock?: Clock;
  /** The server's own base URL, known once it listens. */
  selfUrl: () => string;
}

export async function createServices(env: NodeJS.ProcessEnv, deps: AppDeps): Promise<Service[]> {
  const entries = await entriesFromEnv(env, deps);
  const memory = await memoryFromEnv(env, deps);
  const support = await supportFromEnv(env, deps);
  return [entries, memory, support];
}
