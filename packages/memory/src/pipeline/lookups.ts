// What a run reads from the store again and again, read once: the brain does not change under a run (its commit
// checks the brain's version and resolves again on a conflict), so an answer read early stays true until it commits.
// A 50 KB episode asked the store ~600 entity and ~1,100 edge lookups one by one.
import { ownerScope } from "../domain/scope.js";
import { byAge, type EdgeRecord, type EntityRecord } from "../domain/types.js";
import type { ExtractedEntity } from "../extractors/types.js";
import { nameKeys } from "../text/names.js";
import type { EpisodeRun } from "./context.js";

interface Prefetched {
  /** Keys read in the prefetch: a lookup with another key asks the store. */
  keys: Set<string>;
  /** Entities by key, oldest first (the store's order within a key). */
  byKey: Map<string, EntityRecord[]>;
}

const entities = new WeakMap<EpisodeRun, Prefetched>();
const edges = new WeakMap<EpisodeRun, Map<string, Promise<EdgeRecord[]>>>();

/** Reads, in one call, every stored entity that `extracted` could resolve to (as findEntitiesByKeys would). */
export async function prefetchEntities(run: EpisodeRun, extracted: readonly ExtractedEntity[]): Promise<void> {
  const keys = [...new Set(extracted.flatMap((e) => nameKeys([e.name, ...(e.aliases ?? [])])))];
  if (!keys.length) return;
  const limit = 50 * extracted.length;
  const found = await run.deps.store.findEntitiesByKeys({ brainId: run.episode.brainId, keys, limit });
  // a full answer may have been cut short: each lookup then asks the store itself
  if (found.length >= limit) return;
  const byKey = new Map<string, EntityRecord[]>();
  for (const r of found.sort(byAge))
    for (const k of r.keys) {
      const same = byKey.get(k);
      if (same) same.push(r);
      else byKey.set(k, [r]);
    }
  entities.set(run, { keys: new Set(keys), byKey });
}

/**
 * findEntitiesByKeys for one lookup: from the prefetch when it read every key, else from the store. The records
 * may be the prefetch's own, shared by every lookup of the run: read them, and change only a copy (cloning each
 * of a 50 KB episode's ~30,000 candidates was most of its resolution time, for the few it keeps).
 */
export async function entitiesByKeys(run: EpisodeRun, keys: string[], limit: number): Promise<readonly Readonly<EntityRecord>[]> {
  const pre = entities.get(run);
  if (!pre || !keys.every((k) => pre.keys.has(k))) return run.deps.store.findEntitiesByKeys({ brainId: run.episode.brainId, keys, limit });
  // the store's order: the keys in the order asked, then the entities' age
  const out = new Map<string, EntityRecord>();
  for (const k of keys) for (const r of pre.byKey.get(k) ?? []) if (out.size < limit && !out.has(r.id)) out.set(r.id, r);
  return [...out.values()];
}

/**
 * Reads, in a few calls, the current edges of every (source, relation) pair of `wanted` whose source the brain
 * holds, for `currentEdges` to answer from (a 50 KB episode asked ~1,100 pairs one statement at a time).
 */
export async function prefetchEdges(run: EpisodeRun, wanted: readonly Pick<EdgeRecord, "source" | "relation">[]): Promise<void> {
  const pairs = new Map<string, { source: string; relation: string }>();
  for (const e of wanted) if (!run.entities.get(e.source)?.isNew) pairs.set(pairKey(e.source, e.relation), e);
  let memo = edges.get(run);
  if (!memo) edges.set(run, (memo = new Map()));
  const sources = [...new Set([...pairs.values()].map((p) => p.source))];
  const grouped = new Map<string, EdgeRecord[]>([...pairs.keys()].map((k) => [k, []]));
  // a few dozen sources a call, with a turn between: one answer for a large brain's every edge would be one long
  // deserialisation on the loop
  for (let i = 0; i < sources.length; i += PREFETCH_SOURCES) {
    await run.slice();
    const found = await run.deps.store.findCurrentEdges({
      brainId: run.episode.brainId,
      source: sources.slice(i, i + PREFETCH_SOURCES),
      scope: ownerScope(run.episode),
    });
    for (const e of found) grouped.get(pairKey(e.source, e.relation))?.push(e);
  }
  for (const [k, list] of grouped) if (!memo.has(k)) memo.set(k, Promise.resolve(list));
}

const PREFETCH_SOURCES = 50;

const pairKey = (source: string, relation: string) => `${source}\u0000${relation}`;

/** findCurrentEdges of `source` and `relation`, once per run; none for an entity the run itself creates. */
export async function currentEdges(run: EpisodeRun, source: string, relation: string): Promise<EdgeRecord[]> {
  if (run.entities.get(source)?.isNew) return [];
  let memo = edges.get(run);
  if (!memo) edges.set(run, (memo = new Map()));
  const key = pairKey(source, relation);
  let read = memo.get(key);
  if (!read) {
    read = run.deps.store.findCurrentEdges({ brainId: run.episode.brainId, source, relation, scope: ownerScope(run.episode) });
    memo.set(key, read);
    read.catch(() => memo.delete(key));
  }
  return (await read).map((e) => structuredClone(e));
}
