// The default offline extractor: wink-nlp tags each sentence (part of speech, lemma, dates), a shallow
// chunker and clause patterns turn it into facts in every declarative form (SVO, passive, copula,
// possessive, relative clause, coordination), first person is attributed to the speaker, and noun
// phrases (names and common nouns alike) become entities. Deterministic: no model call, no randomness.
import { type RelationSpec, type RelationTable, relationTable } from "../domain/relations.js";
import type { EntityKind } from "../domain/types.js";
import { nameKey } from "../text/names.js";
import { ORG_WORDS, PLACES } from "./lexicon.js";
import {
  type Assertion,
  assertionOf,
  changedValue,
  isGeneric,
  isInstructionClause,
  kinRelation,
  relativeName,
  type SentenceCues,
  sentenceCues,
} from "./nlp/change.js";
import { type Chunk, chunk, type NounPhrase } from "./nlp/chunks.js";
import { type Clause, clauses } from "./nlp/clauses.js";
import { type Validity, validity } from "./nlp/dates.js";
import { parse, type Sentence } from "./nlp/parse.js";
import { isAddress, type ValueAssertion, valueAssertion } from "./nlp/values.js";
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
  "founded",
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
export type AnalysisInput = Pick<ExtractionInput, "content" | "metadata" | "occurredAt"> & {
  /** The host's relations and verbs (`createMemoryService({ relations })`), plain data. */
  relations?: readonly RelationSpec[];
};

/** The state of one episode's analysis: its entities, facts and what pronouns refer to. */
interface EpisodeState {
  speaker: string | null;
  occurredAt: number;
  table: RelationTable;
  named: Map<string, EntityKind>;
  entities: Map<string, ExtractedEntity>;
  facts: ExtractedFact[];
  lastPerson: string | null;
  lastThing: string | null;
  /** The previous sentence's first thing (its subject, mostly): what "it" and "its" point back to first. */
  subjectThing: string | null;
  /** The previous sentence's first group (an organisation, a team, a plural): what "they" and "their" point to. */
  group: string | null;
  /** The last proper name of no known kind: "he" or "she" points to it when no person is known ("Rahul Gupta"). */
  lastProper: string | null;
  /** "Jorge and Ana" when the previous sentence's subject was two people: what a leading "they" stands for. */
  pair: string | null;
}

function addEntity(st: EpisodeState, name: string, kind: EntityKind): void {
  const k = nameKey(name);
  if (!k) return;
  const prev = st.entities.get(k);
  if (!prev) st.entities.set(k, { name, kind });
  else if (prev.kind === "other" && kind !== "other") prev.kind = kind;
}

const kindIn = (st: EpisodeState, name: string): EntityKind => st.named.get(nameKey(name)) ?? "other";

/** The whole analysis of one episode, synchronous; `nlpExtractor` and the extraction threads both run it. */
export function analyseEpisode(input: AnalysisInput): Analysis {
  const { speaker, body } = splitSpeaker(input.content, input.metadata);
  const text = expandContractions(body);
  const st: EpisodeState = {
    speaker,
    occurredAt: input.occurredAt,
    table: relationTable(input.relations),
    named: new Map(),
    entities: new Map(),
    facts: [],
    lastPerson: null,
    lastThing: null,
    subjectThing: null,
    group: null,
    lastProper: null,
    pair: null,
  };
  for (const e of findNames(text)) st.named.set(nameKey(e.name), e.kind);
  if (speaker) addEntity(st, speaker, "person");
  for (const sentence of parse(text)) {
    // "Jorge and Ana live in Quito. They both work at ...": "they" is the pair, read as if named again
    const pair = st.pair && /^they\b/i.test(sentence.text) ? parse(sentence.text.replace(/^they\b/i, st.pair))[0] : undefined;
    st.pair = null;
    analyseSentence(st, pair ?? sentence);
  }
  return { entities: [...st.entities.values()], facts: st.facts };
}

