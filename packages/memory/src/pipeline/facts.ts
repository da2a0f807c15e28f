// Stage 3: fact extraction into candidate assertions (source, relation, target, fact text, polarity, aspect). Names
// the extractor returns are mapped to the episode's resolved entities; new names are resolved too. Whatever the
// extractor, its relation names go through the relation table (paraphrases folded, "not_" read as a negation).
import { normaliseRelation, relationTable } from "../domain/relations.js";
import { ASPECTS, type Aspect, type ExtractedEntity, type ExtractedFact, type Polarity } from "../extractors/types.js";
import type { EpisodeRun } from "./context.js";
import type { Resolver } from "./resolve.js";

export interface CandidateFact {
  source: string;
  target: string;
  relation: string;
  fact: string;
  validFrom: string | null;
  validUntil: string | null;
  polarity: Polarity;
  aspect: Aspect;
  generic: boolean;
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
  const table = deps.relations ?? relationTable();
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
    const given = normaliseRelation(f.relation ?? "related_to");
    let polarity: Polarity = f.polarity === "negative" || given.startsWith("not_") ? "negative" : "positive";
    const base = given.replace(/^not_/, "");
    // an extractor that names the event ("resigned_from") without an aspect: the table says what it does
    const meaning = table.verb(base);
    let aspect: Aspect = ASPECTS.includes(f.aspect as Aspect) ? (f.aspect as Aspect) : (meaning?.role ?? "holds");
    const relation = meaning ? meaning.relation : table.canonical(base);
    if (polarity === "negative" && aspect !== "holds" && aspect !== "ends") [polarity, aspect] = ["negative", "holds"];
    out.push({
      source: source.record.id,
      target: target.record.id,
      relation,
      polarity,
      aspect,
      generic: f.generic === true,
      fact: f.fact.trim().slice(0, MAX_FACT),
      validFrom: typeof f.validFrom === "string" ? f.validFrom : null,
      validUntil: typeof f.validUntil === "string" ? f.validUntil : null,
    });
  }
  return out;
}
