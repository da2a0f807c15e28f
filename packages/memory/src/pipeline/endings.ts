// Stage 5a: endings (docs/memory.md#what-changed). A negated or ending statement ("Tariq no longer lives in Oslo",
// "Pat resigned from Oracle") closes the matching valid edge at its date: stored edges through an invalidation that
// cites the ending episode and its statement, edges of this episode in place. It never creates the positive fact;
// an ending of a state the brain did not hold ("resigned from Oracle", first heard) is stored as held until then,
// with an open start, so an `asOf` before the ending finds it. An edge of this episode that ends ("worked at
// Nintendo until 2018", "lived in Kyoto") closes the same fact when the brain holds it open, instead of repeating it.
// An event that ends ("left the SRE team", "cancelled its plan") and matches no edge of its relation ends the states
// linking the same two entities ("manages the SRE team", "is on the Enterprise plan").
import { relationTable } from "../domain/relations.js";
import { ownerScope } from "../domain/scope.js";
import type { EdgeRecord } from "../domain/types.js";
import type { EpisodeRun } from "./context.js";
import { currentEdges } from "./lookups.js";
import { type Ending, edgeOf } from "./temporal.js";

const closedIds = (run: EpisodeRun) => new Set(run.invalidations.map((i) => i.id));

/** Valid at `at`: started before it (or at an unknown time) and not ended by then. */
const validAt = (e: EdgeRecord, at: number) => (e.tValid === null || e.tValid < at) && (e.tInvalid === null || e.tInvalid > at);

/** Edges the brain holds and this episode made on `relation` from `source` (both ways for a symmetric relation). */
async function holders(run: EpisodeRun, fresh: EdgeRecord[], source: string, target: string, relation: string, symmetric: boolean) {
  const closed = closedIds(run);
  const stored = (await currentEdges(run, source, relation)).filter((e) => !closed.has(e.id));
  if (symmetric) stored.push(...(await currentEdges(run, target, relation)).filter((e) => e.target === source && !closed.has(e.id)));
  const mine = fresh.filter(
    (e) => e.relation === relation && (e.source === source || (symmetric && e.source === target && e.target === source)),
  );
  return { stored, mine };
}

function close(run: EpisodeRun, e: EdgeRecord, at: number, fact: string, isFresh: boolean) {
  const reason = `ended by episode ${run.episode.id}: ${fact}`.slice(0, 500);
  if (isFresh) {
    e.tInvalid = at;
    e.invalidationReason = reason;
    return;
  }
  run.invalidations.push({ id: e.id, tInvalid: at, tExpired: null, reason, invalidatedBy: null });
}

/** Applies the endings to the brain's edges and this episode's; returns the episode's edges, with the states it ended. */
export async function applyEndings(run: EpisodeRun, endings: Ending[], edges: EdgeRecord[]): Promise<EdgeRecord[]> {
  const table = run.deps.relations ?? relationTable();
  const out = [...edges];
  for (const end of endings) {
    await run.slice();
    const { symmetric } = table.info(end.relation);
    const { stored, mine } = await holders(run, out, end.source, end.target, end.relation, symmetric);
    const matches = (e: EdgeRecord) =>
      validAt(e, end.at) && (end.generic || e.target === end.target || (symmetric && e.source === end.target && e.target === end.source));
    let hits = [...stored.filter(matches).map((e) => ({ e, fresh: false })), ...mine.filter(matches).map((e) => ({ e, fresh: true }))];
    // "Priya left the SRE team" when the brain holds "Priya manages the SRE team": an event that ends, matching no edge
    // of its own relation, ends the states that link the same two
    if (!hits.length && end.ended && !end.generic) hits = await pairEdges(run, out, end);
    for (const { e, fresh } of hits) close(run, e, end.at, end.fact, fresh);
    const ended = hits.length;
    if (!ended && end.ended && !end.generic) out.push(edgeOf(run, end, null, end.at));
  }
  return closeOpenDuplicates(run, out);
}

/** Valid edges of any relation but an event's from the ending's source to its target, stored and this episode's. */
async function pairEdges(run: EpisodeRun, fresh: EdgeRecord[], end: Ending): Promise<Array<{ e: EdgeRecord; fresh: boolean }>> {
  const table = run.deps.relations ?? relationTable();
  const closed = closedIds(run);
  const links = (e: EdgeRecord) => e.target === end.target && validAt(e, end.at) && !EVENTS.has(table.info(e.relation).name);
  const stored = await run.deps.store.findCurrentEdges({
    brainId: run.episode.brainId,
    source: end.source,
    scope: ownerScope(run.episode),
  });
  return [
    ...stored.filter((e) => !closed.has(e.id) && links(e)).map((e) => ({ e, fresh: false })),
    ...fresh.filter((e) => e.source === end.source && links(e)).map((e) => ({ e, fresh: true })),
  ];
}

/** Relations of events: a visit or a meeting is over when it happened, nothing ends it later. */
const EVENTS = new Set(["visited", "met", "created", "founded", "learned", "born_in", "born_on"]);

/** "Mei worked at Nintendo until 2018" when the brain holds "Mei works at Nintendo" open: that edge ends in 2018. */
async function closeOpenDuplicates(run: EpisodeRun, edges: EdgeRecord[]): Promise<EdgeRecord[]> {
  const kept: EdgeRecord[] = [];
  for (const e of edges) {
    if (e.tInvalid === null || e.invalidationReason !== null) {
      kept.push(e);
      continue;
    }
    const closed = closedIds(run);
    const open = (await currentEdges(run, e.source, e.relation)).find(
      (s) => !closed.has(s.id) && s.target === e.target && s.tInvalid === null && (s.tValid === null || s.tValid < e.tInvalid!),
    );
    if (open) close(run, open, e.tInvalid, e.fact, false);
    else kept.push(e);
  }
  return kept;
}
