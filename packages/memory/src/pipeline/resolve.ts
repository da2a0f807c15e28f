// Stage 2: entity resolution against the brain. One real-world thing gets one entity: exact keys
// ("alice moreau"), given names of a known person ("Alice" -> "Alice Moreau"), near-spellings
// (Jaro-Winkler) and known names written in lower case in the text.
import type { EntityKind, EntityRecord } from "../domain/types.js";
import type { ExtractedEntity } from "../extractors/types.js";
import { jaroWinkler, nameKey, nameKeys } from "../text/names.js";
import { fold } from "../text/tokenize.js";
import type { EpisodeRun, ResolvedEntity } from "./context.js";
import { entitiesByKeys } from "./lookups.js";

const FUZZY_THRESHOLD = 0.93;

const kindsCompatible = (a: EntityKind, b: EntityKind) => a === b || a === "other" || b === "other";

/** Characters of a key counted in 32 buckets (each letter has one of its own; digits share theirs). */
function bagOf(key: string): Uint16Array {
  const bag = new Uint16Array(32);
  for (let i = 0; i < key.length; i++) bag[key.charCodeAt(i) & 31]!++;
  return bag;
}

/** Which of the 32 buckets a bag has characters in, one bit each. */
function maskOf(bag: Uint16Array): number {
  let mask = 0;
  for (let i = 0; i < 32; i++) if (bag[i]) mask |= 1 << i;
  return mask;
}

/** Set bits of a 32-bit mask. */
function bitCount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** A name as compared: its key, the key's words and its characters' bag. */
export interface Query {
  key: string;
  kind: EntityKind;
  tokens: string[];
  bag: Uint16Array;
  /** `maskOf(bag)`. */
  mask: number;
  /** The numbers in the key (`digitsOf`). */
  digits: string;
}

export function queryOf(key: string, kind: EntityKind): Query {
  const bag = bagOf(key);
  return { key, kind, tokens: key.split(" "), bag, mask: maskOf(bag), digits: digitsOf(key) };
}

interface Facets {
  name: string;
  aliases: string[];
  aliasCount: number;
  keys: string[];
  /** The keys' bags, made when a fuzzy comparison first needs them. */
  bags?: Uint16Array[];
  /** The numbers in each key, made when a fuzzy comparison first needs them. */
  digits?: string[];
  /** Words of the name's key. */
  tokens: string[];
}

/** A record's keys and bags, computed again only when its name or aliases changed. */
const facetMemo = new WeakMap<Readonly<EntityRecord>, Facets>();
function facets(e: Readonly<EntityRecord>): Facets {
  let f = facetMemo.get(e);
  if (!f || f.name !== e.name || f.aliases !== e.aliases || f.aliasCount !== e.aliases.length) {
    const keys = [e.name, ...e.aliases].map(nameKey).filter(Boolean);
    f = { name: e.name, aliases: e.aliases, aliasCount: e.aliases.length, keys, tokens: nameKey(e.name).split(" ") };
    facetMemo.set(e, f);
  }
  return f;
}

/*
 * Whether Jaro-Winkler can reach FUZZY_THRESHOLD, from lengths and shared characters alone. Jaro-Winkler is at
 * most 0.4 + 0.6 * Jaro, and Jaro at most (m/|a| + m/|b| + 1) / 3 for m matched characters, so 0.93 needs
 * m/|a| + m/|b| >= 1.65, where m is at most the shorter length and the overlap of the two bags. The bound keeps
 * a margin for rounding; it skips nearly every pair of a large episode, each of which costs a Jaro-Winkler.
 */
const NEAR = 1.6;

function lengthsAllow(a: number, b: number): boolean {
  const shorter = Math.min(a, b);
  return shorter / a + shorter / b >= NEAR;
}

/**
 * sharedEnough's bound from the masks alone, a few operations where the bags take 32 steps: each bucket one side
 * has and the other lacks is at least one character the overlap cannot hold. Most pairs of a large episode's names
 * fail here: scanning them was a fifth of the main thread's work on a 50 KB episode.
 */
export function masksAllow(q: Query, key: string, mask: number): boolean {
  const shared = Math.min(q.key.length - bitCount(q.mask & ~mask), key.length - bitCount(mask & ~q.mask));
  return shared > 0 && shared / q.key.length + shared / key.length >= NEAR;
}

