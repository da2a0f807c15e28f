// Shallow chunking of a tagged sentence: noun phrases (with possessor and "named X" appositions),
// verb groups (auxiliaries, negation, particle, "to"-complements), prepositions, adjectives and
// connectives. Clause patterns (clauses.ts) read these chunks instead of raw tokens.
import type { Token } from "./parse.js";

export interface NounPhrase {
  type: "np";
  tokens: Token[];
  /** Words of the phrase without leading determiners, e.g. "billing service". */
  text: string;
  /** Lower-case leading determiner ("a", "the") when there was one. */
  det: string | null;
  /** "Liam" in "Liam's favourite band"; "my" in "my sister" (a pronoun, resolved later). */
  possessor: NounPhrase | null;
  /** A personal or relative pronoun standing alone ("she", "I", "it"). */
  pronoun: string | null;
  proper: boolean;
  /** "a dog named Biscuit": the phrase is "Biscuit", described as "dog". */
  describedAs: string | null;
}

export interface VerbGroup {
  type: "vg";
  tokens: Token[];
  /** Main (lexical) verb: the last non-auxiliary verb, or null for a bare copula. */
  main: Token | null;
  /** Verbs before a "to" complement ("wants to learn"): lemmas in order. */
  chain: string[];
  be: boolean;
  negated: boolean;
  passive: boolean;
  particle: string | null;
}

export type Chunk =
  | NounPhrase
  | VerbGroup
  | { type: "prep"; token: Token }
  | { type: "adj"; tokens: Token[]; text: string }
  | { type: "conj"; token: Token }
  | { type: "comma"; token: Token }
  | { type: "rel"; token: Token }
  | { type: "date"; tokens: Token[] }
  | { type: "stop"; token: Token };

const POSSESSIVE = new Set(["my", "your", "his", "her", "its", "our", "their"]);
const PERSONAL = new Set(["i", "me", "you", "he", "him", "she", "it", "we", "us", "they", "them", "myself", "himself", "herself"]);
const RELATIVE = new Set(["who", "which", "that", "whom"]);
const DETERMINERS = new Set(["a", "an", "the", "some", "this", "that", "these", "those", "every", "each", "any", "another"]);
const PARTICLES = new Set(["out", "up", "off", "down", "away", "back", "over", "on"]);
const NEGATION = new Set(["not", "n't", "never", "no", "no longer"]);
/** Verbs whose "-ing" complement names the relation: "stopped working at", "started living in". */
const ASPECTUAL = new Set(["stop", "quit", "cease", "start", "begin", "resume", "finish"]);
const NOMINAL = new Set(["NOUN", "PROPN", "NUM"]);
/** Verbs of aspect before "to be" ("used to be", "started to be"): the group stays a copula with its aspect. */
const ASPECT_BE = new Set(["use", "start", "begin", "continue"]);
/** Participles that do not end in -ed/-en but still make a passive ("is led by", "was built by"). */
const IRREGULAR_PARTICIPLES = new Set([
  "led",
  "built",
  "made",
  "held",
  "run",
  "kept",
  "sold",
  "bought",
  "taught",
  "brought",
  "caught",
  "thought",
  "found",
  "paid",
  "sent",
  "spent",
  "left",
  "lost",
  "met",
  "read",
  "set",
  "put",
  "cut",
  "shut",
  "hit",
  "told",
  "done",
  "won",
]);

const isParticiple = (t: Token) =>
  !t.lower.endsWith("ing") && (/(ed|en|wn|ne)$/.test(t.lower) || IRREGULAR_PARTICIPLES.has(t.lower) || t.lower !== t.lemma);

function phraseText(tokens: Token[]): string {
  let s = "";
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    // hyphenated compounds come as three tokens ("on", "-", "call"): keep them joined
    const glued = t.text === "-" || tokens[k - 1]?.text === "-";
    s += (k === 0 || glued ? "" : " ") + t.text;
  }
  return s;
}

