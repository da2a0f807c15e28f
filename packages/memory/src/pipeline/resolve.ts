// Stage 2: entity resolution against the brain. One real-world thing gets one entity: exact keys
// ("alice moreau"), given names of a known person ("Alice" -> "Alice Moreau"), near-spellings
// (Jaro-Winkler) and known names written in lower case in the text.
import type { EntityKind, EntityRecord } from "../domain/types.js";
import type { ExtractedEntity } from "../extractors/types.js";
import { jaroWinkler, nameKey, nameKeys } from "../text/names.js";
import { escapeRegExp, fold } from "../text/tokenize.js";
import type { EpisodeRun, ResolvedEntity } from "./context.js";

const FUZZY_THRESHOLD = 0.93;

const kindsCompatible = (a: EntityKind, b: EntityKind) => a === b || a === "other" || b === "other";

/**
 * `nameKey` remembered per spelling: resolving a large episode compares each name with every entity met so
 * far (issue #24), and folding the same spellings again dominated the stage. Cleared past a bound.
 */
const keyMemo = new Map<string, string>();
function memoKey(name: string): string {
  let k = keyMemo.get(name);
  if (k === undefined) {
    if (keyMemo.size >= 20_000) keyMemo.clear();
    k = nameKey(name);
    keyMemo.set(name, k);
  }
  return k;
}

/** Characters of a key counted in 32 buckets (each letter has one of its own; digits share theirs). */
function bagOf(key: string): Uint16Array {
  const bag = new Uint16Array(32);
  for (let i = 0; i < key.length; i++) bag[key.charCodeAt(i) & 31]!++;
  return bag;
}

/** A name as compared: its key, the key's words and its characters' bag. */
interface Query {
  key: string;
  kind: EntityKind;
  tokens: string[];
  bag: Uint16Array;
}

const queryOf = (key: string, kind: EntityKind): Query => ({ key, kind, tokens: key.split(" "), bag: bagOf(key) });

interface Facets {
  name: string;
  aliases: string[];
  aliasCount: number;
  keys: string[];
  bags: Uint16Array[];
  /** Words of the name's key. */
  tokens: string[];
}

/** A record's keys and bags, computed again only when its name or aliases changed. */
const facetMemo = new WeakMap<EntityRecord, Facets>();
function facets(e: EntityRecord): Facets {
  let f = facetMemo.get(e);
  if (!f || f.name !== e.name || f.aliases !== e.aliases || f.aliasCount !== e.aliases.length) {
    const keys = [e.name, ...e.aliases].map(memoKey).filter(Boolean);
    f = { name: e.name, aliases: e.aliases, aliasCount: e.aliases.length, keys, bags: keys.map(bagOf), tokens: memoKey(e.name).split(" ") };
    facetMemo.set(e, f);
  }
  return f;
}

/**
 * Whether Jaro-Winkler can reach FUZZY_THRESHOLD, from lengths and shared characters alone. Jaro-Winkler is at
 * most 0.4 + 0.6 * Jaro, and Jaro at most (m/|a| + m/|b| + 1) / 3 for m matched characters, so 0.93 needs
 * m/|a| + m/|b| >= 1.65, where m is at most the shorter length and the overlap of the two bags. The bound keeps
 * a margin for rounding; it skips nearly every pair of a large episode, each of which costs a Jaro-Winkler.
 */
function mayBeNear(q: Query, key: string, bag: Uint16Array): boolean {
  const a = q.key.length;
  const b = key.length;
  const shorter = Math.min(a, b);
  if (shorter / a + shorter / b < 1.6) return false;
  let shared = 0;
  for (let i = 0; i < 32; i++) shared += Math.min(q.bag[i]!, bag[i]!);
  return shared / a + shared / b >= 1.6;
}

type Match = { entity: EntityRecord; strength: number };

/** How well an extracted name denotes an existing entity; 0 when it does not. */
function matchStrength(q: Query, candidate: EntityRecord): number {
  const { key, kind, tokens } = q;
  if (!kindsCompatible(kind, candidate.kind)) return 0;
  const { keys, bags, tokens: candTokens } = facets(candidate);
  if (keys.includes(key)) return 1;
  const person = kind === "person" || candidate.kind === "person";
  if (person) {
    // "Alice" for "Alice Moreau", or "Alice Moreau" for a known "Alice"; the longer name must be a
    // person's: "Liam's favourite band" or "Sophie's brother" is not Liam or Sophie
    if (tokens.length === 1 && candTokens.length > 1 && candTokens[0] === tokens[0] && candidate.kind === "person") return 0.8;
    if (candTokens.length === 1 && tokens.length > 1 && tokens[0] === candTokens[0] && kind === "person") return 0.8;
  }
  if (key.length >= 5) {
    let best = 0;
    for (let i = 0; i < keys.length; i++) if (mayBeNear(q, keys[i]!, bags[i]!)) best = Math.max(best, jaroWinkler(keys[i]!, key));
    if (best >= FUZZY_THRESHOLD) return best - 0.1;
  }
  return 0;
}

