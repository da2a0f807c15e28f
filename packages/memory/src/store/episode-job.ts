// An extraction job as the memory store writes it with its episode (types.ts createEpisode, erasure-types.ts import).

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
