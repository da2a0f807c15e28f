// The optimistic commit: two pipelines on one store (two processes, each with its own in-process lock)
// resolve episodes of one brain at once; the one committing second resolves again and reuses the entity
// the first created instead of creating a twin.
import { sequentialIds, silentLogger, systemClock } from "@mountkit/core";
import { describe, expect, it } from "vitest";
import type { EpisodeRecord, MemoryStore } from "../src/index.js";
import { inMemoryMemoryStore, ruleBasedExtractor } from "../src/index.js";
import { createPipeline, EXTRACTION_QUEUE } from "../src/pipeline/run.js";

const T0 = Date.UTC(2024, 0, 1);

function episode(id: string, content: string, occurredAt: number): EpisodeRecord {
  return {
    id,
    brainId: "b",
    content,
    metadata: {},
    occurredAt,
    createdAt: T0,
    status: "queued",
    error: null,
    entityIds: [],
    edgeIds: [],
    processedAt: null,
  };
}

const job = (episodeId: string) => ({
  id: `job-${episodeId}`,
  queue: EXTRACTION_QUEUE,
  payload: { brainId: "b", episodeId },
  attempts: 1,
  maxAttempts: 3,
  runAt: T0,
});

describe("optimistic extraction commit", () => {
  it("resolves again when another worker committed to the brain during extraction", async () => {
    const store = inMemoryMemoryStore();
    const deps = { extractor: ruleBasedExtractor(), clock: systemClock, logger: silentLogger };
    const second = createPipeline({ ...deps, store, ids: sequentialIds(1000) });
    let interleaved = false;
    // the first pipeline's store lets the second pipeline finish its episode just before the first commits
    const racing: MemoryStore = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === "commitExtraction")
          return async (input: Parameters<MemoryStore["commitExtraction"]>[0]) => {
            if (!interleaved) {
              interleaved = true;
              await second.handle(job("ep-2"));
            }
            return target.commitExtraction(input);
          };
        return Reflect.get(target, prop, receiver);
      },
    });
    const first = createPipeline({ ...deps, store: racing, ids: sequentialIds(1) });
    for (const ep of [
      episode("ep-1", "Alice Moreau lives in Paris. Alice Moreau works at Globex Industries.", T0),
      episode("ep-2", "Alice Moreau lives in Lisbon. Alice Moreau works at Globex Industries.", T0 + 1000),
    ])
      await store.createEpisode({ episode: ep, job: { ...job(ep.id), groupKey: "b" } });

    await first.handle(job("ep-1"));
    expect(interleaved).toBe(true);

    const entities = (await store.listEntities({ brainId: "b", limit: 50 })).items;
    expect(entities.map((e) => e.name).sort()).toEqual(["Alice Moreau", "Globex Industries", "Lisbon", "Paris"]);
    const eps = await store.getEpisodes({ brainId: "b", ids: ["ep-1", "ep-2"] });
    expect(eps.map((e) => e.status)).toEqual(["done", "done"]);
    const edges = (await store.listEdges({ brainId: "b", limit: 50 })).items;
    const current = edges.filter((e) => e.relation === "lives_in" && e.tInvalid === null && e.tExpired === null);
    // ep-1 is older than ep-2's fact: resolved again, its Paris edge is stored already closed by Lisbon
    expect(current.map((e) => e.fact)).toEqual(["Alice Moreau lives in Lisbon."]);
    expect(edges.filter((e) => e.relation === "works_at")).toHaveLength(1);
    expect(await store.brainVersion!({ brainId: "b" })).toBe(2);
  });
});
