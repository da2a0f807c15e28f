// Date expressions in English text, absolute ("8 May 2023", "2023-05-08", "in 2021") and relative
// ("yesterday", "last year", "three weeks ago"), resolved against a reference time to UTC day starts.

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const MONTH_RE =
  "(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";
const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  few: 3,
  couple: 2,
  several: 3,
};
const DAY = 86_400_000;

const PATTERNS: RegExp[] = [
  /\b\d{4}-\d{2}-\d{2}(?:t[\d:.]+(?:z|[+-]\d{2}:?\d{2})?)?\b/,
  new RegExp(`\\b\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH_RE}\\.?,?\\s+\\d{4}\\b`),
  new RegExp(`\\b${MONTH_RE}\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{4}\\b`),
  new RegExp(`\\b${MONTH_RE}\\.?\\s+(?:of\\s+)?\\d{4}\\b`),
  new RegExp(`\\b${MONTH_RE}\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?\\b`),
  new RegExp(`\\b\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH_RE}\\b`),
  /\b(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|couple(?: of)?|several|\d+)\s+(?:days?|weeks?|months?|years?)\s+ago\b/,
  /\b(?:yesterday|today|tonight|tomorrow|this morning|this afternoon|this evening|last night)\b/,
  /\b(?:last|this|next|past)\s+(?:week(?:end)?|month|year|summer|winter|spring|fall|autumn|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/,
  new RegExp(`\\b(?:in|since|from|until|till|by|during)\\s+(?:early\\s+|late\\s+|mid-?\\s*)?${MONTH_RE}\\b`),
  /\b(?:in|since|from|until|till|by|during|of)\s+(?:early\s+|late\s+|mid-?\s*)?(?:19|20)\d{2}\b/,
  /\b(?:19|20)\d{2}\b/,
];

export interface DateMention {
  text: string;
  index: number;
}

/** Date expressions in a text, longest first where they overlap, in order of appearance. */
export function findDates(text: string): DateMention[] {
  const lower = text.toLowerCase();
  const found: DateMention[] = [];
  const taken: Array<[number, number]> = [];
  for (const re of PATTERNS) {
    const g = new RegExp(re.source, "g");
    for (const m of lower.matchAll(g)) {
      const start = m.index!;
      const end = start + m[0].length;
      if (taken.some(([s, e]) => start < e && end > s)) continue;
      taken.push([start, end]);
      found.push({ text: text.slice(start, end), index: start });
    }
  }
  return found.sort((a, b) => a.index - b.index);
}

const startOfDay = (ms: number) => Math.floor(ms / DAY) * DAY;
const monthIndex = (s: string) => MONTHS.findIndex((m) => m.startsWith(s.toLowerCase().replace(/\.$/, "").slice(0, 3)));

/** Resolves an expression to the epoch ms of the UTC day (or period) it starts, relative to `ref`; null when unknown. */
export function resolveDate(expression: string, ref: number): number | null {
  const e = expression.trim().toLowerCase().replace(/\s+/g, " ");
  if (!e) return null;
  const iso = /^\d{4}-\d{2}-\d{2}(t.*)?$/.exec(e);
  if (iso) {
    const t = Date.parse(iso[1] ? expression.trim() : `${e}T00:00:00Z`);
    return Number.isNaN(t) ? null : t;
  }
  const r = new Date(ref);
  const y = r.getUTCFullYear();
  const mo = r.getUTCMonth();
  let m: RegExpExecArray | null;
  if ((m = new RegExp(`(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?(${MONTH_RE})\\.?,?\\s+(\\d{4})`).exec(e)))
    return Date.UTC(+m[3]!, monthIndex(m[2]!), +m[1]!);
  if ((m = new RegExp(`(${MONTH_RE})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})`).exec(e)))
    return Date.UTC(+m[3]!, monthIndex(m[1]!), +m[2]!);
  if ((m = new RegExp(`(${MONTH_RE})\\.?\\s+(?:of\\s+)?(\\d{4})`).exec(e))) return Date.UTC(+m[2]!, monthIndex(m[1]!), 1);
  if ((m = new RegExp(`(${MONTH_RE})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b`).exec(e))) return Date.UTC(y, monthIndex(m[1]!), +m[2]!);
  if ((m = new RegExp(`(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?(${MONTH_RE})\\b`).exec(e))) return Date.UTC(y, monthIndex(m[2]!), +m[1]!);
  if ((m = /(\w+)(?: of)? (day|week|month|year)s? ago/.exec(e))) {
    const n = NUMBER_WORDS[m[1]!] ?? Number(m[1]);
    if (!Number.isFinite(n)) return null;
    if (m[2] === "day") return startOfDay(ref) - n * DAY;
    if (m[2] === "week") return startOfDay(ref) - 7 * n * DAY;
    if (m[2] === "month") return Date.UTC(y, mo - n, r.getUTCDate());
    return Date.UTC(y - n, mo, r.getUTCDate());
  }
  if (/\b(yesterday|last night)\b/.test(e)) return startOfDay(ref) - DAY;
  if (/\b(today|tonight|this morning|this afternoon|this evening)\b/.test(e)) return startOfDay(ref);
  if (/\btomorrow\b/.test(e)) return startOfDay(ref) + DAY;
  if ((m = /\b(last|this|next|past) (week(?:end)?|month|year|summer|winter|spring|fall|autumn|\w+day)\b/.exec(e))) {
    const dir = m[1] === "next" ? 1 : m[1] === "this" ? 0 : -1;
    const unit = m[2]!;
    if (unit === "week" || unit === "weekend") return startOfDay(ref) + dir * 7 * DAY;
    if (unit === "month") return Date.UTC(y, mo + dir, 1);
    if (unit === "year") return Date.UTC(y + dir, 0, 1);
    const season = { spring: 2, summer: 5, fall: 8, autumn: 8, winter: 11 }[unit];
    if (season !== undefined) return Date.UTC(dir < 0 && season >= mo ? y - 1 : dir > 0 && season <= mo ? y + 1 : y, season, 1);
    const wd = WEEKDAYS.indexOf(unit);
    if (wd < 0) return null;
    const today = r.getUTCDay();
    let delta = wd - today;
    if (dir < 0) delta = delta >= 0 ? delta - 7 : delta;
    if (dir > 0) delta = delta <= 0 ? delta + 7 : delta;
    return startOfDay(ref) + delta * DAY;
  }
  if ((m = new RegExp(`(?:early |late |mid-? ?)?(${MONTH_RE})\\b`).exec(e))) {
    const mi = monthIndex(m[1]!);
    return Date.UTC(mi > mo ? y - 1 : y, mi, 1);
  }
  if ((m = /\b((?:19|20)\d{2})\b/.exec(e))) return Date.UTC(+m[1]!, 0, 1);
  return null;
}

/** Whether an expression marks the end of a state ("until 2020") rather than its start. */
export const isEndExpression = (expression: string): boolean => /^\s*(until|till|by)\b/i.test(expression);
