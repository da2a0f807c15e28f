// @mountkit/memory: agent memory service with offline extraction and bi-temporal recall.
// Runs on any fetch runtime: Node-only pieces live on subpaths (`/cli`: the keys CLI; `/testing`: the store suite).
export { createMemoryApi, type MemoryApi } from "./api.js";
export { EXPORT_FORMAT, jsonLines } from "./api-erasure.js";
export { brainForKey, createApiKey, generateApiKey, hashApiKey, parseKeyList, revokeApiKey } from "./auth/keys.js";
// conversation context of episodes (a turn indexed with its neighbours, the conversation named or inferred), for SQL stores to index alike
export {
  CONTEXT_TURNS,
  CONVERSATION_GAP_MS,
  conversationKey,
  episodeConversation,
  INFERRED_TURN_CHARS,
  type PreviousEpisode,
  searchableText,
} from "./domain/conversation.js";
// erasure (docs/memory.md#erasure): the rule every store applies, decided once
export {
  type ErasureKind,
  type ErasurePlan,
  type ErasureReads,
  type ErasureRecord,
  type ErasureResult,
  erasedReason,
  erasureRecord,
  planErasure,
} from "./domain/erasure.js";
export {
  type Cardinality,
  canonicalRelation,
  isSingleValued,
  normaliseRelation,
  type RelationInfo,
  type RelationSpec,
  type RelationTable,
  relationTable,
} from "./domain/relations.js";
// scopes within a brain and the filters of reads (docs/memory.md#scopes-and-filters)
export {
  type EdgeFilter,
  type EpisodeFilter,
  edgeMatches,
  episodeMatches,
  type FilterInput,
  type MetadataValue,
  matchesScope,
  SCOPE_FIELDS,
  type Scope,
  type ScopeField,
  type ScopeFilter,
} from "./domain/scope.js";
export {
  type ApiKeyRecord,
  type BrainRecord,
  type EdgeRecord,
  type EntityKind,
  type EntityRecord,
  type EpisodeRecord,
  type EpisodeStatus,
  edgeVisibleAt,
  episodeVisibleAt,
  type Page,
  type PageAfter,
  type PlaybookRecord,
} from "./domain/types.js";
export { parseInstant } from "./domain/wire.js";
export { type Embedder, type OpenAiEmbedderOptions, openAiEmbedder } from "./embeddings.js";
export { memoryError } from "./errors.js";
export { type NlpExtractorOptions, nlpExtractor } from "./extractors/nlp-extractor.js";
export { type OpenAiExtractorOptions, openAiExtractor } from "./extractors/openai.js";
export { ruleBasedExtractor } from "./extractors/rule-based.js";
export type { Aspect, ExtractedEntity, ExtractedFact, ExtractionInput, Extractor, Polarity } from "./extractors/types.js";
// idempotent and batch ingest (docs/memory.md#idempotent-and-batch-ingest)
export { type BatchOutcome, type CreateEpisodeInput, IDEMPOTENCY_TTL_MS } from "./ingest.js";
export { EXTRACTION_QUEUE, type ExtractionPayload } from "./pipeline/run.js";
export { bm25Index } from "./retrieval/bm25.js";
export { DEFAULT_WEIGHTS, type RecallWeights } from "./retrieval/recall.js";
// the handler `createMemoryService({ mcp })` takes: `mcpHttp()` from `@mountkit/memory/mcp` (the SDK stays off this entry)
export type { MemoryMcpHttp } from "./routes/mcp.js";
// the default extractor's worker threads on Node (`createMemoryService({ extraction })`)
export type { ExtractionThreadsOptions } from "./runtime/types.js";
export { createMemoryService, EXPLORER_PATH, type MemoryService, type MemoryServiceOptions } from "./service.js";
export { newEpisodeJob } from "./store/episode-job.js";
export type { ExportBatch, ExportKind, ExportRecords, StoreErasure } from "./store/erasure-types.js";
export { inMemoryMemoryStore, memoryMemoryStore } from "./store/in-memory.js";
export { inMemoryQuotaHolds, memoryQuotaHolds } from "./store/in-memory-quota.js";
export type {
  BitemporalPoint,
  CommitResult,
  CreateEpisodeOutcome,
  EdgeInvalidation,
  EpisodeJob,
  ExtractionCommit,
  IdempotencyClaim,
  InvalidateResult,
  ListInput,
  MemoryStore,
  QuotaHolds,
  SearchHit,
} from "./store/types.js";
// the analyser behind full-text search, for SQL stores that index the same terms natively
export { terms as searchTerms } from "./text/tokenize.js";
