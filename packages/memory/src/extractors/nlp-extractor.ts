// The default offline extractor: wink-nlp tags each sentence (part of speech, lemma, dates), a shallow
// chunker and clause patterns turn it into facts in every declarative form (SVO, passive, copula,
// possessive, relative clause, coordination), first person is attributed to the speaker, and noun
// phrases (names and common nouns alike) become entities. Deterministic: no model call, no randomness.
import { canonicalRelation } from "../domain/relations.js";
import type { EntityKind } from "../domain/types.js";
import { nameKey } from "../text/names.js";
import { chunk, type NounPhrase } from "./nlp/chunks.js";
import { clauses } from "./nlp/clauses.js";
import { validity } from "./nlp/dates.js";
import { parse } from "./nlp/parse.js";
import { findNames, splitSpeaker } from "./rule-based.js";
import type { ExtractedEntity, ExtractedFact, ExtractionInput, Extractor } from "./types.js";

const FIRST_PERSON = new Set(["i", "me", "myself", "we", "us", "my", "our", "ourselves"]);
const THIRD_PERSON = new Set(["he", "him", "she", "her", "his", "himself", "herself"]);
/** Words no entity is made of on their own. */
const EMPTY = new Set([
  "one",
  "thing",
  "things",
  "something",
  "anything",
  "everything",
  "nothing",
  "lot",
  "lots",
  "bit",
  "way",
  "kind",
  "sort",
  "time",
]);
const MAX_ENTITY_WORDS = 6;

/** What the object of a relation is, when nothing else says. */
const TARGET_KIND: Record<string, EntityKind> = {
  lives_in: "place",
  born_in: "place",
  located_in: "place",
  visited: "place",
  works_at: "organization",
  studies_at: "organization",
  founded: "organization",
  married_to: "person",
  reports_to: "person",
  met: "person",
};

/** Relations whose subject is a person when its name says nothing else. */
const PERSON_SUBJECT = new Set([
  "lives_in",
  "works_at",
  "married_to",
  "born_in",
  "studies_at",
  "reports_to",
  "likes",
  "dislikes",
  "met",
  "speaks",
]);

