// Schedules: the recurring time a clause states after its verb ("every Monday at 9:30", "nightly at 23:00", "on the
// 25th of each month", "every quarter on the first Monday", "at 1 am daily"), read from the words themselves, the
// adverbs too ("hourly", "nightly": the chunker keeps no adverb). A clock time alone is a schedule after a habitual
// verb ("The reporting job runs at 6 am"). The phrase becomes the object of a `schedule` relation: one schedule per
// subject, so a new one ends the old.
import type { Token } from "./parse.js";

const DAY = "monday|tuesday|wednesday|thursday|friday|saturday|sunday";
const UNIT = `day|night|morning|evening|afternoon|week|weekday|weekend|month|quarter|year|hour|minute|${DAY}`;
/** Words that make a time recur. */
const RECURRING = [
  new RegExp(
    `\\b(?:every|each)\\s+(?:other\\s+|second\\s+|third\\s+|fourth\\s+|\\d+\\s+)?(?:${UNIT})s?(?:\\s+(?:morning|evening|afternoon|night))?\\b`,
    "gi",
  ),
  /\b(?:daily|nightly|hourly|weekly|fortnightly|monthly|quarterly|yearly|annually|weekdays|weekends)\b/gi,
  new RegExp(`\\bon\\s+(?:${DAY})s\\b`, "gi"),
  new RegExp(
    `\\bon\\s+the\\s+(?:first|second|third|fourth|last|\\d{1,2}(?:st|nd|rd|th))(?:\\s+(?:${DAY}|day|weekday))?\\s+of\\s+(?:each|every|the)\\s+(?:month|quarter|year)\\b`,
    "gi",
  ),
];
/** Times that narrow a recurrence: "at 9:30", "at 2 am", "at noon", "on the first Monday", "in the morning". */
const NARROWING = [
  /\b(?:at\s+)?(?:\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}:\d{2}|noon|midnight)(?![\w:])/gi,
  new RegExp(`\\bon\\s+(?:the\\s+)?(?:first|second|third|fourth|last)\\s+(?:${DAY}|day|weekday)\\b`, "gi"),
  /\bin\s+the\s+(?:morning|evening|afternoon)\b/gi,
  new RegExp(`\\bon\\s+(?:${DAY})\\b`, "gi"),
];
/** Verbs that state a habit: with them a clock time alone is a schedule. */
const HABITUAL = /^(run|happen|start|begin|open|close|meet|ship|go|come|change|rotate|fire|trigger|execute|sync|deploy|send|post)$/;

interface Span {
  start: number;
  end: number;
  recurring: boolean;
}

const spans = (text: string, patterns: RegExp[], recurring: boolean): Span[] =>
  patterns.flatMap((p) => [...text.matchAll(p)].map((m) => ({ start: m.index!, end: m.index! + m[0].length, recurring })));

/** The words after the verb, up to the clause's end (";", "but", a full stop), spaced as in the sentence. */
function tail(tokens: readonly Token[], after: number): string {
  let text = "";
  let prevEnd = -1;
  for (const t of tokens) {
    if (t.start < after) continue;
    // the clause ends at ";", "but", a full stop or a relative pronoun ("a chef who bakes bread every morning")
    if (t.text === ";" || t.lower === "but" || (t.pos === "PUNCT" && /^[.!?]$/.test(t.text))) break;
    if (/^(who|which|whose|whom|where)$/.test(t.lower) || (t.lower === "that" && t.pos !== "DET")) break;
    text += (prevEnd === t.start || prevEnd < 0 ? "" : " ") + t.text;
    prevEnd = t.end;
  }
  return text;
}

/**
 * The schedule a clause states after its verb (which ends at offset `after`), and whether it comes right after the
 * verb; null when there is none. Recurring and narrowing times next to each other make one phrase; a clock time alone
 * counts after a habitual verb.
 */
export function schedulePhrase(
  tokens: readonly Token[],
  after: number,
  verbLemma: string | null,
): { phrase: string; rightAfterVerb: boolean } | null {
  const text = tail(tokens, after).replace(/(\d)\s*:\s*(\d)/g, "$1:$2");
  if (!text) return null;
  const found = [...spans(text, RECURRING, true), ...spans(text, NARROWING, false)].sort((a, b) => a.start - b.start || b.end - a.end);
  const groups: Span[] = [];
  for (const s of found) {
    const last = groups.at(-1);
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else if (last && /^[\s,]*(?:and\s+)?$/.test(text.slice(last.end, s.start))) {
      last.end = s.end;
      last.recurring ||= s.recurring;
      continue;
    } else groups.push({ ...s });
    if (last && s.start <= last.end) last.recurring ||= s.recurring;
  }
  const clockOnly = groups.length > 0 && verbLemma !== null && HABITUAL.test(verbLemma) && /^at\s/i.test(text.slice(groups[0]!.start));
  const group = groups.find((g) => g.recurring) ?? (clockOnly ? groups[0] : undefined);
  if (!group) return null;
  const phrase = text
    .slice(group.start, group.end)
    .replace(/^(?:on\s+the|on|at)\s+/i, "")
    .trim();
  return { phrase, rightAfterVerb: group.start === 0 };
}
