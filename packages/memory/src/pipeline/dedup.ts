// Stage 5: deduplication. A fact the brain already holds (same source, relation and target, still
// current, and the same statement for multi-valued relations) is not stored again.
import { type RelationTable, relationTable } from "../domain/relations.js";
import type { EdgeRecord } from "../domain/types.js";
import { terms } from "../text/tokenize.js";
import type { EpisodeRun } from "./context.js";
import { currentEdges } from "./lookups.js";

function sameStatement(a: string, b: string): boolean {
  const ta = new Set(terms(a));
  const tb = new Set(terms(b));
  if (!ta.size || !tb.size) return a.trim().toLowerCase() === b.trim().toLowerCase();
  let common = 0;
  for (const t of ta) if (tb.has(t)) common++;
  return common / (ta.size + tb.size - common) >= 0.8;
}

const duplicates = (table: RelationTable, a: EdgeRecord, b: EdgeRecord) =>
  a.source === b.source &&
  a.relation === b.relation &&
  a.target === b.target &&
  (table.info(a.relation).cardinality !== "many" || sameStatement(a.fact, b.fact));

export async function dropDuplicates(run: EpisodeRun, edges: EdgeRecord[]): Promise<EdgeRecord[]> {
  const kept: EdgeRecord[] = [];
  const known = new Map<string, EdgeRecord[]>();
  const table = run.deps.relations ?? relationTable();
  const closed = new Set(run.invalidations.map((i) => i.id));
  for (const e of edges) {
    await run.slice();
    const k = `${e.source}\u0000${e.relation}`;
    let current = known.get(k);
    if (!current) {
      const stored = await currentEdges(run, e.source, e.relation);
      current = stored.filter((s) => s.tInvalid === null && !closed.has(s.id));
      known.set(k, current);
    }
    if (current.some((c) => duplicates(table, c, e)) || kept.some((c) => duplicates(table, c, e))) continue;
    kept.push(e);
  }
  return kept;
}
