// The memory service from the environment: MEMORY_API_KEYS (key=brain,...) or, in development, one generated dev key,
// MEMORY_DAILY_QUOTA; the store the app opened (in memory when none); the extraction worker runs in this process;
// the memory explorer page at /v1/explorer/; webhooks per brain at /v1/webhooks (WEBHOOKS_*).
import type { Clock, Logger, Service } from "@mountkit/core";
import { createMemoryService, type MemoryStore, inMemoryMemoryStore, parseKeyList } from "@mountkit/memory";
import { memoryExplorerScript } from "@mountkit/memory-explorer";
import type { ModeDeps } from "../mode.js";
import { webhooksFromEnv } from "./webhooks.js";

export async function memoryFromEnv(
  env: NodeJS.ProcessEnv,
  deps: { logger: Logger; clock?: Clock; store?: MemoryStore } & ModeDeps,
): Promise<Service> {
  const quota = env.MEMORY_DAILY_QUOTA === undefined || env.MEMORY_DAILY_QUOTA === "" ? 1000 : Number(env.MEMORY_DAILY_QUOTA);
  if (!Number.isSafeInteger(quota) || quota < 0) throw new Error("MEMORY_DAILY_QUOTA must be a non-negative integer");
  const service = createMemoryService({
    store: deps.store ?? inMemoryMemoryStore(),
    dailyQuota: quota,
    logger: deps.logger,
    // the memory explorer page at /v1/explorer/ (the key is typed into the page)
    explorerScript: memoryExplorerScript,
    // outbound events to the subscriptions at /v1/webhooks (WEBHOOKS_* variables)
    webhooks: webhooksFromEnv(env),
    ...(deps.clock ? { clock: deps.clock } : {}),
  });
  try {
    const configured = env.MEMORY_API_KEYS?.trim() ? parseKeyList(env.MEMORY_API_KEYS) : [];
    for (const { key, brainId } of configured) await service.keys.create({ brainId, key, label: "MEMORY_API_KEYS" });
    if (!configured.length && deps.mode === "production")
      deps.logger.warn("memory: no MEMORY_API_KEYS set; every call is refused with 401 until keys are created");
    else if (!configured.length) {
      const dev = await service.keys.create({ brainId: "dev", label: "generated dev key" });
      if (deps.credentials) deps.credentials.memoryKey = dev.key;
      else deps.logger.info(`memory: no MEMORY_API_KEYS set; dev key for brain "dev": ${dev.key}`);
    }
  } catch (err) {
    await service.dispose();
    throw err;
  }
  return service;
}
