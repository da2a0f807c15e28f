// Stage 6: contradiction. On a single-valued relation a newer fact ends the older edge's validity
// (tInvalid = the newer tValid, reason naming the new edge) and the older record stays what the memory
// knew (tExpired null): docs/memory.md#time-two-axes. When the two cannot both have held at any time (an immutable
// relation such as a birthplace, or the same start of validity), the newer fact is a correction: the
// older record was wrong, so it is expired (tExpired = now) and its validity is left as it was.
// A fact older than the one already known is stored already closed by it. Nothing is deleted.
import { isImmutable, isSingleValued } from "../domain/relations.js";
import type { EdgeRecord } from "../domain/types.js";
import type { EpisodeRun } from "./context.js";
import { currentEdges } from "./lookups.js";

const validFrom = (e: EdgeRecord) => e.tValid ?? e.tIngested;

/** Still valid at `t` or later: an edge with an end date after `t` is superseded too. */
const validAfter = (e: EdgeRecord, t: number) => e.tInvalid === null || e.tInvalid > t;

export async function resolveContradictions(run: EpisodeRun, edges: EdgeRecord[]): Promise<void> {
  const closedStored = new Set<string>();
  for (const e of [...edges].sort((a, b) => validFrom(a) - validFrom(b))) {
    await run.slice();
    if (!isSingleValued(e.relation) || (e.tInvalid !== null && e.tInvalid <= validFrom(e))) continue;
    const stored = (await currentEdges(run, e.source, e.relation)).filter(
      (s) => !closedStored.has(s.id) && (validAfter(s, validFrom(e)) || isImmutable(e.relation)),
    );
    const fresh = edges.filter(
      (o) => o !== e && o.source === e.source && o.relation === e.relation && validAfter(o, validFrom(e)) && validFrom(o) <= validFrom(e),
    );
    for (const old of [...stored, ...fresh]) {
      if (old.target === e.target) continue;
      const isFresh = fresh.includes(old);
      if (!isFresh && (isImmutable(e.relation) || validFrom(old) === validFrom(e))) {
        closedStored.add(old.id);
        run.invalidations.push({
          id: old.id,
          tInvalid: null,
          tExpired: run.now,
          reason: `corrected by edge ${e.id}: ${e.fact}`.slice(0, 500),
          invalidatedBy: e.id,
        });
      } else if (validFrom(old) <= validFrom(e)) {
        const reason = `superseded by edge ${e.id}: ${e.fact}`.slice(0, 500);
        if (isFresh) {
          old.tInvalid = validFrom(e);
          old.invalidationReason = reason;
          old.invalidatedBy = e.id;
        } else {
          closedStored.add(old.id);
          run.invalidations.push({ id: old.id, tInvalid: validFrom(e), tExpired: null, reason, invalidatedBy: e.id });
        }
      } else if (e.tInvalid === null || validFrom(old) < e.tInvalid) {
        e.tInvalid = validFrom(old);
        e.invalidationReason = `superseded by edge ${old.id}: ${old.fact}`.slice(0, 500);
        e.invalidatedBy = old.id;
      }
    }
  }
}
