// Stage 3: fact extraction into candidate edges (source, relation, target, fact text). Names the
// extractor returns are mapped to the episode's resolved entities; new names are resolved too.
import { normaliseRelation } from "../domain/relations.js";
import type { ExtractedEntity, ExtractedFact } from "../extractors/types.js";
import type { EpisodeRun } from "./context.js";
import type { Resolver } from "./resolve.js";

export interface CandidateFact {
  source: string;
  target: string;
  relation: string;
  fact: string;
  validFrom: string | null;
  validUntil: string | null;
}

const MAX_FACT = 2000;

export async function extractFacts(run: EpisodeRun, resolver: Resolver): Promise<CandidateFact[]> {
  const { episode, deps } = run;
  const entities: ExtractedEntity[] = [...run.entities.values()].map((r) => ({
    name: r.record.name,
    kind: r.record.kind,
    aliases: [...r.record.aliases],
  }));
  const facts: ExtractedFact[] = await deps.extractor.extractFacts({
    content: episode.content,
    metadata: episode.metadata,
    occurredAt: episode.occurredAt,
    entities,
  });
  const out: CandidateFact[] = [];
  for (const f of facts) {
    await run.slice();
    if (!f || typeof f.source !== "string" || typeof f.target !== "string" || typeof f.fact !== "string" || !f.fact.trim()) continue;
    const source = resolver.byName(f.source) ?? (await resolver.resolve({ name: f.source, kind: "other" }));
    const target = resolver.byName(f.target) ?? (await resolver.resolve({ name: f.target, kind: f.targetKind ?? "other" }));
    if (!source || !target || source.record.id === target.record.id) continue;
    // a pattern's expectation ("lives in X": a place) settles an unknown kind
    if (f.targetKind && target.record.kind === "other" && f.targetKind !== "other") {
      target.record.kind = f.targetKind;
      if (!target.isNew) target.changed = true;
    }
    out.push({
      source: source.record.id,
      target: target.record.id,
      relation: normaliseRelation(f.relation ?? "related_to"),
      fact: f.fact.trim().slice(0, MAX_FACT),
      validFrom: typeof f.validFrom === "string" ? f.validFrom : null,
      validUntil: typeof f.validUntil === "string" ? f.validUntil : null,
    });
  }
  return out;
}
