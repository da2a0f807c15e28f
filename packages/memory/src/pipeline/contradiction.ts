// Stage 6: contradiction. A relation single-valued on a side (relation table: `subject`, `object`, `both`) holds one
// value there at a time: a newer fact ends the older edge's validity (tInvalid = the newer tValid, reason naming the
// new edge) and the older record stays what the memory knew (tExpired null): docs/memory.md#time-two-axes. Per
// subject: "Alice moved to Berlin" ends "Alice lives in Paris". Per object: "Ravi owns the release checklist now"
// ends Kenji's ownership (a generic object, "a dog", displaces nobody). When the two cannot both have held at any
// time (an immutable relation such as a birthplace, or the same start of validity), the newer fact is a correction:
// the older record was wrong, so it is expired (tExpired = now) and its validity is left as it was. A fact older
// than the one already known is stored already closed by it. Nothing is deleted.

import { type RelationInfo, relationTable } from "../domain/relations.js";
import { ownerScope } from "../domain/scope.js";
import type { EdgeRecord } from "../domain/types.js";
import type { EpisodeRun } from "./context.js";
import { currentEdges } from "./lookups.js";

const validFrom = (e: EdgeRecord) => e.tValid ?? e.tIngested;

/** Still valid at `t` or later: an edge with an end date after `t` is superseded too. */
const validAfter = (e: EdgeRecord, t: number) => e.tInvalid === null || e.tInvalid > t;

/** Edges of `relation` holding the same object as `e` for another subject, valid when `e` starts. */
async function sameObject(run: EpisodeRun, e: EdgeRecord, info: RelationInfo): Promise<EdgeRecord[]> {
  const found = await run.deps.store.edgesOfEntities({
    brainId: run.episode.brainId,
    entityIds: info.symmetric ? [e.source, e.target] : [e.target],
    asOf: validFrom(e),
    knownAt: run.now,
    limit: 200,
    // a fact of one user never supersedes another's (docs/memory.md#scopes-and-filters)
    filter: ownerScope(run.episode),
  });
  return found.filter((o) => o.tExpired === null && conflicts(e, o, info));
}

/** Whether `o` holds a value of `e`'s relation that `e` replaces, by the relation's cardinality. */
function conflicts(e: EdgeRecord, o: EdgeRecord, info: RelationInfo, objectSide = true): boolean {
  if (o.relation !== e.relation) return false;
  const samePair = (o.source === e.source && o.target === e.target) || (info.symmetric && o.source === e.target && o.target === e.source);
  if (samePair) return false;
  const { cardinality } = info;
  const bySubject = (cardinality === "subject" || cardinality === "both") && o.source === e.source;
  const byObject = objectSide && (cardinality === "object" || cardinality === "both") && o.target === e.target;
  const crossed = info.symmetric && cardinality === "both" && (o.target === e.source || o.source === e.target);
  return bySubject || byObject || crossed;
}

export async function resolveContradictions(
  run: EpisodeRun,
  edges: EdgeRecord[],
  generic: ReadonlySet<EdgeRecord> = new Set(),
): Promise<void> {
  const table = run.deps.relations ?? relationTable();
  const closedStored = new Set<string>(run.invalidations.map((i) => i.id));
  // two edges conflict only under one relation: each is compared with its relation's edges, in the episode's order
  const byRelation = new Map<string, EdgeRecord[]>();
  for (const o of edges) {
    const list = byRelation.get(o.relation);
    if (list) list.push(o);
    else byRelation.set(o.relation, [o]);
  }
  for (const e of [...edges].sort((a, b) => validFrom(a) - validFrom(b))) {
    await run.slice();
    const info = table.info(e.relation);
    if (info.cardinality === "many" || (e.tInvalid !== null && e.tInvalid <= validFrom(e))) continue;
    const bySubject = info.cardinality === "subject" || info.cardinality === "both" ? await currentEdges(run, e.source, e.relation) : [];
    const byObject =
      (info.cardinality === "object" || info.cardinality === "both") && !generic.has(e) ? await sameObject(run, e, info) : [];
    const seen = new Set<string>();
    const stored = [...bySubject, ...byObject].filter(
      (s) =>
        !seen.has(s.id) &&
        seen.add(s.id) &&
        !closedStored.has(s.id) &&
        conflicts(e, s, info, !generic.has(e)) &&
        (validAfter(s, validFrom(e)) || info.immutable),
    );
    const fresh = byRelation
      .get(e.relation)!
      .filter(
        (o) =>
          o !== e &&
          conflicts(e, o, info, !generic.has(e) && !generic.has(o)) &&
          validAfter(o, validFrom(e)) &&
          validFrom(o) <= validFrom(e),
      );
    for (const old of [...stored, ...fresh]) {
      const isFresh = fresh.includes(old);
      if (!isFresh && (info.immutable || validFrom(old) === validFrom(e))) {
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
