// Validity dates of a sentence's facts: "until/through/till X" ends validity, "from/since X" starts it,
// other dates ("last March", "yesterday", "in 2022") say when the fact became true. Expressions are
// resolved by chrono-node against the episode's reference time; plain years fall back to text/dates.
import * as chrono from "chrono-node";
import { resolveDate } from "../../text/dates.js";
import type { Token } from "./parse.js";

export interface Validity {
  from: string | null;
  until: string | null;
}

const END = /^(until|till|til|through|thru|to|by)$/i;
const START = /^(from|since|starting|beginning)$/i;
const RECURRING = /^(every|each)$/i;
const DAY = 86_400_000;

const dayIso = (ms: number) => new Date(Math.floor(ms / DAY) * DAY).toISOString().slice(0, 10);

/** Epoch ms of the UTC day an expression names, relative to `ref`; null when it names none. */
export function resolveExpression(text: string, ref: number): number | null {
  const trimmed = text.trim();
  if (!trimmed) return null;
  // a bare year ("in 2022") chrono reads as a time of day, and a named period ("last year", "this
  // summer") stands for its whole span: both resolve to the start of the period, as everywhere in the memory
  if (/^(?:in |during |of )?(?:early |late |mid-?)?(?:19|20)\d{2}$/i.test(trimmed)) return resolveDate(trimmed, ref);
  if (/^(last|this|next|past) (week(end)?|month|year|spring|summer|fall|autumn|winter)$/i.test(trimmed)) return resolveDate(trimmed, ref);
  const parsed = chrono.parse(trimmed, new Date(ref), { forwardDate: false })[0];
  if (parsed) {
    const d = parsed.start;
    const y = d.get("year");
    const m = d.get("month");
    const day = d.isCertain("day") || d.isCertain("weekday") || !d.isCertain("month") ? d.get("day") : 1;
    if (y !== null && m !== null && day !== null) {
      let at = Date.UTC(y, m - 1, day);
      // "last March" said in May names this year's March; said in February, last year's
      if (/\blast\b/i.test(trimmed) && !d.isCertain("year") && at > ref) at = Date.UTC(y - 1, m - 1, day);
      return at;
    }
  }
  return resolveDate(trimmed, ref);
}

/** Start and end of validity given by a sentence's date tokens. */
export function validity(tokens: Token[], ref: number): Validity {
  const out: Validity = { from: null, until: null };
  // split the marked tokens into expressions at their prepositions: "from 2020 until 2030" is two
  const groups: Array<{ role: "start" | "end" | "at" | "skip"; words: string[] }> = [];
  let prevDate = false;
  // "worked at Siemens until he retired in 2020": the date of a clause "until" opens is the end
  let untilClause = false;
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (!t.date) {
      if (/^(until|till|til)$/i.test(t.lower) && !tokens[k + 1]?.date) untilClause = true;
      prevDate = false;
      continue;
    }
    const last = groups[groups.length - 1];
    // the preposition may sit outside the recognised span: "through June 2024"
    const before = tokens[k - 1];
    if (!prevDate && before && (END.test(before.lower) || START.test(before.lower)) && !END.test(t.lower) && !START.test(t.lower)) {
      groups.push({ role: END.test(before.lower) ? "end" : "start", words: [t.text] });
      prevDate = true;
      continue;
    }
    if (END.test(t.lower)) groups.push({ role: "end", words: [] });
    else if (START.test(t.lower)) groups.push({ role: "start", words: [] });
    else if (RECURRING.test(t.lower)) groups.push({ role: "skip", words: [] });
    else if (/^(in|on|at|during|of|for)$/i.test(t.lower) && (!prevDate || !last))
      groups.push({ role: untilClause ? "end" : "at", words: [] });
    else if (!prevDate || !last) groups.push({ role: untilClause ? "end" : "at", words: [t.text] });
    else last.words.push(t.text);
    prevDate = true;
  }
  for (const g of groups) {
    if (g.role === "skip" || !g.words.length) continue;
    const text = g.words.join(" ");
    // a duration ("for three years", "two hours") is no point in time
    if (/^(for )?\w+ (hours?|minutes?|days?|weeks?|months?|years?)$/i.test(text) && !/^(last|this|next|past) /i.test(text)) continue;
    const at = resolveExpression(text, ref);
    if (at === null) continue;
    if (g.role === "end") out.until ??= dayIso(at);
    else out.from ??= dayIso(at);
  }
  return out;
}