export function sharedEnough(q: Query, key: string, bag: Uint16Array): boolean {
  let shared = 0;
  for (let i = 0; i < 32; i++) shared += Math.min(q.bag[i]!, bag[i]!);
  return shared / q.key.length + shared / key.length >= NEAR;
}

type Match = { entity: Readonly<EntityRecord>; strength: number };

/** How well an extracted name denotes an existing entity; 0 when it does not. */
/** The numbers in a key, in order: "postgresql 14" -> "14". */
const digitsOf = (key: string) => key.replace(/\D+/g, " ").trim();

function matchStrength(q: Query, candidate: Readonly<EntityRecord>): number {
  const { key, kind, tokens } = q;
  if (!kindsCompatible(kind, candidate.kind)) return 0;
  const f = facets(candidate);
  const { keys, tokens: candTokens } = f;
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
    // "version 5.4" is no misspelling of "version 5.2", nor "Node 20" of "Node 18": numbers never match fuzzily
    for (let i = 0; i < keys.length; i++) {
      if (!lengthsAllow(key.length, keys[i]!.length) || (f.digits ??= keys.map(digitsOf))[i] !== q.digits) continue;
      if (!sharedEnough(q, keys[i]!, (f.bags ??= keys.map(bagOf))[i]!)) continue;
      best = Math.max(best, jaroWinkler(keys[i]!, key));
    }
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

/**
 * The entities an episode has resolved so far, indexed so that matching a name visits only those that can match
 * it: the same key, the same first word, or a key near enough in length and characters for Jaro-Winkler (a 50 KB
 * episode names some 600 entities, and comparing each with all the others held the event loop for most of a
 * second; issue #24). `best` answers what a scan of the distinct values of `byKey`, in their order, answered.
 */
function episodeIndex() {
  const byKey = new Map<string, ResolvedEntity>();
  /** Position of each key in byKey's iteration order (keys are never removed). */
  const keyOrder = new Map<string, number>();
  const holders = new Map<string, Set<ResolvedEntity>>();
  /** By the first word of their name: names of one word, and names of more (the two given-name rules). */
  const oneWord = new Map<string, Set<ResolvedEntity>>();
  const moreWords = new Map<string, Set<ResolvedEntity>>();
  const indexed = new Map<ResolvedEntity, Set<string>>();
  const near: Array<{ key: string; length: number; bag: Uint16Array; mask: number; r: ResolvedEntity }> = [];
  const addTo = (m: Map<string, Set<ResolvedEntity>>, k: string, r: ResolvedEntity) => {
    let set = m.get(k);
    if (!set) m.set(k, (set = new Set()));
    set.add(r);
  };

  function add(r: ResolvedEntity) {
    const f = facets(r.record);
    let mine = indexed.get(r);
    if (!mine) indexed.set(r, (mine = new Set()));
    f.keys.forEach((k) => {
      if (!keyOrder.has(k)) keyOrder.set(k, keyOrder.size);
      byKey.set(k, r);
      if (mine.has(k)) return;
      mine.add(k);
      addTo(holders, k, r);
      const bag = bagOf(k);
      near.push({ key: k, length: k.length, bag, mask: maskOf(bag), r });
    });
    addTo(f.tokens.length === 1 ? oneWord : moreWords, f.tokens[0]!, r);
  }

  /** Where r comes among the distinct values of byKey: its first key still naming it; undefined when none does. */
  function order(r: ResolvedEntity): number | undefined {
    let at: number | undefined;
    for (const k of facets(r.record).keys) {
      if (byKey.get(k) !== r) continue;
      const o = keyOrder.get(k)!;
      if (at === undefined || o < at) at = o;
    }
    return at;
  }

  function best(q: Query): { target: ResolvedEntity; strength: number } | null {
    // every entity with a strength above 0 is among these: the same key, a person's name sharing the first word
    // (the given-name rules of matchStrength), or a fuzzy match that lengths and characters allow
    const candidates = new Set<ResolvedEntity>(holders.get(q.key));
    const first = q.tokens[0]!;
    if (q.tokens.length === 1) for (const r of moreWords.get(first) ?? []) if (r.record.kind === "person") candidates.add(r);
    if (q.tokens.length > 1 && q.kind === "person") for (const r of oneWord.get(first) ?? []) candidates.add(r);
    if (q.key.length >= 5) {
      for (const e of near) {
        if (!masksAllow(q, e.key, e.mask) || !lengthsAllow(q.key.length, e.length) || candidates.has(e.r)) continue;
        if (kindsCompatible(q.kind, e.r.record.kind) && sharedEnough(q, e.key, e.bag)) candidates.add(e.r);
      }
    }
    const ordered = [...candidates]
      .map((r) => ({ r, at: order(r) }))
      .filter((c): c is { r: ResolvedEntity; at: number } => c.at !== undefined)
      .sort((a, b) => a.at - b.at);
    let found: { target: ResolvedEntity; strength: number } | null = null;
    for (const { r } of ordered) {
      const s = matchStrength(q, r.record);
      if (s > (found?.strength ?? 0)) found = { target: r, strength: s };
    }
    return found;
  }

  return { add, best, get: (key: string) => byKey.get(key) };
}

export function createResolver(run: EpisodeRun): Resolver {
  const { deps, episode } = run;
  const index = episodeIndex();
  const remember = (r: ResolvedEntity) => {
    run.entities.set(r.record.id, r);
    index.add(r);
  };

  async function resolve(extracted: ExtractedEntity): Promise<ResolvedEntity | null> {
    const key = nameKey(extracted.name);
    if (!key) return null;
    const kind = extracted.kind;
    const q = queryOf(key, kind);
    // within the episode first
    let best = index.best(q);
    if (!best || best.strength < 1) {
      const candidates = await entitiesByKeys(run, nameKeys([extracted.name, ...(extracted.aliases ?? [])]), 50);
      const scored: Match[] = candidates.map((c) => ({ entity: c, strength: matchStrength(q, c) })).filter((m) => m.strength > 0);
      // a bare given name shared by two known people stays ambiguous: do not guess
      const partial = scored.filter((m) => m.strength === 0.8);
      const usable = scored.filter((m) => m.strength !== 0.8 || partial.length === 1);
      for (const m of usable) {
        if (m.strength > (best?.strength ?? 0)) {
          // a candidate is shared with the run's other lookups (entitiesByKeys): the run changes its own copy
          const existing = run.entities.get(m.entity.id) ?? {
            record: structuredClone(m.entity) as EntityRecord,
            isNew: false,
            changed: false,
          };
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
    byName: (name) => index.get(nameKey(name)),
  };
}

/** Known entities of the brain that the text names in any case ("alice moreau"), as extra extractions. */
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * Whether `text` holds `form` with no letter or digit right before or after it (as the lookarounds
 * `(?<![\p{L}\p{N}])form(?![\p{L}\p{N}])` would say), without compiling a pattern per form: an episode asks
 * for each of up to 20 entities' names and aliases, and compiling a Unicode pattern each time was most of
 * this stage.
 */
function containsWord(text: string, form: string): boolean {
  if (!form) return false;
  // the code point that ends at `i` (a surrogate pair read whole) and the one that starts there
  const endsAt = (i: number) => {
    const low = text.charCodeAt(i - 1);
    return low >= 0xdc00 && low <= 0xdfff && i >= 2 ? text.codePointAt(i - 2)! : low;
  };
  const isWord = (cp: number) => LETTER_OR_DIGIT.test(String.fromCodePoint(cp));
  for (let at = text.indexOf(form); at >= 0; at = text.indexOf(form, at + 1)) {
    const end = at + form.length;
    if ((at === 0 || !isWord(endsAt(at))) && (end >= text.length || !isWord(text.codePointAt(end)!))) return true;
  }
  return false;
}

/** The brain's entities whose names the episode's text may hold: the candidates of `knownMentions`. */
export const knownCandidates = (run: EpisodeRun) =>
  run.deps.store.searchEntities({ brainId: run.episode.brainId, query: run.episode.content, limit: 20 });

/** The candidates (`knownCandidates`) whose name or alias the text holds as words, beside the names `already` found. */
export async function knownMentions(
  run: EpisodeRun,
  hits: Awaited<ReturnType<typeof knownCandidates>>,
  already: ExtractedEntity[],
): Promise<ExtractedEntity[]> {
  const { episode } = run;
  const have = new Set(already.map((e) => nameKey(e.name)));
  const text = fold(episode.content);
  const out: ExtractedEntity[] = [];
  for (const { item } of hits) {
    await run.slice();
    for (const form of [item.name, ...item.aliases]) {
      const k = nameKey(form);
      if (!k || have.has(k) || k.length < 3) continue;
      if (containsWord(text, fold(form))) {
        out.push({ name: form, kind: item.kind });
        have.add(k);
        break;
      }
    }
  }
  return out;
}
