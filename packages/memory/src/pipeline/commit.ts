// Stage 7: commit everything the episode produced in one store call (one transaction in SQL stores, its events'
// jobs included), idempotent on the episode; then index vectors when an embedder is configured.
import type { MemoryEventType } from "../domain/events.js";
import type { Embedder } from "../embeddings.js";
import type { CommitResult, ExtractionCommit } from "../store/types.js";
import type { EpisodeRun } from "./context.js";

const SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;

export function playbookOf(metadata: Record<string, unknown>): { slug: string; title: string } | null {
  const slug = metadata.playbook;
  if (typeof slug !== "string" || !SLUG.test(slug)) return null;
  const title =
    typeof metadata.playbookTitle === "string" && metadata.playbookTitle.trim()
      ? metadata.playbookTitle.trim().slice(0, 200)
      : slug.replace(/-+/g, " ").replace(/\b\w/g, (c) => c.toUpperCase());
  return { slug, title };
}

/**
 * `expectVersion`: the brain version resolution started from (optimistic check; see MemoryStore); `subscribed`: the
 * brain's wanted event types, read while the run resolved (MemoryEvents.wanted).
 */
export async function commit(
  run: EpisodeRun,
  expectVersion?: number,
  subscribed?: Promise<ReadonlySet<MemoryEventType>>,
): Promise<CommitResult> {
  const { deps, episode } = run;
  const all = [...run.entities.values()];
  const mentioned = new Set<string>([...run.edges.flatMap((e) => [e.source, e.target]), ...all.map((r) => r.record.id)]);
  const c: ExtractionCommit = {
    brainId: episode.brainId,
    episodeId: episode.id,
    now: run.now,
    createEntities: all.filter((r) => r.isNew).map((r) => r.record),
    updateEntities: all
      .filter((r) => !r.isNew && r.changed)
      .map((r) => ({
        id: r.record.id,
        name: r.record.name,
        kind: r.record.kind,
        aliases: r.record.aliases,
        keys: r.record.keys,
        updatedAt: run.now,
      })),
    createEdges: run.edges,
    invalidate: run.invalidations,
    entityIds: [...mentioned],
    edgeIds: run.edges.map((e) => e.id),
    playbook: playbookOf(episode.metadata),
    ...(expectVersion === undefined ? {} : { expectVersion }),
  };
  // the commit's events ride in its transaction (docs/memory.md#webhooks)
  const enqueue = await deps.events?.extraction(c, subscribed);
  const result = await deps.store.commitExtraction(enqueue ? { ...c, enqueue } : c);
  if (result.committed && enqueue) deps.events?.committed();
  return result;
}

/** Vector indexing after the commit; a failure here never undoes the extraction. */
export async function indexVectors(run: EpisodeRun, embedder: Embedder | undefined): Promise<void> {
  const { deps, episode } = run;
  if (!embedder || !deps.store.putEmbeddings) return;
  try {
    const texts = [episode.content, ...run.edges.map((e) => e.fact)];
    const vectors = await embedder.embed(texts);
    await deps.store.putEmbeddings({
      brainId: episode.brainId,
      items: [
        { kind: "episode" as const, id: episode.id, vector: vectors[0]! },
        ...run.edges.map((e, i) => ({ kind: "edge" as const, id: e.id, vector: vectors[i + 1]! })),
      ].filter((it) => Array.isArray(it.vector)),
    });
  } catch (err) {
    deps.logger.warn("embedding failed; recall continues without vectors for this episode", {
      episode: episode.id,
      error: (err as Error).message,
    });
  }
}
