// Name normalisation and similarity for entity resolution: "Alice Moreau", "alice  moreau" and
// "Alicé Moreau" share a key; near-spellings are compared with Jaro-Winkler.
import { fold } from "./tokenize.js";

const HONORIFICS = new Set(["mr", "mrs", "ms", "miss", "dr", "prof", "sir", "madam", "mx"]);
const ORG_SUFFIXES = new Set(["inc", "corp", "corporation", "ltd", "llc", "plc", "gmbh", "sa", "co", "company", "ag"]);

/**
 * Keys already made, per spelling: extraction and resolution ask for the same names' keys again and again (a 50 KB
 * episode names some 600 entities, each met in many sentences and compared with many others), and folding them
 * again was a tenth of the extraction thread's work. Cleared past a bound; one per thread.
 */
const made = new Map<string, string>();

/** Canonical key of a name: folded, punctuation and honorifics removed, possessive dropped. */
export function nameKey(name: string): string {
  let k = made.get(name);
  if (k === undefined) {
    if (made.size >= 20_000) made.clear();
    k = foldedKey(name);
    made.set(name, k);
  }
  return k;
}

function foldedKey(name: string): string {
  const parts = fold(name)
    .replace(/['’]s\b/g, "")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()
    .split(" ")
    .filter(Boolean);
  while (parts.length > 1 && HONORIFICS.has(parts[0]!)) parts.shift();
  while (parts.length > 1 && ORG_SUFFIXES.has(parts[parts.length - 1]!)) parts.pop();
  if (parts[0] === "the" && parts.length > 1) parts.shift();
  return parts.join(" ");
}

/** Lookup keys an entity is findable by: its full key and each token of three letters or more. */
export function nameKeys(names: readonly string[]): string[] {
  const keys = new Set<string>();
  for (const n of names) {
    const k = nameKey(n);
    if (!k) continue;
    keys.add(k);
    for (const t of k.split(" ")) if (t.length >= 3) keys.add(`t:${t}`);
  }
  return [...keys];
}

/** Match flags reused across calls: resolution compares thousands of pairs per large episode (issue #24). */
let aMatch = new Uint8Array(64);
let bMatch = new Uint8Array(64);

/** Jaro-Winkler similarity in [0, 1]. */
export function jaroWinkler(a: string, b: string): number {
  if (a === b) return 1;
  if (!a.length || !b.length) return 0;
  if (aMatch.length < a.length) aMatch = new Uint8Array(a.length * 2);
  if (bMatch.length < b.length) bMatch = new Uint8Array(b.length * 2);
  aMatch.fill(0, 0, a.length);
  bMatch.fill(0, 0, b.length);
  const range = Math.max(0, Math.floor(Math.max(a.length, b.length) / 2) - 1);
  let matches = 0;
  for (let i = 0; i < a.length; i++) {
    const lo = Math.max(0, i - range);
    const hi = Math.min(b.length - 1, i + range);
    const c = a.charCodeAt(i);
    for (let j = lo; j <= hi; j++) {
      if (bMatch[j] || c !== b.charCodeAt(j)) continue;
      aMatch[i] = bMatch[j] = 1;
      matches++;
      break;
    }
  }
  if (!matches) return 0;
  let transpositions = 0;
  let k = 0;
  for (let i = 0; i < a.length; i++) {
    if (!aMatch[i]) continue;
    while (!bMatch[k]) k++;
    if (a.charCodeAt(i) !== b.charCodeAt(k)) transpositions++;
    k++;
  }
  const m = matches;
  const jaro = (m / a.length + m / b.length + (m - transpositions / 2) / m) / 3;
  let prefix = 0;
  while (prefix < 4 && prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}