function makeNp(tokens: Token[], possessor: NounPhrase | null): NounPhrase {
  let body = tokens;
  let det: string | null = null;
  while (body.length > 1 && (DETERMINERS.has(body[0]!.lower) || body[0]!.pos === "DET")) {
    det ??= body[0]!.lower;
    body = body.slice(1);
  }
  const single = body.length === 1 ? body[0]! : null;
  const pronoun = single && (single.pos === "PRON" || PERSONAL.has(single.lower)) ? single.lower : null;
  return {
    type: "np",
    tokens,
    text: phraseText(body),
    det,
    possessor,
    pronoun,
    proper: body.some((t) => t.pos === "PROPN"),
    describedAs: null,
  };
}

const startsNp = (t: Token) =>
  !t.date &&
  (NOMINAL.has(t.pos) ||
    t.pos === "DET" ||
    t.pos === "ADJ" ||
    (t.pos === "PRON" && (POSSESSIVE.has(t.lower) || PERSONAL.has(t.lower))) ||
    (t.pos === "VERB" && t.lower.endsWith("ing")));

/** "coaching" -> "coach", "running" -> "run": the stem of an -ing form (a silent "e" is not restored). */
const ingStem = (w: string) => {
  const stem = w.slice(0, -3);
  return /([^aeiouls])\1$/.test(stem) ? stem.slice(0, -1) : stem;
};

/** "lives" -> "live", "studies" -> "study": the base form of a present-tense verb the tagger took for a plural. */
function deinflect(word: string): string {
  const w = word.toLowerCase();
  if (w.endsWith("ies") && w.length > 4) return `${w.slice(0, -3)}y`;
  if (/(ss|sh|ch|x|z|o)es$/.test(w)) return w.slice(0, -2);
  if (w.endsWith("s") && !w.endsWith("ss")) return w.slice(0, -1);
  return w;
}

/**
 * Tokens the tagger split or mis-tagged, put back together: hyphenated compounds, "no longer", currency amounts,
 * addresses and URLs, a name's apostrophe or capitalised particle; a floating "both"/"all" is dropped.
 */
