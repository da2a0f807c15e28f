// Tokens of an English text from wink-nlp (part of speech, lemma, character offsets), split into
// sentences, with the date expressions wink's recogniser finds marked so they never become nouns.

import model from "wink-eng-lite-web-model";
import winkNLP, { type ItemEntity, type ItemSentence } from "wink-nlp";

export interface Token {
  /** Index in its sentence. */
  i: number;
  text: string;
  lower: string;
  /** Universal Dependencies part of speech (NOUN, PROPN, VERB, AUX, ADP, ...). */
  pos: string;
  lemma: string;
  start: number;
  end: number;
  /** Inside a date or duration expression ("last March", "from 2020 until 2030"). */
  date: boolean;
  /** A month or weekday word read as a person's name ("April leads the design team", "May reports to June"). */
  name?: boolean;
}

export interface Sentence {
  text: string;
  start: number;
  tokens: Token[];
}

let instance: ReturnType<typeof winkNLP> | undefined;
/** The model loads once per process (about 100 ms); extraction stays synchronous after that. */
const nlp = () => (instance ??= winkNLP(model, ["sbd", "pos", "ner", "negation"]));

const DATE_TYPES = new Set(["DATE", "DURATION", "TIME"]);

export function parse(text: string): Sentence[] {
  const w = nlp();
  const its = w.its;
  const doc = w.readDoc(text);
  const values = doc.tokens().out(its.value) as string[];
  const pos = doc.tokens().out(its.pos) as string[];
  // wink's typings give the lemma helper an add-ons parameter its own `out` signature does not accept
  const lemmas = doc.tokens().out(its.lemma as unknown as typeof its.value) as string[];
  const spaces = doc.tokens().out(its.precedingSpaces) as string[];
  const dateTokens = new Set<number>();
  doc.entities().each((e: ItemEntity) => {
    if (!DATE_TYPES.has(e.out(its.type) as string)) return;
    const [a, b] = e.out(its.span) as unknown as [number, number];
    for (let k = a; k <= b; k++) dateTokens.add(k);
  });
  // character offsets: wink keeps the whitespace before each token, so offsets add up exactly
  const starts: number[] = [];
  let at = 0;
  for (let k = 0; k < values.length; k++) {
    at += spaces[k]!.length;
    const found = text.indexOf(values[k]!, at);
    const s = found >= 0 && found - at <= 2 ? found : at;
    starts.push(s);
    at = s + values[k]!.length;
  }
  const out: Sentence[] = [];
  doc.sentences().each((s: ItemSentence) => {
    const [a, b] = s.out(its.span) as unknown as [number, number];
    const tokens: Token[] = [];
    for (let k = a; k <= b; k++) {
      tokens.push({
        i: k - a,
        text: values[k]!,
        lower: values[k]!.toLowerCase(),
        pos: pos[k]!,
        lemma: lemmas[k]!,
        start: starts[k]!,
        end: starts[k]! + values[k]!.length,
        date: dateTokens.has(k),
      });
    }
    if (!tokens.length) return;
    markDates(tokens);
    markLeadingName(tokens);
    markDoSupport(tokens);
    const start = tokens[0]!.start;
    out.push({ text: text.slice(start, tokens[tokens.length - 1]!.end), start, tokens });
  });
  return out;
}

const MONTHS =
  /^(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)$/;
const WEEKDAY_OR_MONTH =
  /^(monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december)$/;
/** Words after which a month is a date: "in May", "since June", "last April", "May to June" after "from". */
const TEMPORAL_BEFORE =
  /^(in|on|by|until|till|til|since|from|during|through|thru|before|after|last|next|this|early|late|mid|of|every|each|around|about|between|and|or|-|,)$/;
/** Verbs and adjectives whose "to" takes a person: "reports to June", "married to April". */
const PERSON_TO =
  /^(reports?|reported|reporting|talk(s|ed)?|speaks?|spoke|write|writes|wrote|married|engaged|introduced|sent|gave|give|gives|listen(s|ed)?|replied|belongs?|belonged|related|close|kind|nice|engaged)$/;
const SEASONAL = /^(spring|summer|fall|autumn|winter|week|weekend|month|year|quarter|semester|term)$/;
const RECURRING_UNIT =
  /^(night|nights|morning|mornings|day|days|evening|evenings|week|weeks|weekday|weekdays|weekend|weekends|month|months|year|years|hour|hours|quarter|quarters|sprint|sprints|monday|tuesday|wednesday|thursday|friday|saturday|sunday)$/;

