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

function allKeys(e: EntityRecord): string[] {
  return [e.name, ...e.aliases].map(nameKey).filter(Boolean);
}

type Match = { entity: EntityRecord; strength: number };

/** How well an extracted name denotes an existing entity; 0 when it does not. */
function matchStrength(key: string, kind: EntityKind, candidate: EntityRecord): number {
  if (!kindsCompatible(kind, candidate.kind)) return 0;
  const keys = allKeys(candidate);
  if (keys.includes(key)) return 1;
  const person = kind === "person" || candidate.kind === "person";
  const tokens = key.split(" ");
  if (person) {
    const candTokens = nameKey(candidate.name).split(" ");
    // "Alice" for "Alice Moreau", or "Alice Moreau" for a known "Alice"; the longer name must be a
    // person's: "Liam's favourite band" or "Sophie's brother" is not Liam or Sophie
    if (tokens.length === 1 && candTokens.length > 1 && candTokens[0] === tokens[0] && candidate.kind === "person") return 0.8;
    if (candTokens.length === 1 && tokens.length > 1 && tokens[0] === candTokens[0] && kind === "person") return 0.8;
  }
  if (key.length >= 5) {
    const best = Math.max(...keys.map((k) => jaroWinkler(k, key)));
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
    for (const k of allKeys(r.record)) byKey.set(k, r);
  };

  async function resolve(extracted: ExtractedEntity): Promise<ResolvedEntity | null> {
    const key = nameKey(extracted.name);
    if (!key) return null;
    const kind = extracted.kind;
    // within the episode first
    let best: { target: ResolvedEntity; strength: number } | null = null;
    for (const r of new Set(byKey.values())) {
      const s = matchStrength(key, kind, r.record);
      if (s > (best?.strength ?? 0)) best = { target: r, strength: s };
    }
    if (!best || best.strength < 1) {
      const candidates = await deps.store.findEntitiesByKeys({
        brainId: episode.brainId,
        keys: nameKeys([extracted.name, ...(extracted.aliases ?? [])]),
        limit: 50,
      });
      const scored: Match[] = candidates.map((c) => ({ entity: c, strength: matchStrength(key, kind, c) })).filter((m) => m.strength > 0);
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
