// `#extraction-runtime` on Node: the offline NLP extractor on a pool of worker threads, so no episode holds the
// host's event loop (issue #24).
import { threadedNlpExtractor } from "../extractors/threads.js";
import type { ExtractionRuntime } from "./types.js";

export const extractionRuntime: ExtractionRuntime = { defaultExtractor: threadedNlpExtractor };
