// A playbook's markdown (docs/memory.md#playbooks): the currently valid facts, each citing its edge; then the rules
// (instructions: "Always tag the on-call engineer...") and the other statements of its episodes that yielded no
// fact, each citing its episode; then the facts no longer valid, citing their episode (only current facts cite edges). Never empty while the playbook has
// episodes: every statement lands in one of the three parts.
import { iso } from "@mountkit/core";
import { isInstruction } from "../text/instructions.js";
import { terms } from "../text/tokenize.js";
import type { EdgeRecord, EpisodeRecord } from "./types.js";

const day = (ms: number) => iso(ms).slice(0, 10);
const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();

/** Sentences of a text, trimmed, blanks dropped. */
function sentences(text: string): string[] {
  const seg = new Intl.Segmenter("en", { granularity: "sentence" });
  return [...seg.segment(text)].map((s) => oneLine(s.segment)).filter(Boolean);
}

/**
 * The sentences of `episode` no edge was drawn from. An edge's fact text may be rewritten by the
 * extractor (a pronoun replaced by a name), so each fact claims the sentence sharing most of its terms.
 */
export function statementsWithoutFacts(episode: EpisodeRecord, edges: EdgeRecord[]): string[] {
  const list = sentences(episode.content);
  const termSets = list.map((s) => new Set(terms(s)));
  const covered = new Set<number>();
  for (const e of edges) {
    const factTerms = terms(e.fact);
    let best = -1;
    let bestShared = 0;
    termSets.forEach((set, i) => {
      const shared = factTerms.filter((t) => set.has(t)).length;
      if (shared > bestShared) [best, bestShared] = [i, shared];
    });
    if (best >= 0) covered.add(best);
  }
  return list.filter((_, i) => !covered.has(i));
}

export interface PlaybookParts {
  title: string;
  /** Valid and known now, oldest first. */
  current: EdgeRecord[];
  /** Known now but no longer (or not yet) valid. */
  past: EdgeRecord[];
  /** The playbook's episodes with the edges each yielded (any validity). */
  episodes: Array<{ episode: EpisodeRecord; edges: EdgeRecord[] }>;
  /** Cap per section, so a large playbook stays a readable summary. */
  maxLines: number;
}

export function renderPlaybook(p: PlaybookParts): string {
  const lines = [`# ${p.title}`, ""];
  const since = (e: EdgeRecord) => day(e.tValid ?? e.tIngested);
  lines.push("## Facts", "");
  if (!p.current.length) lines.push("_No currently valid facts._");
  for (const e of p.current.slice(-p.maxLines)) lines.push(`- ${oneLine(e.fact)} _(since ${since(e)}; edge \`${e.id}\`)_`);
  const statements = p.episodes.flatMap(({ episode, edges }) =>
    statementsWithoutFacts(episode, edges).map((s) => ({ s, line: `- ${s} _(episode \`${episode.id}\`)_` })),
  );
  const rules = statements.filter((x) => isInstruction(x.s)).map((x) => x.line);
  const unextracted = statements.filter((x) => !isInstruction(x.s)).map((x) => x.line);
  if (rules.length) lines.push("", "## Rules", "", ...rules.slice(-p.maxLines));
  if (unextracted.length) lines.push("", "## Statements without an extracted fact", "", ...unextracted.slice(-p.maxLines));
  if (p.past.length) {
    lines.push("", "## No longer valid", "");
    for (const e of p.past.slice(-p.maxLines)) {
      const until = e.tInvalid === null ? "present" : day(e.tInvalid);
      lines.push(`- ${oneLine(e.fact)} _(${since(e)} to ${until}; episode \`${e.episodeId}\`)_`);
    }
  }
  return lines.join("\n");
}
