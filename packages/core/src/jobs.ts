// @mountkit/core/jobs: the queue, rate-limit, quota and pub-sub interfaces with their in-memory versions,
// which SQL stores implement and services take as options.
export { exponentialCap, fullJitter, type RandomSource } from "./backoff.js";
export { inMemoryPubSub, memoryPubSub, type PubSub, type Unsubscribe } from "./bus.js";
export {
  inMemoryQuotaCounter,
  inMemoryRateLimiter,
  memoryQuotaCounter,
  memoryRateLimiter,
  type QuotaCounter,
  type RateDecision,
  type RateLimiter,
  slidingLogDecision,
  utcDay,
} from "./limiter.js";
export {
  createQueue,
  createWorker,
  type EnqueueInput,
  inMemoryJobStore,
  type Job,
  type JobStore,
  memoryJobStore,
  mentionsAny,
  type NewJob,
  type Queue,
  type Worker,
  type WorkerOptions,
} from "./queue.js";
