// Stage 5: deduplication. A fact the brain already holds (same source, relation and target, still
// current, and the same statement for multi-valued relations) is not stored again.
import { relationTable } from "../domain/relations.js";
import type { EdgeRecord } from "../domain/types.js";
import { terms } from "../text/tokenize.js";
import type { EpisodeRun } from "./context.js";
import { currentEdges } from "./lookups.js";

/** Whether two statements share at least 80% of their terms (Jaccard), each text's term set made once per run. */
function statements() {
  const memo = new Map<string, Set<string>>();
  const termsOf = (text: string) => {
    let t = memo.get(text);
    if (!t) memo.set(text, (t = new Set(terms(text))));
    return t;
  };
  return (a: string, b: string): boolean => {
    const ta = termsOf(a);
    const tb = termsOf(b);
    if (!ta.size || !tb.size) return a.trim().toLowerCase() === b.trim().toLowerCase();
    let common = 0;
    for (const t of ta) if (tb.has(t)) common++;
    return common / (ta.size + tb.size - common) >= 0.8;
  };
}

export async function dropDuplicates(run: EpisodeRun, edges: EdgeRecord[]): Promise<EdgeRecord[]> {
  const table = run.deps.relations ?? relationTable();
  const sameStatement = statements();
  // a duplicate shares source and relation, so each edge is compared with those of its pair alone
  const duplicates = (a: EdgeRecord, b: EdgeRecord) =>
    a.source === b.source &&
    a.relation === b.relation &&
    a.target === b.target &&
    (table.info(a.relation).cardinality !== "many" || sameStatement(a.fact, b.fact));
  const kept: EdgeRecord[] = [];
  /** By source and relation: the brain's current edges, then this episode's edges kept so far. */
  const known = new Map<string, { stored: EdgeRecord[]; kept: EdgeRecord[] }>();
  const closed = new Set(run.invalidations.map((i) => i.id));
  for (const e of edges) {
    await run.slice();
    const k = `${e.source}\u0000${e.relation}`;
    let pair = known.get(k);
    if (!pair) {
      const stored = await currentEdges(run, e.source, e.relation);
      pair = { stored: stored.filter((s) => s.tInvalid === null && !closed.has(s.id)), kept: [] };
      known.set(k, pair);
    }
    if (pair.stored.some((c) => duplicates(c, e)) || pair.kept.some((c) => duplicates(c, e))) continue;
    kept.push(e);
    pair.kept.push(e);
  }
  return kept;
}
