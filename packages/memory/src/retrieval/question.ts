// Question analysis and episode re-ranking for recall: what kind of answer a question asks for (a time
// for "when", a place for "where"), which dates it names, and the words its best hits share
// (pseudo-relevance feedback). All of it is plain English grammar, independent of any corpus.
import type { EpisodeRecord } from "../domain/types.js";
import { splitSpeaker } from "../extractors/rule-based.js";
import { findDates, resolveDate } from "../text/dates.js";
import { isStopWord, stem, words } from "../text/tokenize.js";

export type AnswerType = "time" | "place" | "other";

export interface QuestionAnalysis {
  answer: AnswerType;
  /** Valid-time windows the question names ("in June 2023", "on 13 October 2023"), as [start, end). */
  windows: Array<[number, number]>;
}

const DAY = 86_400_000;

const TIME_QUESTION = /^\s*(?:when\b|what (?:year|month|day|date|time)\b|how long ago\b|since when\b|which (?:year|month|day|date)\b)/i;
const PLACE_QUESTION = /^\s*(?:where\b|what (?:city|country|place|town|state)\b|which (?:city|country|place|town|state)\b)/i;

/** The answer type and the dates of a question; relative dates resolve against `now`. */
export function analyseQuestion(query: string, now: number): QuestionAnalysis {
  const answer: AnswerType = TIME_QUESTION.test(query) ? "time" : PLACE_QUESTION.test(query) ? "place" : "other";
  const windows: Array<[number, number]> = [];
  for (const d of findDates(query)) {
    const start = resolveDate(d.text, now);
    if (start === null) continue;
    windows.push([start, start + windowLength(d.text)]);
  }
  return { answer, windows };
}

/** How long a date expression spans: a day when it names one, a month, or a year. */
function windowLength(expression: string): number {
  const e = expression.toLowerCase();
  if (/\b\d{1,2}(?:st|nd|rd|th)?\b(?!\d)/.test(e.replace(/\b(?:19|20)\d{2}\b/g, "")) || /yesterday|today|tonight|tomorrow|night/.test(e))
    return DAY;
  if (/week/.test(e)) return 7 * DAY;
  if (/^\s*(?:in|since|from|until|till|by|during|of)?\s*(?:19|20)\d{2}\s*$/.test(e) || /year/.test(e)) return 366 * DAY;
  return 31 * DAY;
}

/** A place: a capitalised word after a place preposition ("in Paris", "to Sweden", "from Boston"). */
const PLACE_MENTION = /\b(?:in|to|from|at|near|visited|visit|moved)\s+(?:the\s+)?\p{Lu}\p{Ll}+/u;

/** Whether an episode's own words (not the speaker prefix) hold the kind of answer the question asks for. */
export function answersType(episode: EpisodeRecord, answer: AnswerType): boolean {
  if (answer === "other") return false;
  const text = splitSpeaker(episode.content, episode.metadata).body;
  if (answer === "time") return findDates(text).length > 0;
  return PLACE_MENTION.test(text);
}

/** Whether an episode happened inside one of the question's date windows (±1 window either side for slack). */
export function inWindow(episode: EpisodeRecord, windows: QuestionAnalysis["windows"]): boolean {
  return windows.some(([s, e]) => episode.occurredAt >= s - (e - s) && episode.occurredAt < e + (e - s));
}

/**
 * Pseudo-relevance feedback (RM-style): the words the top `docs` hits share most, weighted by rank,
 * that the question does not already hold; the second query is made of them alone, so its hits widen
 * what the question found instead of repeating it.
 */
export function feedbackQuery(query: string, top: EpisodeRecord[], maxTerms: number): string {
  const asked = new Set(words(query).map(stem));
  const weight = new Map<string, { w: number; docs: number; form: string }>();
  top.forEach((ep, rank) => {
    const text = splitSpeaker(ep.content, ep.metadata).body;
    const seen = new Set<string>();
    for (const w of words(text)) {
      if (w.length < 3 || isStopWord(w) || /\d/.test(w)) continue;
      const k = stem(w);
      if (asked.has(k) || seen.has(k)) continue;
      seen.add(k);
      const cur = weight.get(k) ?? { w: 0, docs: 0, form: w };
      cur.w += 1 / (rank + 1);
      cur.docs++;
      weight.set(k, cur);
    }
  });
  // a word from one document only is that document's topic, not the question's
  return [...weight.values()]
    .filter((x) => x.docs >= 2)
    .sort((a, b) => b.w - a.w || (a.form < b.form ? -1 : 1))
    .slice(0, maxTerms)
    .map((x) => x.form)
    .join(" ");
}
