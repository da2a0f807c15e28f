// Tokenisation shared by the in-memory full-text index and the extractors: fold case and accents,
// drop stop words, reduce inflections with a light suffix stemmer so "painted" finds "painting".

const STOP = new Set(
  (
    "a an and are as at be been being but by can could did do does doing done for from had has have having he her hers him his how i if in into is it its " +
    "itself just me my myself no nor not of on or our ours she should so some such than that the their theirs them then there these they this those " +
    "to too us very was we were what when where which while who whom why will with would you your yours yourself also am any all about again more most " +
    "other own same only both each few off once out over under up down here s t don didn doesn isn wasn aren weren won wouldn couldn shouldn ll ve re d m o y " +
    "oh yeah yes hey hi wow really thanks thank lot much"
  ).split(" "),
);

export const isStopWord = (token: string): boolean => STOP.has(token);

/** Lower-case, accent-free, single-spaced form of a string. */
export function fold(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase();
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

/** Words of a text in order, folded; possessive and contracted endings removed. */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const m of fold(text).matchAll(WORD)) {
    const w = m[0].replace(/['’](s|t|re|ve|ll|d|m)$/u, "");
    if (w) out.push(w);
  }
  return out;
}

const VOWEL = /[aeiouy]/;

/** A small suffix stemmer: maps common inflections of one word to one key (not a linguistic root). */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}i`;
  else if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) w = w.slice(0, -1);
  const strip = (suffix: string): boolean => {
    if (!w.endsWith(suffix)) return false;
    const base = w.slice(0, -suffix.length);
    if (base.length < 3 || !VOWEL.test(base)) return false;
    w = base;
    return true;
  };
  if (w.endsWith("ied") && w.length > 4) w = `${w.slice(0, -3)}i`;
  else if (strip("ing") || strip("ed")) {
    const last = w[w.length - 1]!;
    if (w.length > 3 && last === w[w.length - 2] && !"lsz".includes(last)) w = w.slice(0, -1);
  }
  if (w.endsWith("y") && w.length > 3) w = `${w.slice(0, -1)}i`;
  if (w.endsWith("e") && w.length > 3) w = w.slice(0, -1);
  return w;
}

/** Index terms of a text: words without stop words, stemmed. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) if (!STOP.has(w)) out.push(stem(w));
  return out;
}

/** A string as a literal inside a regular expression. */
export const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
