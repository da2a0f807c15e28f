// The resolver's cheap bounds for fuzzy name matching (src/pipeline/resolve.ts): a pair they skip can never reach
// the Jaro-Winkler threshold, so skipping it changes no match. Checked on every pair of names a large episode holds,
// and on near-spellings made from them.
import { describe, expect, it } from "vitest";
import { findNames } from "../src/extractors/rule-based.js";
import { masksAllow, queryOf, sharedEnough } from "../src/pipeline/resolve.js";
import { jaroWinkler, nameKey } from "../src/text/names.js";
import { largeEpisode, seeded } from "./large-episodes.js";

/** A key with two neighbouring characters swapped, one doubled and one dropped: misspellings that stay near. */
function misspellings(key: string, rnd: () => number): string[] {
  const at = 1 + Math.floor(rnd() * Math.max(1, key.length - 2));
  return [
    key.slice(0, at) + key[at + 1] + key[at] + key.slice(at + 2),
    key.slice(0, at) + key[at] + key.slice(at),
    key.slice(0, at) + key.slice(at + 1),
  ].filter((k) => k.length >= 5);
}

describe("fuzzy matching bounds", () => {
  const rnd = seeded(7);
  const names = [...new Set(findNames(largeEpisode(24_000, 50_000)).map((e) => nameKey(e.name)))].filter((k) => k.length >= 5);
  const keys = [...new Set([...names, ...names.slice(0, 120).flatMap((k) => misspellings(k, rnd)), "version 5.4", "version 5.2"])];

  it("never skip a pair Jaro-Winkler could match, and skip most of the rest", () => {
    expect(names.length).toBeGreaterThan(200);
    const bags = keys.map((k) => queryOf(k, "other"));
    let pairs = 0;
    let skipped = 0;
    let fuzzy = 0;
    const wrong: string[] = [];
    for (const q of bags)
      for (const o of bags) {
        if (q === o) continue;
        pairs++;
        const jw = jaroWinkler(o.key, q.key);
        if (jw >= 0.93) fuzzy++;
        if (masksAllow(q, o.key, o.mask)) continue;
        skipped++;
        // the masks bound the bags' overlap from above: what they refuse, the bags refuse too, and so does Jaro-Winkler
        if (sharedEnough(q, o.key, o.bag) || jw >= 0.93) wrong.push(`${q.key} / ${o.key}`);
      }
    expect(wrong).toEqual([]);
    // the misspellings are there to match: the check above met pairs on both sides of the threshold
    expect(fuzzy).toBeGreaterThan(100);
    expect(skipped / pairs).toBeGreaterThan(0.5);
    console.log(`${keys.length} keys: ${pairs} pairs, ${fuzzy} near enough for Jaro-Winkler, ${skipped} skipped by the masks`);
  });
});
