// The default extractor: offline, deterministic, no dependencies. Names come from capitalisation,
// word lists and context; facts from verb patterns around resolved mentions, with first-person
// pronouns attributed to the episode's speaker ("Alice: I moved to Berlin" -> Alice lives_in Berlin).
import type { EntityKind } from "../domain/types.js";
import { findDates } from "../text/dates.js";
import { nameKey } from "../text/names.js";
import { escapeRegExp } from "../text/tokenize.js";
import {
  COMMON_WORDS,
  FIRST_NAMES,
  HONORIFICS,
  MONTH_WORDS,
  ORG_WORDS,
  PERSON_INTRODUCERS,
  PLACE_WORDS,
  PLACES,
  PRODUCTS,
  WEEKDAY_WORDS,
} from "./lexicon.js";
import type { ExtractedEntity, ExtractedFact, ExtractionInput, Extractor } from "./types.js";

const SPEAKER_PREFIX = /^\s*([\p{Lu}][\p{L}'’.-]*(?:\s[\p{Lu}][\p{L}'’.-]*){0,2})\s*:\s+/u;

/** The speaker (metadata.speaker or a `Name: ` prefix) and the text without the prefix. */
export function splitSpeaker(content: string, metadata: Record<string, unknown>): { speaker: string | null; body: string; offset: number } {
  const m = SPEAKER_PREFIX.exec(content);
  const fromMeta = typeof metadata.speaker === "string" && metadata.speaker.trim() ? metadata.speaker.trim() : null;
  if (m && !COMMON_WORDS.has(m[1]!.toLowerCase()))
    return { speaker: fromMeta ?? m[1]!, body: content.slice(m[0].length), offset: m[0].length };
  return { speaker: fromMeta, body: content, offset: 0 };
}

export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=["'“(]?[\p{Lu}\d])|\n+/u)
    .map((s) => s.trim())
    .filter(Boolean);
}

interface Token {
  text: string;
  start: number;
  end: number;
  sentenceStart: boolean;
}

