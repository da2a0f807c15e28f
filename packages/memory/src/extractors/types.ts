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
  /**
   * What the statement asserts (docs/memory.md#what-changed): `negative` ("no longer lives in", "doesn't drink")
   * ends the matching valid fact and never creates it. Default `positive`.
   */
  polarity?: Polarity;
  /**
   * When it holds, from the statement's tense and verb: `holds` (default: from `validFrom`, else the telling),
   * `starts` (an event that starts it: "joined", "got married"), `ends` (an event that ends it: "resigned from",
   * "no longer"; at `validUntil`, else `validFrom`, else the telling), `past` (held before the telling: "lived",
   * "used to"; over by then unless `validUntil` says when), `will_start` (from `validFrom`, a future date).
   */
  aspect?: Aspect;
  /**
   * The target is a kind rather than one thing ("a dog", "his job"): it never displaces another subject's edge
   * (object-side cardinality), and an ending matches the subject's edge on this relation whatever its target.
   */
  generic?: boolean;
}

export type Polarity = "positive" | "negative";
export type Aspect = "holds" | "starts" | "ends" | "past" | "will_start";
export const ASPECTS: readonly Aspect[] = ["holds", "starts", "ends", "past", "will_start"];

/**
 * An error thrown by an extractor fails the episode, unless it carries `transient: true` (busy, rate-limited):
 * then the episode's job is retried with the queue's backoff.
 */
export interface Extractor {
  readonly name: string;
  extractEntities(input: ExtractionInput): Promise<ExtractedEntity[]>;
  /** `entities` are the resolved entities of the episode, with canonical names. */
  extractFacts(input: ExtractionInput & { entities: ExtractedEntity[] }): Promise<ExtractedFact[]>;
  /**
   * A hint that this episode's extraction will be asked for soon: given, as an extraction of a brain begins, for the
   * brain's next queued episodes. An extractor whose work does not depend on the brain may start it now, off the loop,
   * and answer the later calls from it. Never throws; doing nothing is a valid answer.
   */
  prepare?(input: ExtractionInput): void;
}
