// `#extraction-runtime` on fetch runtimes (Workers, Deno, Bun, browsers): no worker threads here, so the offline
// NLP extractor runs in-process.
import { nlpExtractor } from "../extractors/nlp-extractor.js";
import type { ExtractionRuntime } from "./types.js";

export const extractionRuntime: ExtractionRuntime = {
  defaultExtractor: (_options, cx) => ({ ...nlpExtractor({ relations: cx?.relations }), async destroy() {} }),
};