function joinTokens(input: Token[]): Token[] {
  const tokens: Token[] = [];
  for (let k = 0; k < input.length; k++) {
    const t = input[k]!;
    const prev = tokens[tokens.length - 1];
    const next = input[k + 1];
    if (t.text === "-" && prev && next && prev.end === t.start && t.end === next.start && /^[\p{L}\p{N}]/u.test(next.text)) {
      const text = `${prev.text}-${next.text}`;
      tokens[tokens.length - 1] = {
        ...prev,
        text,
        lower: text.toLowerCase(),
        lemma: text.toLowerCase(),
        // "Hyun-woo", "Jean-Luc": a capitalised first part keeps the compound a name
        pos: prev.pos === "PROPN" && /^\p{Lu}/u.test(prev.text) ? "PROPN" : NOMINAL.has(next.pos) ? "NOUN" : "ADJ",
        end: next.end,
        date: false,
      };
      k++;
      continue;
    }
    // "no longer", "any more", "any longer": one adverb of change (the negation of "no longer" rides on the verb)
    if (/^(no|any)$/.test(t.lower) && next && /^(longer|more)$/.test(next.lower) && !(t.lower === "no" && next.lower === "more")) {
      const text = `${t.text} ${next.text}`;
      tokens.push({ ...t, i: tokens.length, text, lower: text.toLowerCase(), lemma: text.toLowerCase(), pos: "ADV", end: next.end });
      k++;
      continue;
    }
    // "$49", "€15": a currency sign and its amount are one number
    if (t.pos === "SYM" && /^[$€£¥]$/.test(t.text) && next?.pos === "NUM" && t.end === next.start) {
      tokens.push({ ...next, i: tokens.length, text: t.text + next.text, lower: t.text + next.lower, start: t.start });
      k++;
      continue;
    }
    // an address, a handle or a URL the tagger leaves as a symbol is a name: "changed to z@new.io"
    if ((t.pos === "SYM" || t.pos === "X" || t.pos === "NOUN") && /^[\w.+-]+@[\w-]+(\.[\w-]+)+$|^https?:\/\//.test(t.text)) {
      tokens.push({ ...t, i: tokens.length, pos: "PROPN" });
      continue;
    }
    // "Jorge and Ana both work at": a floating quantifier after the subject says nothing of the relation
    if (
      /^(both|all)$/.test(t.lower) &&
      prev &&
      /^(NOUN|PROPN|PRON)$/.test(prev.pos) &&
      next &&
      /^(NOUN|VERB|AUX|ADV)$/.test(next.pos) &&
      k > 2
    )
      continue;
    // "St Thomas' Hospital": the apostrophe of a name ending in s stays in the name
    if (
      /^['’]$/.test(t.text) &&
      prev?.pos === "PROPN" &&
      /s$/.test(prev.text) &&
      prev.end === t.start &&
      next &&
      /^\p{Lu}/u.test(next.text)
    ) {
      tokens[tokens.length - 1] = { ...prev, text: prev.text + t.text, lower: prev.lower + t.text, end: t.end };
      continue;
    }
    // "Li Na": a capitalised word after a name, whatever the tagger made of it, is the name's
    if (/^(PART|ADV|X|INTJ)$/.test(t.pos) && prev?.pos === "PROPN" && /^\p{Lu}\p{Ll}+$/u.test(t.text)) {
      tokens.push({ ...t, i: tokens.length, pos: "PROPN" });
      continue;
    }
    tokens.push({ ...t, i: tokens.length });
  }
  return tokens;
}

/**
 * Repairs before chunking: tokens joined (joinTokens), then verbs and nouns the tagger swapped.
 * A sentence with no verb before a noun-after-noun ("Victor studies law", "Oliver reports to Grace")
 * gets that noun back as its verb: the lite tagger reads such present-tense verbs as plurals.
 */
function repair(input: Token[]): Token[] {
  const tokens = joinTokens(input);
  nounsAfterVerb(tokens);
  for (let k = 1; k < tokens.length; k++) {
    const t = tokens[k]!;
    const prev = tokens[k - 1]!;
    // "has been coaching the class", "stopped teaching the class": an -ing word the tagger read as a noun after a form
    // of "be" or an aspect verb, before an article
    const aspect = prev.pos === "VERB" && ASPECTUAL.has(prev.lemma);
    if (
      t.pos === "NOUN" &&
      /ing$/.test(t.lower) &&
      (aspect || /^(is|are|was|were|been|be|am)$/.test(prev.lower)) &&
      tokens[k + 1]?.pos === "DET"
    )
      tokens[k] = { ...t, pos: "VERB", lemma: ingStem(t.lower) };
    // "retired from Ford": a capitalised word the tagger read as a verb after a preposition is a name
    if (t.pos === "VERB" && /^\p{Lu}/u.test(t.text) && (prev.pos === "ADP" || prev.pos === "DET" || prev.lower === "to"))
      tokens[k] = { ...t, pos: "PROPN" };
    // "appointed Omar Said as CEO": a capitalised word read as a verb after a name, once the sentence has its verb
    else if (
      t.pos === "VERB" &&
      /^\p{Lu}\p{Ll}/u.test(t.text) &&
      prev.pos === "PROPN" &&
      tokens.slice(0, k - 1).some((x) => x.pos === "VERB")
    )
      tokens[k] = { ...t, pos: "PROPN" };
  }
  // "Basic seats cost €15": a noun before an amount of money is the verb ("costs", "charges"), before any other
  const priced = tokens.findIndex(
    (t, k) => k > 0 && t.pos === "NOUN" && /^[$€£¥]\d/.test(tokens[k + 1]?.text ?? "") && /^(NOUN|PROPN|X)$/.test(tokens[k - 1]!.pos),
  );
  if (priced > 0 && !tokens.slice(0, priced).some((x) => x.pos === "VERB" || x.pos === "AUX"))
    tokens[priced] = { ...tokens[priced]!, pos: "VERB", lemma: deinflect(tokens[priced]!.text) };
  for (let k = 1; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (tokens.slice(0, k).some((x) => x.pos === "VERB" || x.pos === "AUX")) break;
    const prev = tokens[k - 1]!;
    const next = tokens[k + 1];
    // "Joe retired from Ford": a participle read as an adjective after a name, before a preposition
    // "Jun married Hiro": or between two names
    if (
      t.pos === "ADJ" &&
      /ed$/.test(t.lower) &&
      prev.pos === "PROPN" &&
      (next?.pos === "ADP" || next?.pos === "DET" || next?.pos === "PROPN")
    ) {
      const lemma = /ied$/.test(t.lower)
        ? t.lower.replace(/ied$/, "y")
        : /([iuo]r|[iao]v|[ao]s|[iu]z|[ai]g|[ai]c|rc|at|ut|ot|[^aeiou]l)ed$/.test(t.lower)
          ? t.lower.slice(0, -1)
          : t.lower.slice(0, -2);
      tokens[k] = { ...t, pos: "VERB", lemma };
      break;
    }
    if (t.pos !== "NOUN" || (prev.pos !== "NOUN" && prev.pos !== "PROPN")) continue;
    const opensArgument =
      next !== undefined &&
      (next.pos === "ADP" ||
        next.pos === "DET" ||
        next.pos === "PRON" ||
        next.pos === "NUM" ||
        (next.lower === "to" && tokens[k + 2]?.pos === "PROPN"));
    const verbFollows = next !== undefined && (next.pos === "VERB" || next.pos === "AUX" || next.pos === "PART" || next.pos === "PUNCT");
    const pluralAfterSingular = t.lower.endsWith("s") && !prev.lower.endsWith("s") && (prev.pos === "PROPN" || next?.pos === "NOUN");
    if (opensArgument || (pluralAfterSingular && next !== undefined && !verbFollows)) {
      tokens[k] = { ...t, pos: "VERB", lemma: deinflect(t.text) };
      break;
    }
  }
  return tokens;
}

/**
 * "leads the infra team.": a base-form word read as a verb after an article and a noun, at the end of the phrase
 * (before a stop or a preposition), once the sentence has its verb, is the phrase's noun.
 */
function nounsAfterVerb(tokens: Token[]): void {
  let verbSeen = false;
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    const ends = tokens[k + 1] === undefined || /^(PUNCT|ADP)$/.test(tokens[k + 1]!.pos);
    if (
      verbSeen &&
      t.pos === "VERB" &&
      t.lower === t.lemma &&
      ends &&
      /^(NOUN|ADJ|ADV|X|PROPN)$/.test(tokens[k - 1]?.pos ?? "") &&
      tokens[k - 2]?.pos === "DET"
    )
      tokens[k] = { ...t, pos: "NOUN" };
    if (t.pos === "VERB") verbSeen = true;
  }
}

