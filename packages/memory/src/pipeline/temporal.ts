// Stage 4: temporal resolution by aspect (docs/memory.md#what-changed). Dates of the text resolve relative to the
// episode's occurredAt ("last year" in an episode of 2023 -> 2022-01-01). A fact that holds or starts is valid from
// its date, else from occurredAt; with only an end date ("until 2018") its start is open. A past state ("lived",
// "used to") ends by the telling unless the text says when. A future start needs its date. Endings (negations and
// events that end a state) make no edge here: they become `Ending`s, at the text's date, else at occurredAt.
import { scopeOf } from "../domain/scope.js";
import type { EdgeRecord } from "../domain/types.js";
import { resolveDate } from "../text/dates.js";
import type { EpisodeRun } from "./context.js";
import type { CandidateFact } from "./facts.js";

/** A statement that ends a relation: the matching valid edge closes at `at`. */
export interface Ending {
  source: string;
  target: string;
  relation: string;
  fact: string;
  at: number;
  /** Any target of the relation matches ("quit his job"). */
  generic: boolean;
  /** "no longer", "resigned from": when nothing matches, the state is stored as held until `at`; a plain negation stores nothing. */
  ended: boolean;
}

export interface Timed {
  edges: EdgeRecord[];
  endings: Ending[];
  /** Edges whose target is a kind ("a dog"): they displace no other subject's edge. */
  generic: Set<EdgeRecord>;
}

/** The edge record of a fact valid from `tValid` to `tInvalid`. */
export function edgeOf(
  run: EpisodeRun,
  f: Pick<CandidateFact, "source" | "target" | "relation" | "fact">,
  tValid: number | null,
  tInvalid: number | null,
): EdgeRecord {
  const { episode, deps } = run;
  return {
    id: deps.ids("edge"),
    brainId: episode.brainId,
    source: f.source,
    target: f.target,
    relation: f.relation,
    fact: f.fact,
    tValid,
    tInvalid,
    tIngested: run.now,
    tExpired: null,
    episodeId: episode.id,
    invalidationReason: null,
    invalidatedBy: null,
    // a fact inherits the scope of the episode it came from (docs/memory.md#scopes-and-filters)
    ...scopeOf(episode),
  };
}

export function resolveTimes(run: EpisodeRun, facts: CandidateFact[]): Timed {
  const { episode } = run;
  const told = episode.occurredAt;
  const out: Timed = { edges: [], endings: [], generic: new Set() };
  for (const f of facts) {
    const from = f.validFrom ? resolveDate(f.validFrom, told) : null;
    const until = f.validUntil ? resolveDate(f.validUntil, told) : null;
    if (f.polarity === "negative" || f.aspect === "ends") {
      out.endings.push({ ...f, at: until ?? from ?? told, ended: f.aspect === "ends" });
      continue;
    }
    let tValid: number | null;
    let tInvalid: number | null = until;
    if (f.aspect === "will_start") {
      // "will start at Stripe" with no date: not valid yet, and no date to be valid from
      if (from === null) continue;
      tValid = from;
    } else if (f.aspect === "past") {
      tValid = from;
      tInvalid = until ?? (from === null || from < told ? told : null);
    } else tValid = from ?? (until !== null && f.aspect === "holds" ? null : told);
    if (tInvalid !== null && tValid !== null && tInvalid <= tValid) tInvalid = null;
    const edge = edgeOf(run, f, tValid, tInvalid);
    out.edges.push(edge);
    if (f.generic) out.generic.add(edge);
  }
  return out;
}
