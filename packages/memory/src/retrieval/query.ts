// Query analysis for recall: which people a question names, so that what those people said themselves
// ranks above what others said about the same words ("What did Caroline research?" is answered in
// Caroline's own turns). Speakers come from `metadata.speaker` or a `Name: ` prefix, as in extraction.
import type { EpisodeRecord } from "../domain/types.js";
import { splitSpeaker } from "../extractors/rule-based.js";
import type { MemoryStore } from "../store/types.js";
import { nameKey } from "../text/names.js";
import { escapeRegExp } from "../text/tokenize.js";

const QUESTION_WORDS = new Set(
  "what when where who whom whose which why how did does do is are was were would could can should will has have had i in on at the a an if".split(
    " ",
  ),
);

/** Name keys of the people a query names (full names, aliases and given names of known persons). */
export async function namedPeople(store: MemoryStore, brainId: string, query: string): Promise<Set<string>> {
  // names are capitalised words; searching for them alone keeps a long question's other words from
  // crowding the person out of the entity hits
  const capitalised = (query.match(/(?<![\p{L}\p{N}])\p{Lu}[\p{L}'’-]*/gu) ?? []).filter((w) => !QUESTION_WORDS.has(w.toLowerCase()));
  if (!capitalised.length) return new Set();
  const hits = await store.searchEntities({ brainId, query: capitalised.join(" "), limit: 10 });
  const out = new Set<string>();
  for (const { item } of hits) {
    if (item.kind !== "person") continue;
    const forms = [item.name, ...item.aliases];
    const given = item.name.split(/\s+/)[0];
    if (given && given.length >= 3) forms.push(given);
    const named = forms.some(
      (f) => f.length >= 2 && new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(f)}(?![\\p{L}\\p{N}])`, "iu").test(query),
    );
    if (named) for (const f of forms) out.add(nameKey(f));
  }
  return out;
}

/** Whether one of `people` (name keys) spoke the episode. */
export function spokenBy(episode: EpisodeRecord, people: Set<string>): boolean {
  if (!people.size) return false;
  const { speaker } = splitSpeaker(episode.content, episode.metadata);
  return speaker !== null && people.has(nameKey(speaker));
}
