// Scores an extractor against the labelled sentence set (fixtures/labelled-sentences.json); shared by
// the unit test that holds the floor and by `npm run bench -- memory`, which prints the same numbers.
//
// Matching rule. An extracted fact is correct when it matches one expected fact of its sentence:
// - subject and object: equal after normalisation (case and accents folded, leading articles and
//   possessive pronouns dropped, hyphen spacing closed), or the extracted phrase holds every word of
//   the expected one with the same last word (head noun) and at most one extra word ("new onboarding
//   flow" for "onboarding flow"); an expected value "a|b" accepts either;
// - relation: exactly one of the expected names ("is|is_a"); no other equivalence is applied;
// - dates: an expected `from`/`until` must be resolved to that UTC day; a fact with an end date where
//   none is expected is wrong (it would hide a current fact), a start date is only checked when given.
// Coverage: sentences with at least one correct fact, over sentences with expected facts.
// Precision: correct facts over all facts extracted (duplicates of one triple counted once).
import { readFileSync } from "node:fs";
import type { Extractor } from "../src/extractors/types.js";
import { resolveDate } from "../src/text/dates.js";

export interface LabelledFact {
  s: string;
  r: string;
  o: string;
  from?: string;
  until?: string;
}

export interface LabelledSentence {
  domain: string;
  text: string;
  speaker?: string;
  occurredAt?: string;
  facts: LabelledFact[];
}

export const DEFAULT_OCCURRED_AT = "2023-05-08T12:00:00Z";

export function loadLabelled(): LabelledSentence[] {
  const file = new URL("./fixtures/labelled-sentences.json", import.meta.url);
  return (JSON.parse(readFileSync(file, "utf8")) as { sentences: LabelledSentence[] }).sentences;
}

const ARTICLES = new Set(["a", "an", "the", "my", "our", "his", "her", "their", "your", "its"]);

export function normalise(phrase: string): string[] {
  const words = phrase
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[’]/g, "'")
    .replace(/\s*-\s*/g, "-")
    .replace(/[.,;:!?"]+$/g, "")
    .split(/\s+/)
    .filter(Boolean);
  while (words.length > 1 && ARTICLES.has(words[0]!)) words.shift();
  return words;
}

export function phraseMatches(extracted: string, expected: string): boolean {
  const got = normalise(extracted);
  return expected.split("|").some((alt) => {
    const want = normalise(alt);
    if (got.join(" ") === want.join(" ")) return true;
    return got.length <= want.length + 1 && got[got.length - 1] === want[want.length - 1] && want.every((w) => got.includes(w));
  });
}

const day = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString().slice(0, 10));

export interface FactOut {
  source: string;
  relation: string;
  target: string;
  validFrom?: string | null;
  validUntil?: string | null;
}

function factMatches(f: FactOut, want: LabelledFact, ref: number): boolean {
  if (!want.r.split("|").includes(f.relation)) return false;
  if (!phraseMatches(f.source, want.s) || !phraseMatches(f.target, want.o)) return false;
  const from = f.validFrom ? day(resolveDate(f.validFrom, ref)) : null;
  const until = f.validUntil ? day(resolveDate(f.validUntil, ref)) : null;
  if (want.from && from !== want.from) return false;
  if ((want.until ?? null) !== until) return false;
  return true;
}

export interface LabelledScore {
  sentences: number;
  withFacts: number;
  covered: number;
  coverage: number;
  extracted: number;
  correct: number;
  precision: number;
  expectedFacts: number;
  foundFacts: number;
  factRecall: number;
  /** Sentences whose extraction is not fully right, for reading what failed. */
  misses: Array<{ text: string; expected: LabelledFact[]; got: FactOut[] }>;
  episodesPerSecond: number;
}

export async function scoreExtractor(extractor: Extractor, sentences = loadLabelled()): Promise<LabelledScore> {
  let covered = 0;
  let extracted = 0;
  let correct = 0;
  let expectedFacts = 0;
  let foundFacts = 0;
  let withFacts = 0;
  const misses: LabelledScore["misses"] = [];
  const t0 = performance.now();
  for (const s of sentences) {
    const occurredAt = Date.parse(s.occurredAt ?? DEFAULT_OCCURRED_AT);
    const input = { content: s.text, metadata: s.speaker ? { speaker: s.speaker } : {}, occurredAt };
    const entities = await extractor.extractEntities(input);
    const raw = await extractor.extractFacts({ ...input, entities });
    const seen = new Set<string>();
    const facts = raw.filter((f) => {
      const k = `${f.source.toLowerCase()}\u0000${f.relation}\u0000${f.target.toLowerCase()}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    const good = facts.filter((f) => s.facts.some((w) => factMatches(f, w, occurredAt)));
    const found = s.facts.filter((w) => facts.some((f) => factMatches(f, w, occurredAt)));
    extracted += facts.length;
    correct += good.length;
    expectedFacts += s.facts.length;
    foundFacts += found.length;
    if (s.facts.length) {
      withFacts++;
      if (good.length) covered++;
    }
    if (good.length !== facts.length || !good.length !== !s.facts.length)
      misses.push({
        text: s.text,
        expected: s.facts,
        got: facts.map(({ source, relation, target, validFrom, validUntil }) => ({ source, relation, target, validFrom, validUntil })),
      });
  }
  const seconds = (performance.now() - t0) / 1000;
  return {
    sentences: sentences.length,
    withFacts,
    covered,
    coverage: withFacts ? covered / withFacts : 0,
    extracted,
    correct,
    precision: extracted ? correct / extracted : 0,
    expectedFacts,
    foundFacts,
    factRecall: expectedFacts ? foundFacts / expectedFacts : 0,
    misses,
    episodesPerSecond: sentences.length / seconds,
  };
}