function mergeInto(resolved: ResolvedEntity, extracted: ExtractedEntity, now: number) {
  const rec = resolved.record;
  const surface = [extracted.name, ...(extracted.aliases ?? [])];
  // the longest spelling becomes the name: "Alice" seen before, "Alice Moreau" now
  const tokenCount = (s: string) => nameKey(s).split(" ").length;
  for (const s of surface) {
    if (rec.kind === "person" && tokenCount(s) > tokenCount(rec.name) && nameKey(s).startsWith(nameKey(rec.name).split(" ")[0]!)) {
      if (!rec.aliases.includes(rec.name)) rec.aliases.push(rec.name);
      rec.name = s;
      resolved.changed = true;
    }
  }
  for (const s of surface) {
    if (s !== rec.name && !rec.aliases.includes(s) && nameKey(s) && rec.aliases.length < 32) {
      rec.aliases.push(s);
      resolved.changed = true;
    }
  }
  if (rec.kind === "other" && extracted.kind !== "other") {
    rec.kind = extracted.kind;
    resolved.changed = true;
  }
  if (resolved.changed) {
    rec.keys = nameKeys([rec.name, ...rec.aliases]);
    rec.updatedAt = now;
  }
}

export interface Resolver {
  resolve(extracted: ExtractedEntity): Promise<ResolvedEntity | null>;
  /** The resolved entity a name (or alias) of this episode refers to. */
  byName(name: string): ResolvedEntity | undefined;
}

export function createResolver(run: EpisodeRun): Resolver {
  const { deps, episode } = run;
  const byKey = new Map<string, ResolvedEntity>();
  const remember = (r: ResolvedEntity) => {
    run.entities.set(r.record.id, r);
    for (const k of facets(r.record).keys) byKey.set(k, r);
  };

  async function resolve(extracted: ExtractedEntity): Promise<ResolvedEntity | null> {
    const key = nameKey(extracted.name);
    if (!key) return null;
    const kind = extracted.kind;
    const q = queryOf(key, kind);
    // within the episode first
    let best: { target: ResolvedEntity; strength: number } | null = null;
    for (const r of new Set(byKey.values())) {
      const s = matchStrength(q, r.record);
      if (s > (best?.strength ?? 0)) best = { target: r, strength: s };
    }
    if (!best || best.strength < 1) {
      const candidates = await deps.store.findEntitiesByKeys({
        brainId: episode.brainId,
        keys: nameKeys([extracted.name, ...(extracted.aliases ?? [])]),
        limit: 50,
      });
      const scored: Match[] = candidates.map((c) => ({ entity: c, strength: matchStrength(q, c) })).filter((m) => m.strength > 0);
      // a bare given name shared by two known people stays ambiguous: do not guess
      const partial = scored.filter((m) => m.strength === 0.8);
      const usable = scored.filter((m) => m.strength !== 0.8 || partial.length === 1);
      for (const m of usable) {
        if (m.strength > (best?.strength ?? 0)) {
          const existing = run.entities.get(m.entity.id) ?? { record: m.entity, isNew: false, changed: false };
          best = { target: existing, strength: m.strength };
        }
      }
    }
    if (best) {
      mergeInto(best.target, extracted, run.now);
      remember(best.target);
      return best.target;
    }
    const aliases = (extracted.aliases ?? []).filter((a) => a !== extracted.name && nameKey(a));
    const record: EntityRecord = {
      id: deps.ids("ent"),
      brainId: episode.brainId,
      name: extracted.name.trim(),
      kind,
      aliases,
      keys: nameKeys([extracted.name, ...aliases]),
      createdAt: run.now,
      updatedAt: run.now,
    };
    const created: ResolvedEntity = { record, isNew: true, changed: false };
    remember(created);
    return created;
  }

  return {
    resolve,
    byName: (name) => byKey.get(nameKey(name)),
  };
}

/** Known entities of the brain that the text names in any case ("alice moreau"), as extra extractions. */
export async function knownMentions(run: EpisodeRun, already: ExtractedEntity[]): Promise<ExtractedEntity[]> {
  const { deps, episode } = run;
  const hits = await deps.store.searchEntities({ brainId: episode.brainId, query: episode.content, limit: 20 });
  const have = new Set(already.map((e) => nameKey(e.name)));
  const text = fold(episode.content);
  const out: ExtractedEntity[] = [];
  for (const { item } of hits) {
    await run.slice();
    for (const form of [item.name, ...item.aliases]) {
      const k = nameKey(form);
      if (!k || have.has(k) || k.length < 3) continue;
      const re = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(fold(form))}(?![\\p{L}\\p{N}])`, "u");
      if (re.test(text)) {
        out.push({ name: form, kind: item.kind });
        have.add(k);
        break;
      }
    }
  }
  return out;
}
