// The memory service's outbound events, in the scope of a brain: `episode.done` and `episode.failed` about an episode,
// `edge.invalidated` and `edge.superseded` about an edge. Each change writes its events' jobs in its own transaction,
// and only when the brain has a subscription taking one of the types it may emit (docs/memory.md#webhooks).
import type { Clock } from "@mountkit/core";
import type { NewJob } from "@mountkit/core/jobs";
import { eventJob, subscribedTypes, type WebhookDispatcher, webhookEvent } from "@mountkit/core/webhooks";
import type { AppliedCommit, ExtractionCommit } from "../store/types.js";
import type { EdgeRecord, EpisodeRecord } from "./types.js";
import { edgeJson, episodeJson } from "./wire.js";

export const MEMORY_EVENTS = ["episode.done", "episode.failed", "edge.invalidated", "edge.superseded"] as const;
export type MemoryEventType = (typeof MEMORY_EVENTS)[number];

/** The webhook scope of a brain. */
export const brainScope = (brainId: string) => `memory:brain:${brainId}`;

export interface MemoryEvents {
  /** The event types some enabled subscription of the brain takes: one read, which an extraction starts early. */
  wanted(brainId: string): Promise<ReadonlySet<MemoryEventType>>;
  /**
   * The jobs of an extraction's events, or none when the brain has no subscription taking any of them; `wanted`, when
   * given, is the brain's `wanted` read earlier in the extraction.
   */
  extraction(
    c: ExtractionCommit,
    wanted?: Promise<ReadonlySet<MemoryEventType>>,
  ): Promise<((applied: AppliedCommit) => NewJob[]) | undefined>;
  /** The job of `episode.failed` for the episode as failed, or none without a subscription taking it. */
  failed(brainId: string): Promise<((episode: EpisodeRecord) => NewJob[]) | undefined>;
  /** The job of `edge.invalidated` for an edge invalidated by hand, or none without a subscription taking it. */
  invalidated(brainId: string): Promise<((edge: EdgeRecord) => NewJob[]) | undefined>;
  /** Tells the dispatcher a change with events was committed. */
  committed(): void;
  /**
   * After an erasure: the brain's events and webhook deliveries that name an erased record (`ids`: episodes, edges,
   * entities) are deleted, sent or not; every event of the brain when it is deleted (no `ids`).
   */
  forget(brainId: string, ids?: readonly string[]): Promise<void>;
}

export function memoryEvents(hooks: WebhookDispatcher, clock: Clock): MemoryEvents {
  /** The types that some enabled subscription of the brain takes, in one read of its subscriptions. */
  const wanted = (brainId: string) => subscribedTypes(hooks.store, brainScope(brainId), MEMORY_EVENTS);
  const job = (type: MemoryEventType, brainId: string, subject: string, data: unknown) =>
    eventJob("memory", webhookEvent({ type, scope: brainScope(brainId), subject, data, now: clock.now() }));

  return {
    wanted,
    async extraction(c, early) {
      // a correction expires the stored record (tExpired set); a supersession only ends its validity
      const corrected = new Set(c.invalidate.filter((i) => i.tExpired !== null).map((i) => i.id));
      const types: MemoryEventType[] = ["episode.done"];
      if (corrected.size) types.push("edge.invalidated");
      if (corrected.size < c.invalidate.length) types.push("edge.superseded");
      const subscribed = await (early ?? wanted(c.brainId));
      const want = new Set(types.filter((t) => subscribed.has(t)));
      if (!want.size) return undefined;
      return ({ episode, closed }) => {
        const jobs: NewJob[] = [];
        for (const edge of closed) {
          if (corrected.has(edge.id)) {
            if (want.has("edge.invalidated")) jobs.push(job("edge.invalidated", c.brainId, edge.id, edgeJson(edge)));
          } else if (want.has("edge.superseded"))
            jobs.push(job("edge.superseded", c.brainId, edge.id, { ...edgeJson(edge), supersededBy: edge.invalidatedBy }));
        }
        if (want.has("episode.done")) {
          const counts = { entitiesCreated: c.createEntities.length, edgesCreated: c.createEdges.length, edgesClosed: closed.length };
          jobs.push(job("episode.done", c.brainId, episode.id, { ...episodeJson(episode), counts }));
        }
        return jobs;
      };
    },
    async failed(brainId) {
      if (!(await wanted(brainId)).has("episode.failed")) return undefined;
      return (episode) => [job("episode.failed", brainId, episode.id, episodeJson(episode))];
    },
    async invalidated(brainId) {
      if (!(await wanted(brainId)).has("edge.invalidated")) return undefined;
      return (edge) => [job("edge.invalidated", brainId, edge.id, edgeJson(edge))];
    },
    committed: () => hooks.wake(),
    forget: (brainId, ids) => hooks.forget(brainScope(brainId), ids),
  };
}
