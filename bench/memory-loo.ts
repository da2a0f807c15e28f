// Leave-one-conversation-out check of recall's re-ranking weights (issue #11: held-out conversations are
// measured too, so nothing may be tuned to the dev set). For each conversation, the weights that do best
// on the other four (a small grid around the defaults) are measured on it, next to the shipped defaults.
// Runs in process on brains the quality bench already ingested over HTTP (bench/memory-quality.ts).
import { randomIds, systemClock } from "@mountkit/core";
import { createMemoryApi, DEFAULT_WEIGHTS, type MemoryStore, type RecallWeights } from "@mountkit/memory";
import type { QuestionResult } from "./memory-quality.js";

const pct = (n: number) => `${(100 * n).toFixed(1)}%`;

/** The grid: each re-ranking weight off or at a step around its default, then everything off. */
function grid(): Array<Partial<RecallWeights>> {
  const out: Array<Partial<RecallWeights>> = [];
  for (const speaker of [1.5, 2, 3])
    for (const answerType of [1, 1.3])
      for (const dateWindow of [1, 2])
        for (const edgeEpisodes of [0, 0.25, 0.5]) out.push({ speaker, answerType, dateWindow, edgeEpisodes });
  out.push({ speaker: 1, answerType: 1, dateWindow: 1, edgeEpisodes: 0 });
  return out;
}

const label = (w: Partial<RecallWeights>) =>
  `speaker ${w.speaker}, answerType ${w.answerType}, dateWindow ${w.dateWindow}, edgeEpisodes ${w.edgeEpisodes}`;

export async function leaveOneOut(store: MemoryStore, questions: QuestionResult[], k: number): Promise<void> {
  const configs = grid();
  console.log(
    `Q3. leave-one-conversation-out: ${configs.length} weight settings (speaker × answerType × dateWindow × edgeEpisodes) scored in process on the ingested brains`,
  );
  // recall of every question under every setting
  const scores: number[][] = [];
  for (const weights of configs) {
    const api = createMemoryApi({ store, clock: systemClock, ids: randomIds, recallWeights: weights });
    const row: number[] = [];
    for (const q of questions) {
      const r = await api.recall(q.brainId, { query: q.question, limit: k });
      const got = new Set(r.episodes.map((e) => (e.metadata as { dia_id?: string }).dia_id));
      row.push(q.evidence.filter((e) => got.has(e)).length / q.evidence.length);
    }
    scores.push(row);
  }
  const meanOf = (row: number[], keep: (i: number) => boolean) => {
    let sum = 0;
    let n = 0;
    row.forEach((v, i) => {
      if (keep(i)) {
        sum += v;
        n++;
      }
    });
    return sum / n;
  };
  const defaults = configs.findIndex(
    (c) =>
      c.speaker === DEFAULT_WEIGHTS.speaker &&
      c.answerType === DEFAULT_WEIGHTS.answerType &&
      c.dateWindow === DEFAULT_WEIGHTS.dateWindow &&
      c.edgeEpisodes === DEFAULT_WEIGHTS.edgeEpisodes,
  );
  const conversations = [...new Set(questions.map((q) => q.conversation))];
  console.log(
    `   ${"held out".padEnd(10)} ${"n".padStart(4)}  ${"tuned on 4".padStart(10)}  ${"defaults".padStart(8)}  weights chosen on the other four`,
  );
  let tunedHits = 0;
  let defaultHits = 0;
  for (const held of conversations) {
    const train = (i: number) => questions[i]!.conversation !== held;
    const test = (i: number) => questions[i]!.conversation === held;
    let best = 0;
    for (let c = 1; c < configs.length; c++) if (meanOf(scores[c]!, train) > meanOf(scores[best]!, train) + 1e-12) best = c;
    const n = questions.filter((q) => q.conversation === held).length;
    const tuned = meanOf(scores[best]!, test);
    const def = defaults >= 0 ? meanOf(scores[defaults]!, test) : Number.NaN;
    tunedHits += tuned * n;
    defaultHits += def * n;
    console.log(
      `   ${held.padEnd(10)} ${String(n).padStart(4)}  ${pct(tuned).padStart(10)}  ${pct(def).padStart(8)}  ${label(configs[best]!)}`,
    );
  }
  const best = scores.reduce((b, row, c) => (meanOf(row, () => true) > meanOf(scores[b]!, () => true) ? c : b), 0);
  console.log(
    `   pooled over held-out conversations: tuned-on-4 ${pct(tunedHits / questions.length)}, defaults ${pct(defaultHits / questions.length)}; best setting on all five: ${pct(meanOf(scores[best]!, () => true))} (${label(configs[best]!)}); all weights off: ${pct(meanOf(scores[configs.findIndex((c) => c.speaker === 1 && c.answerType === 1 && c.dateWindow === 1 && c.edgeEpisodes === 0)]!, () => true))}`,
  );
  console.log(
    "   (the context window, two turns before and one after, was chosen on these five conversations as well and is not varied here)",
  );
}
