// Stage 4b: transfers (docs/memory.md#what-changed). "Igor has taken over the search on-call rota" names no relation
// of its own: it is the relation the rota's current holder has to it ("Tanya is responsible for the search on-call
// rota" -> responsible_for; "Raj owns the design system" -> owns), looked up in the brain (same owner scope) and in
// this episode. With that relation the contradiction stage ends the old holder's edge (object-side cardinality). A
// thing with no known holder is the new holder's responsibility. One indexed lookup per transfer, none otherwise.
import { relationTable } from "../domain/relations.js";
import { ownerScope } from "../domain/scope.js";
import type { EdgeRecord } from "../domain/types.js";
import type { EpisodeRun } from "./context.js";

/** Relation slugs of a transfer to the subject: "take over", "take charge of", "inherit". */
const TRANSFER = new Set(["take_over", "take_charge_of", "inherit", "take_on"]);
const FALLBACK = "responsible_for";

/** Gives each transfer edge of this episode the relation its object's current holder has to it. */
export async function resolveTransfers(run: EpisodeRun, edges: EdgeRecord[]): Promise<void> {
  const table = run.deps.relations ?? relationTable();
  const holds = (o: EdgeRecord, e: EdgeRecord) => {
    const { cardinality } = table.info(o.relation);
    return (
      o.target === e.target && o.source !== e.source && !TRANSFER.has(o.relation) && (cardinality === "object" || cardinality === "both")
    );
  };
  for (const e of edges) {
    if (!TRANSFER.has(e.relation)) continue;
    await run.slice();
    const mine = edges.find((o) => o !== e && holds(o, e));
    const stored = mine
      ? []
      : await run.deps.store.edgesOfEntities({
          brainId: run.episode.brainId,
          entityIds: [e.target],
          asOf: e.tValid ?? e.tIngested,
          knownAt: run.now,
          limit: 50,
          filter: ownerScope(run.episode),
        });
    const holder = mine ?? stored.find((o) => o.tExpired === null && holds(o, e));
    e.relation = holder?.relation ?? FALLBACK;
  }
}