/** Contractions of the first person the tagger keeps whole ("I'm"): spelled out before tagging. */
function expandContractions(text: string): string {
  return text
    .replace(/\bI['’]m\b/g, "I am")
    .replace(/\bI['’]ve\b/g, "I have")
    .replace(/\bI['’]ll\b/g, "I will")
    .replace(/\bI['’]d\b/g, "I would")
    .replace(/\b([Ww]e)['’]re\b/g, "$1 are")
    .replace(/\b([Ww]e)['’]ve\b/g, "$1 have");
}

/** The sentence read on its own: first person as the speaker, a pronoun subject as its referent. */
function standalone(sentence: string, speaker: string | null, pronoun: { word: string; name: string } | null): string {
  let s = sentence;
  if (pronoun) s = s.replace(new RegExp(`\\b${pronoun.word}\\b`, "i"), pronoun.name);
  if (!speaker) return s;
  return s
    .replace(/\bI am\b/g, `${speaker} is`)
    .replace(/\bI was\b/g, `${speaker} was`)
    .replace(/\bI have\b/g, `${speaker} has`)
    .replace(/\b(I|me|myself)\b/g, speaker)
    .replace(/\b[Mm]y\b/g, `${speaker}'s`);
}

/** Everything the extractor finds in one episode: plain data, so a worker thread can send it back. */
export interface Analysis {
  entities: ExtractedEntity[];
  facts: ExtractedFact[];
}

/** What the analysis reads of an episode (no signal: it crosses to the extraction threads). */
export type AnalysisInput = Pick<ExtractionInput, "content" | "metadata" | "occurredAt">;

/** The whole analysis of one episode, synchronous; `nlpExtractor` and the extraction threads both run it. */
export function analyseEpisode(input: AnalysisInput): Analysis {
  const { speaker, body } = splitSpeaker(input.content, input.metadata);
  const text = expandContractions(body);
  const named = new Map<string, EntityKind>();
  for (const e of findNames(text)) named.set(nameKey(e.name), e.kind);
  const entities = new Map<string, ExtractedEntity>();
  const addEntity = (name: string, kind: EntityKind) => {
    const k = nameKey(name);
    if (!k) return;
    const prev = entities.get(k);
    if (!prev) entities.set(k, { name, kind });
    else if (prev.kind === "other" && kind !== "other") prev.kind = kind;
  };
  if (speaker) addEntity(speaker, "person");
  const kindOf = (name: string): EntityKind => named.get(nameKey(name)) ?? "other";
  let lastPerson: string | null = null;
  let lastThing: string | null = null;

  const facts: ExtractedFact[] = [];
  for (const sentence of parse(text)) {
    const chunks = chunk(sentence.tokens);
    const when = validity(sentence.tokens, input.occurredAt);
    // pronouns refer to the closest person or thing named before them, in this sentence or earlier
    const referent = new Map<NounPhrase, string | null>();
    {
      let person = lastPerson;
      let thing = lastThing;
      for (const c of chunks) {
        if (c.type !== "np") continue;
        if (c.pronoun) {
          referent.set(c, THIRD_PERSON.has(c.pronoun) ? person : c.pronoun === "it" ? thing : null);
          continue;
        }
        // "met her husband", "proud of his garden": the possessive points back too
        if (c.possessor?.pronoun)
          referent.set(c.possessor, THIRD_PERSON.has(c.possessor.pronoun) ? person : c.possessor.pronoun === "its" ? thing : null);
        const name = c.text;
        if ((named.get(nameKey(name)) ?? entities.get(nameKey(name))?.kind) === "person") person = name;
        else thing = name;
      }
    }

    /** The entity name a noun phrase stands for; null when it stands for nobody we know. */
    const nameOf = (np: NounPhrase): string | null => {
      if (np.pronoun) {
        const p = np.pronoun;
        if (FIRST_PERSON.has(p)) return speaker;
        return referent.get(np) ?? null;
      }
      const words = np.text.split(/\s+/);
      if (words.length === 1 && EMPTY.has(words[0]!.toLowerCase())) return null;
      if (words.length > 1 || !/^(corp|inc|ltd|co|jr|sr|st)\.$/i.test(words[0]!))
        words[words.length - 1] = words[words.length - 1]!.replace(/\.$/, "");
      const head = (words.length > MAX_ENTITY_WORDS ? words.slice(-MAX_ENTITY_WORDS) : words).join(" ");
      if (!np.possessor) return head;
      const owner = nameOf(np.possessor);
      return owner ? `${owner}'s ${head}` : head;
    };

    for (const c of chunks) {
      if (c.type !== "np" || c.pronoun) continue;
      const name = nameOf(c);
      if (!name) continue;
      addEntity(name, kindOf(name));
      if (c.describedAs) addEntity(c.describedAs, "other");
    }

    for (const c of clauses(chunks)) {
      const source = nameOf(c.subject);
      const target = nameOf(c.object);
      if (!source || !target || nameKey(source) === nameKey(target)) continue;
      let relation = canonicalRelation(c.negated ? `not_${c.relation}` : c.relation);
      // "joined Acme Corp": an employer; "joined a book club" stays a membership
      if (relation === "join" && c.object.proper && kindOf(target) !== "person" && kindOf(target) !== "place") relation = "works_at";
      const subjectPronoun = c.subject.pronoun && !FIRST_PERSON.has(c.subject.pronoun) ? { word: c.subject.pronoun, name: source } : null;
      const targetKind = kindOf(target) !== "other" ? kindOf(target) : (TARGET_KIND[relation] ?? "other");
      addEntity(
        source,
        kindOf(source) !== "other" ? kindOf(source) : PERSON_SUBJECT.has(relation) && c.subject.proper ? "person" : "other",
      );
      addEntity(target, targetKind);
      facts.push({
        source,
        relation,
        target,
        fact: standalone(sentence.text, speaker, subjectPronoun),
        validFrom: when.from,
        validUntil: when.until,
        targetKind,
      });
      for (const np of [c.subject, c.object])
        if (np.describedAs) {
          const n = nameOf(np);
          if (n)
            facts.push({
              source: n,
              relation: "is_a",
              target: np.describedAs,
              fact: standalone(sentence.text, speaker, null),
              validFrom: when.from,
              validUntil: null,
            });
        }
    }
    // referents for the next sentence's pronouns
    for (const c of chunks) {
      if (c.type !== "np" || c.pronoun) continue;
      const name = nameOf(c);
      if (!name) continue;
      const kind = entities.get(nameKey(name))?.kind ?? kindOf(name);
      if (kind === "person") lastPerson = name;
      else lastThing = name;
    }
  }
  return { entities: [...entities.values()], facts };
}

/** What the analysis of an episode depends on: its text, reference time and speaker. */
export const analysisKey = (input: AnalysisInput) =>
  `${input.occurredAt}\u0000${typeof input.metadata.speaker === "string" ? input.metadata.speaker : ""}\u0000${input.content}`;

export function nlpExtractor(): Extractor {
  // extractEntities and extractFacts see the same episode one after the other: analyse it once
  let cached: { key: string; analysis: Analysis } | null = null;
  const analysis = (input: ExtractionInput) => {
    const key = analysisKey(input);
    if (cached?.key !== key) cached = { key, analysis: analyseEpisode(input) };
    return cached.analysis;
  };
  return {
    name: "nlp",
    async extractEntities(input) {
      return analysis(input).entities.map((e) => ({ ...e }));
    },
    async extractFacts(input) {
      return analysis(input).facts.map((f) => ({ ...f }));
    },
  };
}