/** Chunks of one sentence, in order. */
export function chunk(input: Token[]): Chunk[] {
  const tokens = repair(input);
  const out: Chunk[] = [];
  let k = 0;
  while (k < tokens.length) {
    const t = tokens[k]!;
    if (t.date) {
      k = readDate(tokens, k, out);
      continue;
    }
    // relative pronoun right after a noun phrase: "a painter who loves camping"
    const beforeRel = out[out.length - 1]?.type === "comma" ? out[out.length - 2] : out[out.length - 1];
    if (RELATIVE.has(t.lower) && beforeRel?.type === "np" && (t.pos === "PRON" || t.pos === "DET" || t.pos === "SCONJ")) {
      // "Ravi, who runs marathons": drop the comma so the pronoun sits next to its antecedent
      if (out[out.length - 1]?.type === "comma") out.pop();
      out.push({ type: "rel", token: t });
      k++;
      continue;
    }
    if (
      t.pos === "PRON" &&
      PERSONAL.has(t.lower) &&
      !(t.lower === "her" && tokens[k + 1] && startsNp(tokens[k + 1]!) && tokens[k + 1]!.pos !== "PRON")
    ) {
      out.push(makeNp([t], null));
      k++;
      continue;
    }
    const prevVerb = out[out.length - 1]?.type === "vg" ? (out[out.length - 1] as VerbGroup) : null;
    const gerundObject = t.pos === "VERB" && t.lower.endsWith("ing") && prevVerb !== null && prevVerb.main !== null;
    if (startsNp(t) && (t.pos !== "VERB" || gerundObject)) {
      k = readNounPhrase(tokens, k, out);
      continue;
    }
    if (t.pos === "AUX" || t.pos === "VERB" || (t.pos === "PART" && NEGATION.has(t.lower))) {
      k = readVerbGroup(tokens, k, out);
      continue;
    }
    pushWord(t, out);
    k++;
  }
  nounForLeadingVerb(out);
  mergeNamed(out);
  return out;
}