/** Pronouns refer to the closest person or thing named before them, in this sentence or earlier. */
function referents(st: EpisodeState, chunks: Chunk[]): Map<NounPhrase, string | null> {
  const referent = new Map<NounPhrase, string | null>();
  let person = st.lastPerson;
  let thing = st.lastThing;
  // the first proper name of no known kind in this sentence (its subject, mostly), else the sentence before's: "he"
  // points to it when no person is known
  let proper: string | null = null;
  // "Globex hired Dan Fox. He ...": a two- or three-word name that names no organisation beats the first name
  let personLike: string | null = null;
  // "The search service is owned by the data team. It depends on Elasticsearch": "it" is the service, the subject;
  // in the sentence that named it first ("The job used to run at 6 am; it now runs at 7 am"), that one
  let first: string | null = null;
  const it = () => first ?? st.subjectThing ?? thing;
  const pointsTo = (pronoun: string) =>
    THIRD_PERSON.has(pronoun)
      ? (person ?? personLike ?? proper ?? st.lastProper)
      : /^(it|its)$/.test(pronoun)
        ? it()
        : /^(they|them|their|theirs)$/.test(pronoun)
          ? (st.group ?? it())
          : null;
  for (const c of chunks) {
    if (c.type !== "np") continue;
    if (c.pronoun) {
      referent.set(c, pointsTo(c.pronoun));
      continue;
    }
    // "met her husband", "proud of his garden": the possessive points back too
    if (c.possessor?.pronoun) referent.set(c.possessor, pointsTo(c.possessor.pronoun));
    // "Gwen's time at the Guardian ended; she joined the BBC": a possessor is named too
    else if (c.possessor?.proper) proper ??= c.possessor.text;
    const rel = relativeName(c);
    const name = rel ? rel.name : c.text;
    if (rel || (st.named.get(nameKey(name)) ?? st.entities.get(nameKey(name))?.kind) === "person") person = name;
    else {
      thing = name;
      first ??= name;
      if (c.proper) proper ??= name;
      if (c.proper && looksLikePerson(name)) personLike = name;
    }
  }
  return referent;
}

