// The extraction thread's module (dist/extract-worker.js; bundled from this file when running from sources): the
// offline NLP analysis of one episode, called by the pool in `threads.ts` with plain data and answering plain data.
import { type Analysis, type AnalysisInput, analyseEpisode } from "./nlp-extractor.js";

export function analyse(input: AnalysisInput): Analysis {
  return analyseEpisode(input);
}