function tokens(text: string): Token[] {
  const out: Token[] = [];
  const re = /[\p{L}\p{N}][\p{L}\p{N}'’&.-]*[\p{L}\p{N}]|[\p{L}\p{N}]|[.!?;:,()"“”]/gu;
  let sentenceStart = true;
  for (const m of text.matchAll(re)) {
    const t = m[0];
    if (/^[.!?;:()"“”]$/.test(t)) {
      if (/[.!?:]/.test(t)) sentenceStart = true;
      out.push({ text: t, start: m.index!, end: m.index! + t.length, sentenceStart: false });
      continue;
    }
    if (t === ",") {
      out.push({ text: t, start: m.index!, end: m.index! + 1, sentenceStart: false });
      continue;
    }
    out.push({ text: t.replace(/['’]s$/, "").replace(/\.$/, ""), start: m.index!, end: m.index! + t.length, sentenceStart });
    sentenceStart = false;
  }
  return out;
}

const CONNECTORS = new Set(["of", "de", "du", "da", "del", "van", "von", "der", "la", "le", "&", "and"]);
const isCap = (t: string) => /^[\p{Lu}]/u.test(t) || /^[a-z]+[A-Z]/.test(t);
const isAcronym = (t: string) => /^[\p{Lu}]{2,6}$/u.test(t);
const lower = (t: string) => t.toLowerCase();
const ALWAYS_COMMON = /^(i|i'm|i've|i'd|i'll|im|ive|ok|okay|mom|dad|mum|god|omg|lol)$/i;
/** Capitalised common words are names only mid-sentence ("moved to Nice"), never at its start. */
const isCommon = (w: string, sentenceInitial: boolean) => ALWAYS_COMMON.test(w) || (sentenceInitial && COMMON_WORDS.has(lower(w)));

function classify(words: string[], before: string | undefined, after: string | undefined): EntityKind {
  const ls = words.map(lower);
  const last = ls[ls.length - 1]!;
  if (ls.some((w) => MONTH_WORDS.has(w) || WEEKDAY_WORDS.has(w)) && ls.length <= 2) return "date";
  if (HONORIFICS.has(ls[0]!)) return "person";
  if (ORG_WORDS.has(last) || ls.includes("&") || (ls.length === 1 && isAcronym(words[0]!))) return "organization";
  if (PLACE_WORDS.has(last) || ls.every((w) => PLACES.has(w) || CONNECTORS.has(w))) return "place";
  if (ls.some((w) => PRODUCTS.has(w)) || words.some((w) => /\d/.test(w) || /^[a-z]+[A-Z]/.test(w))) return "product";
  if (FIRST_NAMES.has(ls[0]!)) return "person";
  if (before && PERSON_INTRODUCERS.has(lower(before))) return "person";
  if (before && /^(in|from|near|to|visited|visit|around)$/i.test(before)) return "place";
  if (after && /^(said|says|told|thinks|lives|works|is|was|has|had|and)$/i.test(after) && ls.length <= 3) return "person";
  return "other";
}

/** Proper-noun mentions of a text with a guessed kind. */
export function findNames(text: string): ExtractedEntity[] {
  const ts = tokens(text);
  const out: ExtractedEntity[] = [];
  let i = 0;
  while (i < ts.length) {
    const t = ts[i]!;
    if (!isCap(t.text) || (isCommon(t.text, t.sentenceStart) && !ts[i + 1]?.text.match(/^[\p{Lu}]/u))) {
      i++;
      continue;
    }
    // a run of capitalised words, allowing inner connectors ("Bank of America")
    let j = i + 1;
    while (j < ts.length) {
      const n = ts[j]!;
      if (isCap(n.text) && !/^[.,;:!?()"“”]$/.test(n.text)) j++;
      else if (CONNECTORS.has(lower(n.text)) && ts[j + 1] && isCap(ts[j + 1]!.text) && !COMMON_WORDS.has(lower(ts[j + 1]!.text))) j += 2;
      else break;
    }
    let words = ts.slice(i, j).map((x) => x.text);
    // a sentence-initial common word glued to a name ("Yesterday Alice") is not part of it
    while (words.length > 1 && COMMON_WORDS.has(lower(words[0]!))) words = words.slice(1);
    const single = words.length === 1;
    const w0 = words[0]!;
    const sentenceInitial = t.sentenceStart && words[0] === t.text;
    const reject =
      (single && isCommon(w0, sentenceInitial)) ||
      (single &&
        sentenceInitial &&
        !FIRST_NAMES.has(lower(w0)) &&
        !PLACES.has(lower(w0)) &&
        !PRODUCTS.has(lower(w0)) &&
        !isAcronym(w0) &&
        !/^(said|says|told|lives|works|is|was|has|had|moved|joined|and)$/i.test(ts[j]?.text ?? "")) ||
      (single && /(ing|ly)$/.test(lower(w0)) && !FIRST_NAMES.has(lower(w0))) ||
      (single && w0.length < 2);
    const kind = classify(words, ts[i - 1]?.text, ts[j]?.text);
    // month and weekday names alone are dates, found with their day and year by findDates below
    if (!reject && kind !== "date") {
      out.push({ name: words.join(" ").replace(/\s&\s/g, " & "), kind });
    }
    i = j;
  }
  for (const d of findDates(text))
    if (
      /\d{4}/.test(d.text) &&
      !/^\s*(in|since|from|until|till|by|during|of)\b/i.test(d.text) &&
      /\D/.test(d.text.replace(/\d{4}/, "").trim() || "x")
    ) {
      if (/[a-z]/i.test(d.text)) out.push({ name: d.text, kind: "date" });
    }
  return out;
}

interface Pattern {
  relation: string;
  /** Verb phrase; matched case-insensitively after the subject. */
  verb: RegExp;
  targetKind?: EntityKind;
  /** Whether a plain noun phrase may be the target when no named entity follows. */
  concept: boolean;
}

const P = (relation: string, verb: string, concept: boolean, targetKind?: EntityKind): Pattern => ({
  relation,
  verb: new RegExp(`^(?:${verb})\\b`, "i"),
  concept,
  targetKind,
});

// First match wins; more specific phrasings come first.
const PATTERNS: Pattern[] = [
  P("born_in", "(?:was|were) born in", false, "place"),
  P("born_on", "(?:was|were) born on", true, "date"),
  P(
    "lives_in",
    "(?:now |currently |still )?(?:lives?|lived|living|resides?|resided|residing|settled|is based|am based|are based|was based) in|(?:has |have |had )?(?:just |recently |finally )?(?:moved|relocated|moving|relocating) (?:back )?to",
    false,
    "place",
  ),
  P(
    "works_at",
    "(?:now |currently |still )?(?:works?|worked|working) (?:at|for)|(?:has |have |had )?(?:just |recently )?(?:joined|started (?:a (?:new )?job |working )?at|got (?:a )?job at|(?:is|am|was) employed (?:at|by)|(?:was |got )?hired by)",
    false,
    "organization",
  ),
  P("studies_at", "(?:stud(?:y|ies|ied|ying)|enrolled|(?:is|am|was) a student) at|graduated from", false, "organization"),
  P("married_to", "(?:is |am |was |got )?married(?: to)?|wed", false, "person"),
  P("reports_to", "reports? to|(?:is|am) managed by", false, "person"),
  P("founded", "(?:co-?)?founded|(?:started|launched) (?:a company called )?", false, "organization"),
  P("member_of", "(?:is|am|are|was) (?:a |an )?members? of|belongs? to", true, "organization"),
  P(
    "visited",
    "(?:visit(?:s|ed|ing)?|went to|go(?:es)? to|going to|travel(?:l)?ed to|traveled to|trip to|been to|flew to|drove to|attended|attend(?:s|ing)?)",
    true,
  ),
  P(
    "likes",
    "(?:really |absolutely )?(?:like[sd]?|love[sd]?|loving|enjoy(?:s|ed|ing)?|adore[sd]?|prefer(?:s|red)?|(?:is|am|are) (?:a )?(?:big )?fans? of|(?:is|am|are) (?:into|passionate about))",
    true,
  ),
  P("dislikes", "(?:hate[sd]?|dislike[sd]?|can't stand)", true),
  P("owns", "(?:own(?:s|ed)?|bought|buy|got|adopted|(?:has|have) (?:a|an|two|three))", true, "product"),
  P("uses", "(?:use[sd]?|using|switched to)", true, "product"),
  P("met", "(?:met|meet(?:s|ing)?) (?:with )?", false, "person"),
  P("researched", "(?:research(?:es|ed|ing)?|(?:am|is|was) researching|looked into|looking into)", true),
  P(
    "created",
    "(?:paint(?:s|ed|ing)?|drew|draw(?:s|ing)?|wrote|writ(?:es|ing)|made|make[s]?|built|build(?:s|ing)?|cook(?:s|ed)?|bak(?:es|ed)|created?)",
    true,
  ),
  P("plays", "(?:play(?:s|ed|ing)?)", true),
  P("learned", "(?:learn(?:s|ed|t|ing)?|practic(?:es|ed|ing)|took (?:a |up )?)", true),
];

const PRONOUN_SPEAKER = /^(i|i'm|i've|i'd|i'll|me|my|myself|we|we're|we've|our)$/i;
const PRONOUN_OTHER = /^(he|she|he's|she's|his|her|him)$/i;
const NP_STOP =
  /^(and|but|or|because|since|when|while|with|to|for|at|in|on|so|that|which|who|it|this|yesterday|today|last|next|ago|recently|now|too|again|as|if|than|from|by|about|of)$/i;
const DETERMINERS = /^(a|an|the|my|his|her|their|our|your|some|this|that|these|those|new|first|own)$/i;

interface Mention {
  name: string;
  start: number;
  end: number;
  pronoun?: boolean;
}

interface SurfaceForm {
  form: string;
  name: string;
  re: RegExp;
}

function surfaceForms(entities: ExtractedEntity[]): SurfaceForm[] {
  const forms: SurfaceForm[] = [];
  for (const e of entities) {
    const all = [e.name, ...(e.aliases ?? [])];
    if (e.kind === "person" && e.name.includes(" ")) {
      const given = e.name.split(" ")[0]!;
      if (given.length >= 3 && !HONORIFICS.has(given.toLowerCase().replace(/\.$/, ""))) all.push(given);
    }
    // single words match case-sensitively ("May" the person, not "may"); longer names in any case
    for (const f of all)
      forms.push({
        form: f,
        name: e.name,
        re: new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(f)}(?![\\p{L}\\p{N}])`, f.includes(" ") ? "giu" : "gu"),
      });
  }
  return forms.sort((a, b) => b.form.length - a.form.length);
}

function findMentions(sentence: string, forms: SurfaceForm[]): Mention[] {
  const out: Mention[] = [];
  for (const f of forms) {
    for (const m of sentence.matchAll(f.re)) {
      const start = m.index!;
      const end = start + m[0].length;
      if (out.some((o) => start < o.end && end > o.start)) continue;
      out.push({ name: f.name, start, end });
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

/** Rewrites first-person pronouns to the speaker so a fact reads on its own. */
function thirdPerson(sentence: string, speaker: string | null): string {
  if (!speaker) return sentence;
  return sentence
    .replace(/\bI'm\b/g, `${speaker} is`)
    .replace(/\bI've\b/g, `${speaker} has`)
    .replace(/\bI'll\b/g, `${speaker} will`)
    .replace(/\bI'd\b/g, `${speaker} would`)
    .replace(/\b(I|me|myself)\b/g, speaker)
    .replace(/\b[Mm]y\b/g, `${speaker}'s`);
}

function nounPhrase(rest: string): { text: string; end: number } | null {
  const re = /[\p{L}\p{N}][\p{L}\p{N}'’-]*|[,.;:!?()]/gu;
  const words: string[] = [];
  let end = 0;
  let started = false;
  for (const m of rest.matchAll(re)) {
    const w = m[0];
    if (/^[,.;:!?()]$/.test(w)) break;
    if (!started && DETERMINERS.test(w)) continue;
    if (NP_STOP.test(w) || PRONOUN_SPEAKER.test(w) || PRONOUN_OTHER.test(w)) break;
    started = true;
    words.push(w);
    end = m.index! + w.length;
    if (words.length >= 4) break;
  }
  while (words.length && /(ly|ing)$/.test(words[words.length - 1]!) && words.length > 1) words.pop();
  if (!words.length || (words.length === 1 && words[0]!.length < 3)) return null;
  return { text: words.join(" "), end };
}

export interface RuleBasedExtractorOptions {
  /** Also link a sentence's subject to every other named entity in it (`related_to`) when no pattern matched. */
  cooccurrence?: boolean;
}

export function ruleBasedExtractor(options: RuleBasedExtractorOptions = {}): Extractor {
  const cooccurrence = options.cooccurrence ?? true;
  return {
    name: "rule-based",
    async extractEntities(input: ExtractionInput) {
      const { speaker, body } = splitSpeaker(input.content, input.metadata);
      const found = new Map<string, ExtractedEntity>();
      const add = (e: ExtractedEntity) => {
        const k = nameKey(e.name);
        if (!k) return;
        const prev = found.get(k);
        if (!prev) found.set(k, { ...e });
        else if (prev.kind === "other" && e.kind !== "other") prev.kind = e.kind;
      };
      if (speaker) add({ name: speaker, kind: "person" });
      for (const e of findNames(body)) add(e);
      return [...found.values()];
    },
    async extractFacts(input) {
      const { speaker, body } = splitSpeaker(input.content, input.metadata);
      const forms = surfaceForms(input.entities);
      const kindOf = new Map(input.entities.map((e) => [e.name, e.kind]));
      const facts: ExtractedFact[] = [];
      let lastPerson: string | null = null;
      for (const sentence of splitSentences(body)) {
        const mentions = findMentions(sentence, forms);
        const dates = findDates(sentence);
        const temporal = dates[0]?.text ?? null;
        const until = dates.find((d) => /^\s*(until|till)\b/i.test(d.text))?.text ?? null;
        const text = thirdPerson(sentence, speaker);
        // subjects: named mentions and pronouns, in order
        const subjects: Mention[] = [...mentions];
        for (const m of sentence.matchAll(/\b(I|I'm|I've|I'd|I'll|we|We|he|He|she|She)\b/g)) {
          const p = m[0];
          const who = PRONOUN_SPEAKER.test(p) ? speaker : lastPerson;
          if (who) subjects.push({ name: who, start: m.index!, end: m.index! + p.length, pronoun: !PRONOUN_SPEAKER.test(p) });
        }
        subjects.sort((a, b) => a.start - b.start);
        let matched = false;
        for (let si = 0; si < subjects.length; si++) {
          const subj = subjects[si]!;
          // the verb phrase may follow the subject after up to three adverbs or auxiliaries
          const after = sentence.slice(subj.end);
          const gap =
            /^\s+((?:(?:has|have|had|just|recently|finally|also|still|now|currently|really|actually|never|always|will|would|'ve|already|then)\s+){0,3})/i.exec(
              after,
            );
          if (!gap) continue;
          const verbAt = subj.end + gap[0].length;
          const rest = sentence.slice(verbAt);
          for (const p of PATTERNS) {
            const vm = p.verb.exec(rest);
            if (!vm) continue;
            const objStart = verbAt + vm[0].length;
            const objMention = mentions.find((m) => m.start >= objStart && m.start - objStart <= 24 && m.name !== subj.name);
            let target: string | null = objMention?.name ?? null;
            let targetKind: EntityKind | undefined = p.targetKind;
            const np = p.concept ? nounPhrase(sentence.slice(objStart)) : null;
            // "a LGBTQ support group": the named word is only part of the object
            if (
              objMention &&
              np &&
              np.text.length > objMention.end - objMention.start &&
              np.text.includes(sentence.slice(objMention.start, objMention.end))
            )
              target = null;
            if (!target && np && !dates.some((d) => d.text.toLowerCase().includes(np.text.toLowerCase()))) {
              target = np.text;
              targetKind = "other";
            }
            if (!target) continue;
            const known = target === objMention?.name ? kindOf.get(target) : undefined;
            // "works at Paris" names no employer: let a later pattern try
            if (known && p.targetKind && known !== "other" && known !== p.targetKind && p.relation !== "visited") continue;
            // "She works at Acme" reads on its own as "Alice Moreau works at Acme"
            const fact = subj.pronoun
              ? thirdPerson(`${sentence.slice(0, subj.start)}${subj.name}${sentence.slice(subj.end)}`, speaker)
              : text;
            facts.push({ source: subj.name, relation: p.relation, target, fact, validFrom: temporal, validUntil: until, targetKind });
            matched = true;
            break;
          }
          if (matched) break;
        }
        if (!matched && cooccurrence) {
          const subj = subjects[0];
          if (subj) {
            for (const m of mentions) {
              if (m.name === subj.name || kindOf.get(m.name) === "date") continue;
              facts.push({ source: subj.name, relation: "related_to", target: m.name, fact: text, validFrom: temporal, validUntil: null });
            }
          }
        }
        for (const m of mentions) if (kindOf.get(m.name) === "person" && m.name !== speaker) lastPerson = m.name;
      }
      return facts;
    },
  };
}
