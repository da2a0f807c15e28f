// Stage 1: entity extraction, delegated to the configured extractor.
import type { ExtractedEntity } from "../extractors/types.js";
import type { EpisodeRun } from "./context.js";

export async function extractEntities(run: EpisodeRun): Promise<ExtractedEntity[]> {
  const { episode, deps } = run;
  const found = await deps.extractor.extractEntities({
    content: episode.content,
    metadata: episode.metadata,
    occurredAt: episode.occurredAt,
  });
  return found.filter((e) => typeof e?.name === "string" && e.name.trim().length > 0 && e.name.length <= 200);
}