function analyseSentence(st: EpisodeState, sentence: Sentence): void {
  const { speaker } = st;
  const chunks = chunk(sentence.tokens);
  const when = segmentValidity(sentence.tokens, st.occurredAt);
  const referent = referents(st, chunks);
  for (const t of sentence.tokens) if (t.name) st.named.set(nameKey(t.text), "person");

  /** The entity name a noun phrase stands for; null when it stands for nobody we know. */
  const nameOf = (np: NounPhrase): string | null => {
    if (np.pronoun) {
      if (FIRST_PERSON.has(np.pronoun)) return speaker;
      return referent.get(np) ?? null;
    }
    // "my brother Tom" is Tom
    const rel = relativeName(np);
    if (rel) return rel.name;
    const words = np.text.split(/\s+/);
    if (words.length === 1 && EMPTY.has(words[0]!.toLowerCase())) return null;
    if (words.length > 1 || !/^(corp|inc|ltd|co|jr|sr|st)\.$/i.test(words[0]!))
      words[words.length - 1] = words[words.length - 1]!.replace(/\.$/, "");
    const head = (words.length > MAX_ENTITY_WORDS ? words.slice(-MAX_ENTITY_WORDS) : words).join(" ");
    if (!np.possessor) return head;
    const owner = nameOf(np.possessor);
    return owner ? `${owner}'s ${head}` : head;
  };

  const relatives = new Map<string, ExtractedFact>();
  for (const c of chunks) {
    if (c.type !== "np" || c.pronoun) continue;
    const name = nameOf(c);
    if (!name) continue;
    const rel = relativeName(c);
    addEntity(st, name, rel ? "person" : kindIn(st, name));
    if (c.describedAs) addEntity(st, c.describedAs, "other");
    // "my brother Tom": Tom is the speaker's sibling
    const owner = rel && c.possessor ? nameOf(c.possessor) : null;
    if (rel && owner && nameKey(owner) !== nameKey(name)) {
      const kinFact: ExtractedFact = {
        source: name,
        relation: rel.kin,
        target: owner,
        fact: standalone(sentence.text, speaker, null),
        validFrom: null,
        validUntil: null,
        targetKind: "person",
        polarity: "positive",
        aspect: "holds",
      };
      st.facts.push(kinFact);
      relatives.set(`${nameKey(name)}\u0000${rel.kin}\u0000${nameKey(owner)}`, kinFact);
    }
  }

  // an instruction is a rule a playbook cites, not a fact of the graph
  const first = chunks[0];
  if (!isInstructionClause(sentence.text, first?.type === "vg" ? first : null)) {
    const cues = sentenceCues(sentence.text);
    for (const c of clauses(chunks, sentence.tokens)) clauseFacts(st, c, { sentence, when, cues, nameOf, relatives });
  }
  // referents for the next sentence's pronouns
  let subjectThing: string | null = null;
  let group: string | null = null;
  let firstProper: string | null = null;
  for (const c of chunks) {
    if (c.type !== "np" || c.pronoun) continue;
    const name = nameOf(c);
    if (!name) continue;
    const kind = st.entities.get(nameKey(name))?.kind ?? kindIn(st, name);
    if (kind === "person") st.lastPerson = name;
    else {
      if (kind === "other" && c.proper && !c.possessor) firstProper = looksLikePerson(name) ? name : (firstProper ?? name);
      st.lastThing = name;
      if (kind !== "date" && kind !== "place") subjectThing ??= name;
      if (kind === "organization" || GROUP.test(name)) group ??= name;
    }
  }
  st.subjectThing = subjectThing;
  st.group = group;
  st.pair = pairOf(st, chunks, nameOf);
  st.lastProper = firstProper ?? st.lastProper;
}

/** "Jorge and Ana live in Quito": the two people a sentence opens with as its subject, for a "they" after it. */
function pairOf(st: EpisodeState, chunks: Chunk[], nameOf: (np: NounPhrase) => string | null): string | null {
  const [a, and, b, verb] = chunks;
  if (a?.type !== "np" || and?.type !== "conj" || and.token.lower !== "and" || b?.type !== "np" || verb?.type !== "vg") return null;
  const names = [a, b].map((np) => (np.proper || np.pronoun ? nameOf(np) : null));
  const people = names.every(
    (n) => n !== null && (kindIn(st, n) === "person" || st.entities.get(nameKey(n))?.kind === "person" || looksLikeName(n)),
  );
  return people ? `${names[0]} and ${names[1]}` : null;
}

/** One or two capitalised words naming no organisation or place: "Jorge", "Ana Lima". */
const looksLikeName = (name: string) =>
  /^\p{Lu}[\p{L}'-]+(\s\p{Lu}[\p{L}'-]+)?$/u.test(name) && !namesOrganisation(name) && !PLACES.has(name.toLowerCase());

/**
 * Dates hold for the part of a sentence they are in: "Sven lived in Malmö until last October; he is in Gothenburg
 * now" ends Malmö, not Gothenburg. Parts are split at semicolons; each part's dates read once.
 */
function segmentValidity(tokens: Sentence["tokens"], ref: number): (offset: number) => Validity {
  if (!tokens.some((t) => t.text === ";")) {
    const whole = validity(tokens, ref);
    return () => whole;
  }
  const parts: Array<{ end: number; when: Validity }> = [];
  let start = 0;
  for (let k = 0; k <= tokens.length; k++)
    if (k === tokens.length || tokens[k]!.text === ";") {
      parts.push({ end: tokens[k]?.start ?? Number.POSITIVE_INFINITY, when: validity(tokens.slice(start, k), ref) });
      start = k + 1;
    }
  return (offset) => (parts.find((p) => offset <= p.end) ?? parts[parts.length - 1]!).when;
}

