// Stage 6: contradiction. On a single-valued relation a newer fact closes the older edge's validity
// (tInvalid = the newer tValid, tExpired = now, reason naming the new edge); nothing is deleted.
// A fact older than the one already known is stored already closed by it.
import { isSingleValued } from "../domain/relations.js";
import type { EdgeRecord } from "../domain/types.js";
import type { EpisodeRun } from "./context.js";

const validFrom = (e: EdgeRecord) => e.tValid ?? e.tIngested;

export async function resolveContradictions(run: EpisodeRun, edges: EdgeRecord[]): Promise<void> {
  const { deps, episode } = run;
  const closedStored = new Set<string>();
  for (const e of [...edges].sort((a, b) => validFrom(a) - validFrom(b))) {
    if (!isSingleValued(e.relation) || e.tInvalid !== null) continue;
    const stored = (await deps.store.findCurrentEdges({ brainId: episode.brainId, source: e.source, relation: e.relation })).filter(
      (s) => s.tInvalid === null && !closedStored.has(s.id),
    );
    const fresh = edges.filter(
      (o) => o !== e && o.source === e.source && o.relation === e.relation && o.tInvalid === null && validFrom(o) <= validFrom(e),
    );
    for (const old of [...stored, ...fresh]) {
      if (old.target === e.target) continue;
      if (validFrom(old) <= validFrom(e)) {
        const reason = `superseded by edge ${e.id}: ${e.fact}`.slice(0, 500);
        if (fresh.includes(old)) {
          old.tInvalid = validFrom(e);
          old.invalidationReason = reason;
          old.invalidatedBy = e.id;
        } else {
          closedStored.add(old.id);
          run.invalidations.push({ id: old.id, tInvalid: validFrom(e), tExpired: run.now, reason, invalidatedBy: e.id });
        }
      } else if (e.tInvalid === null || validFrom(old) < e.tInvalid) {
        e.tInvalid = validFrom(old);
        e.invalidationReason = `superseded by edge ${old.id}: ${old.fact}`.slice(0, 500);
        e.invalidatedBy = old.id;
      }
    }
  }
}