/**
 * Date marks the recogniser gets wrong. A month word in a clause's subject or object position is a name ("April
 * leads the design team", "May reports to June"), not a date: it is one when a temporal word or a number stands
 * beside it. "last spring" and "every night" are dates it misses.
 */
function markDates(tokens: Token[]): void {
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    const prev = tokens[k - 1];
    const next = tokens[k + 1];
    // "the Saturday judo class", "the May release": a day or month between an article and a noun names the thing
    if (
      t.date &&
      WEEKDAY_OR_MONTH.test(t.lower) &&
      prev?.pos === "DET" &&
      !prev.date &&
      next &&
      /^(NOUN|PROPN)$/.test(next.pos) &&
      !next.date
    ) {
      tokens[k] = { ...t, date: false, pos: "PROPN" };
      continue;
    }
    if (t.date && /^\p{Lu}/u.test(t.text) && MONTHS.test(t.lower)) {
      const prevDated = prev !== undefined && (prev.date || TEMPORAL_BEFORE.test(prev.lower) || prev.pos === "NUM");
      const nextDated = next !== undefined && (next.pos === "NUM" || /^\d/.test(next.text) || (next.date && next.text !== "."));
      const toPerson =
        prev?.lower === "to" && PERSON_TO.test(tokens[k - 2]?.lower ?? "") && !tokens.slice(0, k).some((x) => x.lower === "from");
      const fromRange = prev?.lower === "to" && !toPerson;
      if ((!prevDated && !nextDated && !fromRange) || (toPerson && !nextDated)) {
        tokens[k] = { ...t, date: false, pos: "PROPN", name: true };
        continue;
      }
    }
    if (!t.date && /^(last|this|next|early|late)$/.test(t.lower) && next && SEASONAL.test(next.lower)) {
      t.date = true;
      next.date = true;
    }
    if (/^(every|each)$/.test(t.lower) && next && (next.date || RECURRING_UNIT.test(next.lower))) {
      t.date = true;
      next.date = true;
    }
  }
}

/** A finite verb form after a subject: "works", "studies", "is", "has" (never after a modal or an imperative). */
const FINITE = /^(is|was|has|does)$|[^s]s$/;
const SEASON_OR_MONTH =
  /^(spring|summer|autumn|fall|winter|january|february|march|april|may|june|july|august|september|october|november|december)$/;

/**
 * A capitalised first word the tagger read as a verb, a modal or a date, followed by a finite verb, is the subject's
 * name: "Will works at Barclays" (a modal never precedes "works"), "Hope studies at McGill", "Rose lives in Porto",
 * "Summer plays the drums". The finite verb may be tagged a plural noun when a preposition or article follows it.
 */
function markLeadingName(tokens: Token[]): void {
  const [t, next, after] = tokens;
  if (!t || !next || !/^\p{Lu}\p{Ll}+$/u.test(t.text)) return;
  const misread = t.pos === "VERB" || t.pos === "AUX" || (t.date && SEASON_OR_MONTH.test(t.lower) && next.lower !== "is");
  if (!misread || !FINITE.test(next.lower)) return;
  const verbAfter =
    next.pos === "VERB" || next.pos === "AUX" || (next.pos === "NOUN" && after !== undefined && /^(ADP|DET|PART)$/.test(after.pos));
  if (verbAfter) tokens[0] = { ...t, pos: "PROPN", date: false, name: true };
}

/**
 * The word after do-support and its negation is a bare verb, whatever the tagger read: "doesn't own a Tesla",
 * "didn't really own it" (the tagger reads "own" as an adjective there).
 */
function markDoSupport(tokens: Token[]): void {
  for (let k = 0; k + 1 < tokens.length; k++) {
    if (!/^(do|does|did)$/.test(tokens[k]!.lower) || tokens[k]!.pos !== "AUX") continue;
    let j = k + 1;
    if (!/^(not|n't|never)$/.test(tokens[j]!.lower)) continue;
    j++;
    if (tokens[j]?.pos === "ADV" && tokens[j + 1]) j++;
    const t = tokens[j];
    if (t && /^(ADJ|NOUN)$/.test(t.pos) && /^\p{Ll}+$/u.test(t.text) && /^(DET|PROPN|NOUN|PRON|NUM|ADP)$/.test(tokens[j + 1]?.pos ?? "")) {
      tokens[j] = { ...t, pos: "VERB" };
    }
  }
}