// The readers below take the position of the token that opens their chunk, push what they read onto
// `out` and return the position after it: one pass over the sentence, no token copied twice.

/** A run of date tokens becomes one date chunk. */
function readDate(tokens: Token[], k: number, out: Chunk[]): number {
  const span: Token[] = [];
  while (k < tokens.length && tokens[k]!.date) span.push(tokens[k++]!);
  out.push({ type: "date", tokens: span });
  return k;
}

/** A noun phrase with its possessors ("Liam's favourite band", "my sister"), or an adjective phrase. */
function readNounPhrase(tokens: Token[], k: number, out: Chunk[]): number {
  let span: Token[] = [];
  let possessor: NounPhrase | null = null;
  while (k < tokens.length) {
    const n = tokens[k]!;
    if (n.date) break;
    if (n.pos === "PART" && (n.lower === "'s" || n.lower === "’s" || n.lower === "'")) {
      if (span.length) possessor = makeNp(span, possessor);
      span = [];
      k++;
      continue;
    }
    if (n.pos === "PRON" && POSSESSIVE.has(n.lower) && !span.length) {
      possessor = makeNp([n], null);
      k++;
      continue;
    }
    const inside =
      NOMINAL.has(n.pos) ||
      n.pos === "ADJ" ||
      (n.pos === "DET" && !span.length) ||
      // the lite tagger's misses inside a phrase: "the new flow" (ADV), "the Pro plan" (X)
      (n.pos === "X" && /^\p{Lu}/u.test(n.text)) ||
      // "18 Via Roma": a street's capitalised word after its house number, whatever its tag
      (n.pos === "ADP" && /^\p{Lu}/u.test(n.text) && span.length === 1 && span[0]!.pos === "NUM" && tokens[k + 1]?.pos === "PROPN") ||
      (n.pos === "ADV" && span[span.length - 1]?.pos === "DET" && /^(NOUN|PROPN|ADJ|VERB)$/.test(tokens[k + 1]?.pos ?? "")) ||
      (n.pos === "VERB" && n.lower.endsWith("ing") && (!span.length || NOMINAL.has(tokens[k + 1]?.pos ?? ""))) ||
      (n.text === "-" && span.length > 0 && tokens[k + 1] !== undefined && /^[\p{L}\p{N}]/u.test(tokens[k + 1]!.text)) ||
      (span.length > 0 && span[span.length - 1]!.text === "-");
    if (!inside) break;
    span.push(n);
    k++;
  }
  if (!span.length && possessor) {
    // "her" alone after all: an object pronoun
    out.push(possessor);
    return k;
  }
  const last = span[span.length - 1];
  if (last && last.pos === "ADJ" && !span.some((x) => NOMINAL.has(x.pos)) && !possessor) {
    out.push({ type: "adj", tokens: span, text: phraseText(span.filter((x) => x.pos !== "DET")) });
    return k;
  }
  if (!span.length) return k + 1;
  // a lone article before a date ("on the last day of the month"): the date is the phrase
  if (span.length === 1 && span[0]!.pos === "DET" && !possessor) return k;
  out.push(makeNp(span, possessor));
  return k;
}

