// @mountkit/memory: agent memory service with offline extraction and bi-temporal recall.
export { createMemoryApi, type MemoryApi } from "./api.js";
export { brainForKey, createApiKey, generateApiKey, hashApiKey, parseKeyList, revokeApiKey } from "./auth/keys.js";
export { canonicalRelation, isSingleValued, normaliseRelation } from "./domain/relations.js";
export * from "./domain/types.js";
export { parseInstant } from "./domain/wire.js";
export { type Embedder, openAiEmbedder, type OpenAiEmbedderOptions } from "./embeddings.js";
export { type CliIo, runCli } from "./cli.js";
export { memoryError } from "./errors.js";
export { openAiExtractor, type OpenAiExtractorOptions } from "./extractors/openai.js";
export { nlpExtractor } from "./extractors/nlp-extractor.js";
export { ruleBasedExtractor } from "./extractors/rule-based.js";
export type { ExtractedEntity, ExtractedFact, ExtractionInput, Extractor } from "./extractors/types.js";
export { EXTRACTION_QUEUE, type ExtractionPayload } from "./pipeline/run.js";
export { bm25Index } from "./retrieval/bm25.js";
export { DEFAULT_WEIGHTS, type RecallWeights } from "./retrieval/recall.js";
export { createMemoryService, EXPLORER_PATH, type MemoryService, type MemoryServiceOptions } from "./service.js";
export { memoryMemoryStore } from "./store/memory.js";
export { memoryQuotaHolds } from "./store/memory-quota.js";
export type * from "./store/types.js";
// the analyser behind full-text search, for SQL stores that index the same terms natively
export { terms as searchTerms } from "./text/tokenize.js";
// conversation context of episodes (a turn indexed with its neighbours), for SQL stores to index alike
export { CONTEXT_TURNS, conversationKey, searchableText } from "./domain/conversation.js";
