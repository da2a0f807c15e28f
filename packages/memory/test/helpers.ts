// Test helpers: a service on a manual clock with deterministic ids and one key per brain.
import { manualClock, sequentialIds } from "@mountkit/core";
import { createMemoryService, type MemoryServiceOptions } from "../src/index.js";

export async function setup(options: MemoryServiceOptions = {}) {
  const clock = manualClock("2024-01-01T00:00:00Z");
  const service = createMemoryService({ clock, ids: sequentialIds(), ...options });
  const a = await service.keys.create({ brainId: "brain-a" });
  const b = await service.keys.create({ brainId: "brain-b" });
  /** Posts an episode through the api and waits for its extraction. */
  async function ingest(content: string, extra: { metadata?: Record<string, unknown>; occurredAt?: string; brainId?: string } = {}) {
    const ep = await service.api.createEpisode(extra.brainId ?? "brain-a", {
      content,
      metadata: extra.metadata,
      occurredAt: extra.occurredAt ? Date.parse(extra.occurredAt) : undefined,
    });
    await service.worker.idle();
    return service.api.getEpisode(extra.brainId ?? "brain-a", ep.id);
  }
  return { service, clock, keyA: a.key, keyB: b.key, ingest, api: service.api };
}
