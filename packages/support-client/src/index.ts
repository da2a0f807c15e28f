// @mountkit/support-client: browser/Node client for the support service's public interface (A).
export { backoffDelay, jitteredDelay, STREAM_BACKOFF } from "./backoff.js";
export {
  type Attachment,
  type Comment,
  type ConversationStatus,
  createSupportClient,
  type EventSourceLike,
  type Issue,
  type Rating,
  type StreamEvent,
  type StreamHandlers,
  type Subscription,
  type Summary,
  SupportApiError,
  type SupportClient,
  type SupportClientOptions,
  type UploadOptions,
} from "./client.js";
export {
  CUSTOMER_ID_KEY,
  defaultStorage,
  inMemoryStorage,
  type KeyValueStorage,
  memoryStorage,
  newClientMessageId,
  newCustomerId,
  persistentCustomerId,
} from "./ids.js";
export { type DisplayComment, type LiveConversation, type LiveState, liveConversation } from "./live.js";
export { displayBody, readMetadata } from "./metadata.js";
export { readSse, type SseMessage } from "./sse.js";
