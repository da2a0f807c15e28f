// The pluggable extraction contract: stage 1 (entities) and stage 3 (facts) of the pipeline.
// Implementations: rule-based (offline, default) and OpenAI-compatible chat completions.
import type { EntityKind } from "../domain/types.js";

export interface ExtractionInput {
  content: string;
  metadata: Record<string, unknown>;
  /** Reference time of the text, epoch ms: relative dates ("yesterday") are relative to it. */
  occurredAt: number;
  signal?: AbortSignal;
}

export interface ExtractedEntity {
  name: string;
  kind: EntityKind;
  aliases?: string[];
}

export interface ExtractedFact {
  /** Names of entities, as given to `extractFacts` (or new names, which become entities of kind "other"). */
  source: string;
  target: string;
  /** snake_case relation, e.g. `lives_in`. */
  relation: string;
  /** One self-contained sentence stating the fact. */
  fact: string;
  /** When the fact became true: an ISO date or a date expression from the text ("last year"); null when the text does not say. */
  validFrom?: string | null;
  /** When it stopped being true, same forms; null when open. */
  validUntil?: string | null;
  /** Kind to give `target` when it names no known entity. */
  targetKind?: EntityKind;
}

/**
 * An error thrown by an extractor fails the episode, unless it carries `transient: true` (busy, rate-limited):
 * then the episode's job is retried with the queue's backoff.
 */
export interface Extractor {
  readonly name: string;
  extractEntities(input: ExtractionInput): Promise<ExtractedEntity[]>;
  /** `entities` are the resolved entities of the episode, with canonical names. */
  extractFacts(input: ExtractionInput & { entities: ExtractedEntity[] }): Promise<ExtractedFact[]>;
}