/** A name with an organisation's word in it (lexicon.ts ORG_WORDS): "Vandelay Industries", "Banco Pichincha". */
const namesOrganisation = (name: string) =>
  name
    .toLowerCase()
    .split(/\s+/)
    .some((w) => ORG_WORDS.has(w));

/** Two or three capitalised words naming no organisation: "Dan Fox", "Rahul Gupta". */
const looksLikePerson = (name: string) => /^\p{Lu}[\p{L}'-]+(\s\p{Lu}[\p{L}'-]+){1,2}$/u.test(name) && !namesOrganisation(name);

/** Names of groups "they" can stand for: "the payments team", "Initech users". */
const GROUP = /\b(team|group|department|squad|company|crew|committee|board|customers|users|staff|engineers|folks|family)$/i;

/** Groups one is a member of by being in them: "in a jazz band", "in the chess club", "in the marketing team". */
const MEMBERS_OF =
  /\b(band|team|club|choir|orchestra|group|committee|squad|crew|league|union|party|guild|society|cohort|troupe|ensemble|council|board|department|unit)$/i;

interface SentenceContext {
  sentence: Sentence;
  /** The sentence's facts of a relative ("my husband Murat": married_to), by source, relation and target. */
  relatives: Map<string, ExtractedFact>;
  /** The validity of the part of the sentence (between semicolons) a character offset is in. */
  when: (offset: number) => Validity;
  cues: SentenceCues;
  nameOf: (np: NounPhrase) => string | null;
}

