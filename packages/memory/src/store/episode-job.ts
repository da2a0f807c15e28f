// An extraction job as the memory store writes it with its episode (types.ts createEpisode, erasure-types.ts import).
import type { NewJob } from "@mountkit/core/jobs";

export interface EpisodeJob {
  id: string;
  queue: string;
  payload: { brainId: string; episodeId: string };
  maxAttempts: number;
  /**
   * The job's serialisation group (JobStore `groupKey`): the brain, so one brain's extractions resolve
   * entities and commit one at a time across every worker and process, while brains run in parallel.
   */
  groupKey?: string;
}

/** The queue's job for `job`, enqueued at `now` (the episode's arrival), as every store writes it. */
export function newEpisodeJob(job: EpisodeJob, now: number): NewJob {
  return { id: job.id, queue: job.queue, payload: job.payload, maxAttempts: job.maxAttempts, groupKey: job.groupKey, now };
}
