// Large, realistic episodes for the off-the-main-thread tests and the memory benchmark: varied sentences
// about people, places, employers, hobbies and dates, drawn from a seeded generator so every run sees the
// same texts (issue #24: one 50 KB episode used to hold the host's event loop for about a second).

const FIRST =
  "Alice Bruno Chloe Dora Elias Farah Gina Hana Ivan Jonas Kara Liam Maya Nico Olga Pavel Quinn Rosa Sami Tara Umar Vera Wade Yuri Zoe Amara Bilal Camille Dmitri Esther".split(
    " ",
  );
const LAST =
  "Moreau Silva Martin Kim Cohen Haddad Rossi Sato Petrov Berg Novak Diaz Okafor Lindqvist Ferreira Nakamura Kowalski Dubois Larsen Meyer".split(
    " ",
  );
const PLACES =
  "Paris Berlin Lisbon Madrid Rome Vienna Prague Oslo Dublin Athens Zurich Geneva Munich Milan Lyon Seattle Boston Chicago Denver Austin Toronto Sydney Tokyo Seoul Nairobi Lagos Lima Montreal".split(
    " ",
  );
const ORGS =
  "Acme Corp|Globex|Initech|Umbrella Health|Hooli|Vandelay Industries|Stark Labs|Wayne Foundation|Cyberdyne Systems|Tyrell Bank|Aperture Science|the city library|the university hospital|a small design studio".split(
    "|",
  );
const THINGS =
  "jazz records|hiking|sourdough bread|chess|oil painting|trail running|vintage cameras|board games|pottery|salsa dancing|bird watching|rock climbing|film photography|gardening|sailing|the violin".split(
    "|",
  );
const MONTHS = "January February March April May June July August September October November December".split(" ");
const WHEN = ["last year", "two weeks ago", "last March", "in 2019", "yesterday", "since 2021", "last summer", "three years ago"];

/** A seeded linear congruential generator: the same seed gives the same texts on every run. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function sentence(r: () => number): string {
  const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)]!;
  const person = () => `${pick(FIRST)} ${pick(LAST)}`;
  const date = () => `${1 + Math.floor(r() * 28)} ${pick(MONTHS)} ${2010 + Math.floor(r() * 14)}`;
  const who = person();
  const templates = [
    () => `${who} moved to ${pick(PLACES)} in ${pick(MONTHS)} ${2012 + Math.floor(r() * 12)}.`,
    () => `${who} works at ${pick(ORGS)} and lives in ${pick(PLACES)}.`,
    () => `${who} met ${person()} in ${pick(PLACES)} ${pick(WHEN)}.`,
    () => `She told me that ${who} loves ${pick(THINGS)} more than anything.`,
    () => `On ${date()}, ${who} visited ${pick(PLACES)} with ${person()}.`,
    () => `I started ${pick(THINGS)} ${pick(WHEN)} because ${who} recommended it.`,
    () => `${who} joined ${pick(ORGS)} ${pick(WHEN)}; before that he was a teacher in ${pick(PLACES)}.`,
    () => `${who} is married to ${person()}, who was born in ${pick(PLACES)}.`,
    () => `My sister ${pick(FIRST)} has been learning ${pick(THINGS)} since ${pick(MONTHS)}.`,
    () => `${who} worked at ${pick(ORGS)} from ${2008 + Math.floor(r() * 6)} until ${2015 + Math.floor(r() * 8)}.`,
    () => `We had dinner with ${who} at a restaurant near ${pick(PLACES)} last Friday, and she mentioned ${pick(THINGS)}.`,
    () => `${who}'s favourite hobby is ${pick(THINGS)}.`,
  ];
  return pick(templates)();
}

/** One episode of about `bytes` characters (sentences are ASCII), from `seed`. */
export function largeEpisode(seed: number, bytes = 50_000): string {
  const r = seeded(seed);
  const out: string[] = [];
  let length = 0;
  while (length < bytes) {
    const s = sentence(r);
    if (length + s.length + 1 > bytes) break;
    out.push(s);
    length += s.length + 1;
  }
  return out.join(" ");
}