/** The facts of one clause, with their assertion (polarity and aspect) from the change model. */
function clauseFacts(st: EpisodeState, c: Clause, cx: SentenceContext): void {
  const { speaker } = st;
  const { sentence, nameOf } = cx;
  const when = cx.when(c.verb.tokens[0]?.start ?? c.object.tokens[0]?.start ?? 0);
  const changed = changedValue(c);
  const source = changed && c.subject.possessor ? nameOf(c.subject.possessor) : nameOf(c.subject);
  let target = nameOf(c.object);
  if (!source || !target || nameKey(source) === nameKey(target)) return;
  let known = kindIn(st, target);
  // "Tom is my brother": Tom is the speaker's sibling
  const kin = (c.relation === "is" || c.relation === "is_a") && c.object.possessor ? kinRelation(c.object.text) : null;
  const owner = kin && c.object.possessor ? nameOf(c.object.possessor) : null;
  // "Globex is on the Team plan", "runs Envoy 1.28", "has 40 seats": the value's slot is the relation
  const value = changed || kin ? null : valueSlot(c);
  if (value?.object) target = nameOf(value.object);
  let assertion: Assertion | null = changed
    ? { relation: changed.relation, polarity: "positive", aspect: "starts" }
    : kin && owner
      ? { relation: kin, polarity: "positive", aspect: "holds" }
      : value
        ? assertionOf({ ...c, relation: value.relation, starts: c.starts || value.starts }, st.table, cx.cues, known)
        : assertionOf(c, st.table, cx.cues, known);
  if (kin && owner) {
    target = owner;
    known = "person";
  }
  if (!assertion) return;
  // "Luis and Maria got married": only a symmetric relation makes the two subjects each other's object
  if (c.reciprocal && !st.table.info(assertion.relation).symmetric) return;
  if (assertion.relation.startsWith("not_")) assertion = { ...assertion, relation: assertion.relation.slice(4), polarity: "negative" };
  // "Ada sold her bakery": what one owns is named without its owner, as "Ada owns a bakery" named it
  const ending = assertion.aspect === "ends" || assertion.polarity === "negative";
  if ((assertion.relation === "owns" || ending) && c.object.possessor?.pronoun && nameOf(c.object.possessor) === source)
    target = nameOf({ ...c.object, possessor: null }) ?? target;
  if (!target) return;
  // "he is in Gothenburg now": where a person is, is where they live
  const personSubject = kindIn(st, source) === "person" || (c.subject.pronoun !== null && THIRD_PERSON.has(c.subject.pronoun));
  // "Bruno is in a jazz band": being in a group is membership, not a place
  if (assertion.relation === "located_in" && c.relation === "is_in" && !c.object.proper && MEMBERS_OF.test(c.object.text)) {
    assertion = { ...assertion, relation: "member_of" };
    known = "organization";
  } else if (assertion.relation === "located_in" && c.relation === "is_in" && personSubject && !namesOrganisation(source))
    assertion = { ...assertion, relation: "lives_in" };
  const { relation } = assertion;
  // "resigned from Oracle": the preposition made a place of it, the relation says employer
  if (known === "place" && TARGET_KIND[relation] === "organization" && !PLACES.has(target.toLowerCase())) {
    known = "organization";
    const entity = st.entities.get(nameKey(target));
    if (entity) entity.kind = known;
  }
  const subjectPronoun = c.subject.pronoun && !FIRST_PERSON.has(c.subject.pronoun) ? { word: c.subject.pronoun, name: source } : null;
  const targetKind = known !== "other" ? known : (TARGET_KIND[relation] ?? "other");
  addEntity(
    st,
    source,
    kindIn(st, source) !== "other"
      ? kindIn(st, source)
      : // a role's holder ("cto_of", "on_call_for") is a person, as the subject of "lives_in" is
        (PERSON_SUBJECT.has(relation) || (c.role && /_(of|at|for)$/.test(relation))) && c.subject.proper
        ? "person"
        : "other",
  );
  addEntity(st, target, targetKind);
  const fact = standalone(sentence.text, speaker, subjectPronoun);
  // "My husband Murat and I got married in 2016": the dated statement replaces the relative's undated one
  const said = cx.relatives.get(`${nameKey(source)}\u0000${relation}\u0000${nameKey(target)}`);
  if (said !== undefined) st.facts.splice(st.facts.indexOf(said), 1);
  st.facts.push({
    source,
    relation,
    target,
    fact,
    // a schedule's own days are no start: "is every second Monday" holds from the telling, not from next Monday
    validFrom: c.schedule ? null : when.from,
    validUntil: when.until,
    targetKind,
    polarity: assertion.polarity,
    aspect: assertion.aspect,
    ...(isGeneric(c.object) && !kin && !c.role && !value ? { generic: true } : {}),
  });
  for (const np of [c.subject, c.object])
    if (np.describedAs) {
      const n = nameOf(np);
      if (n)
        st.facts.push({
          source: n,
          relation: "is_a",
          target: np.describedAs,
          fact: standalone(sentence.text, speaker, null),
          validFrom: when.from,
          validUntil: null,
        });
    }
}

/** The value slot a clause's object names (values.ts), or the address a numbered street is. */
function valueSlot(c: Clause): ValueAssertion | null {
  if (isAddress(c.relation, c.object)) return { relation: "address", object: null, starts: false };
  return valueAssertion(c.relation, c.verb.main?.lemma ?? null, c.object);
}

/** What the analysis of an episode depends on: its text, reference time and speaker. */
export const analysisKey = (input: AnalysisInput) =>
  `${input.occurredAt}\u0000${typeof input.metadata.speaker === "string" ? input.metadata.speaker : ""}\u0000${input.content}`;

export interface NlpExtractorOptions {
  /** Relations and verb patterns of the host's own, added to the built-in table. */
  relations?: readonly RelationSpec[];
}

export function nlpExtractor(options: NlpExtractorOptions = {}): Extractor {
  const relations = options.relations?.length ? options.relations : undefined;
  // extractEntities and extractFacts see the same episode one after the other: analyse it once
  let cached: { key: string; analysis: Analysis } | null = null;
  const analysis = (input: ExtractionInput) => {
    const key = analysisKey(input);
    if (cached?.key !== key) cached = { key, analysis: analyseEpisode(relations ? { ...input, relations } : input) };
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
