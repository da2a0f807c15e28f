// Stage 4: temporal resolution. A fact is valid from the date its text gives, resolved relative to
// the episode's occurredAt ("last year" in an episode of 2023 -> 2022-01-01), else from occurredAt.
import type { EdgeRecord } from "../domain/types.js";
import { resolveDate } from "../text/dates.js";
import type { EpisodeRun } from "./context.js";
import type { CandidateFact } from "./facts.js";

export function resolveTimes(run: EpisodeRun, facts: CandidateFact[]): EdgeRecord[] {
  const { episode, deps } = run;
  return facts.map((f) => {
    const from = f.validFrom ? resolveDate(f.validFrom, episode.occurredAt) : null;
    let until = f.validUntil ? resolveDate(f.validUntil, episode.occurredAt) : null;
    const tValid = from ?? episode.occurredAt;
    if (until !== null && until <= tValid) until = null;
    return {
      id: deps.ids("edge"),
      brainId: episode.brainId,
      source: f.source,
      target: f.target,
      relation: f.relation,
      fact: f.fact,
      tValid,
      tInvalid: until,
      tIngested: run.now,
      tExpired: null,
      episodeId: episode.id,
      invalidationReason: null, // an end the text gives is no invalidation: only an invalidated edge says why
      invalidatedBy: null,
    };
  });
}