/** Auxiliaries, negation, the main verb, a "to"-complement chain and a particle; a stop when none of them is there. */
function readVerbGroup(tokens: Token[], k: number, out: Chunk[]): number {
  const t = tokens[k]!;
  const span: Token[] = [];
  const chain: string[] = [];
  let main: Token | null = null;
  while (k < tokens.length) {
    const n = tokens[k]!;
    if (n.date) break;
    if (n.pos === "AUX" || (n.pos === "PART" && NEGATION.has(n.lower))) {
      if (main) break;
    } else if (n.pos === "VERB") {
      // a second verb right after a main verb is its object ("loves camping"), unless after "to" or an aspectual
      // verb ("stopped working at", "started living in"): then the second verb is the relation
      const aspectual = main && ASPECTUAL.has(main.lemma) && n.lower.endsWith("ing") && span[span.length - 1] === main;
      if (main && !(span[span.length - 1]?.lower === "to") && !aspectual) break;
      if (main) chain.push(main.lemma);
      main = n;
    } else if (n.pos === "ADV" && !main && tokens[k + 1] && (tokens[k + 1]!.pos === "VERB" || tokens[k + 1]!.pos === "AUX")) {
      // "has recently moved"
    } else if (n.lower === "to" && main && !chain.length && ASPECT_BE.has(main.lemma) && tokens[k + 1]?.lemma === "be") {
      // "used to be on the Starter plan": the aspect verb goes to the chain, the group is a copula
      chain.push(main.lemma);
      main = null;
      span.push(n, tokens[k + 1]!);
      k += 2;
      continue;
    } else if (n.lower === "to" && main && tokens[k + 1]?.pos === "VERB") {
      // "wants to learn"
    } else if (n.lower === "never" || n.lower === "not" || n.lower === "no longer") {
      // negation inside the group
    } else break;
    span.push(n);
    k++;
  }
  if (!span.length) {
    out.push({ type: "stop", token: t });
    return k + 1;
  }
  let particle: string | null = null;
  const p = tokens[k];
  if (main && p && (p.pos === "ADP" || p.pos === "ADV") && PARTICLES.has(p.lower)) {
    const after = tokens[k + 1];
    // "go out on Tuesdays", "set up the runner": a particle; "went on holiday" stays a preposition
    // "broke up last year", "moved out.": a particle before a date or the end too, unless it can open a time ("on")
    const closes = !after || after.pos === "PUNCT" || (after.date && !/^(on|over)$/.test(p.lower));
    if (p.pos === "ADV" || closes || after.pos === "ADP" || after.pos === "DET") {
      particle = p.lower;
      span.push(p);
      k++;
    }
  }
  const be = span.some((x) => x.lemma === "be" && x.pos === "AUX");
  // a bare "has"/"have" is the main verb of possession
  if (!main) {
    const have = [...span].reverse().find((x) => x.lemma === "have" || x.lemma === "do");
    if (have && !be) main = have;
  }
  out.push({
    type: "vg",
    tokens: span,
    main,
    chain,
    be,
    negated: span.some((x) => NEGATION.has(x.lower)),
    passive: be && main !== null && isParticiple(main) && main.lemma !== "be",
    particle,
  });
  return k;
}

/** Prepositions, connectives, commas and stops; adverbs, interjections and symbols carry no argument and are skipped. */
function pushWord(t: Token, out: Chunk[]): void {
  if (
    t.pos === "ADP" ||
    (t.pos === "SCONJ" && /^(since|until|till|because|while|after|before|as|like)$/.test(t.lower)) ||
    t.lower === "to"
  ) {
    out.push({ type: "prep", token: t });
  } else if (t.pos === "CCONJ") out.push({ type: "conj", token: t });
  else if (t.text === ",") out.push({ type: "comma", token: t });
  else if (t.pos === "PUNCT" || t.pos === "SCONJ") out.push({ type: "stop", token: t });
}

/** A sentence-initial plural noun the tagger read as a verb: "Deploys go out on Tuesdays". */
function nounForLeadingVerb(out: Chunk[]): void {
  const first = out[0];
  if (first?.type === "vg" && first.tokens.length === 1 && first.main?.pos === "VERB" && out[1]?.type === "vg") {
    out[0] = { ...makeNp(first.tokens, null), proper: false };
  }
}

/** "a dog named Biscuit": the name is the thing, the common noun describes it. */
function mergeNamed(out: Chunk[]): void {
  for (let n = 0; n + 2 < out.length; n++) {
    const a = out[n]!;
    const v = out[n + 1]!;
    const b = out[n + 2]!;
    if (
      a.type === "np" &&
      v.type === "vg" &&
      v.tokens.length === 1 &&
      /^(named|called)$/.test(v.tokens[0]!.lower) &&
      b.type === "np" &&
      b.proper &&
      !a.pronoun
    ) {
      out.splice(n, 3, { ...b, tokens: [...a.tokens, ...v.tokens, ...b.tokens], possessor: a.possessor, describedAs: a.text });
    }
  }
}
